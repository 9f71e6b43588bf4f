/* placeholder */ typedef int rocesim_placeholder_topo_fat_tree;
