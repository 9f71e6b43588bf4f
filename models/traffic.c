/* placeholder */ typedef int rocesim_placeholder_traffic;
