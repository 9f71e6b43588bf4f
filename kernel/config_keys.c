/* placeholder */ typedef int rocesim_placeholder_config_keys;
