/* placeholder */ typedef int rocesim_placeholder_main;
