#!/bin/sh
# make bench: runs the benchmark scenarios with the optimised binary and
# prints, per scenario, simulated time, events, packet-hops, wall time,
# events/s, packet-hops/s, events per packet-hop and peak memory.
# Usage: run.sh SIM SCENARIO_DIR
set -eu
SIM=$1
DIR=$2
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
printf '%-22s %10s %11s %11s %8s %9s %9s %7s %8s\n' scenario simulated events pkt-hops wall_s "Mev/s" "Mhops/s" "ev/hop" "peak_MB"
for s in permutation websearch websearch_dcqcn fat_tree_moe; do
	"$SIM" -q -o "$OUT/$s.db" "$DIR/$s.ini" >"$OUT/$s.txt" 2>"$OUT/$s.err" || { cat "$OUT/$s.err"; exit 1; }
	awk -v name="$s" '
		/^simulated/ { sim = $2 " ms"; wall = $5 }
		/^events/ { ev = $2; gsub(/[(]/, "", $3); evs = $3; hops = $6; gsub(/[(]/, "", $7); hs = $7 }
		/peak memory/ { mb = $(NF - 1) }
		END { printf "%-22s %10s %11s %11s %8s %9s %9s %7.2f %8s\n", name, sim, ev, hops, wall, evs, hs, ev / hops, mb }
	' "$OUT/$s.txt"
done
