/* placeholder */ typedef int rocesim_placeholder_units;
