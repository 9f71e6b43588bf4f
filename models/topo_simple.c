/* placeholder */ typedef int rocesim_placeholder_topo_simple;
