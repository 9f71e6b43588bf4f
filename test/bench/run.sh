#!/bin/sh
# make bench: the fixed benchmark set of issue 7, run one after the other
# with the binary given (use the optimised build: plain ./configure, -O2),
# one table line per case. Figures are recorded in test/bench/RESULTS.md.
#
#   k8_websearch    fat-tree k=8 (128 hosts), web-search 30%, DCQCN, 10 ms
#   k16_websearch   fat-tree k=16 (1024 hosts), web-search 30%, DCQCN, 1 ms
#   hpcc_websearch  HPCC ns-3's reference case through the interop
#                   (scenarios/hpcc_websearch.ini: 320 hosts, 3,201 flows)
#   fat_tree_moe    scenarios/fat_tree_moe.ini (128 GPUs, 2 iterations)
#   moe_1024        one MoE iteration on 1024 GPUs (test/bench/moe_1024.ini)
#
# Columns: flows finished/posted; simulated time; events; packet-hops
# (frames put on any link, data and control); events per packet-hop; wall
# seconds of the simulation loop (sim's summary) and CPU seconds of the
# whole process (getrusage: setup and database included) — on a shared
# machine CPU time is the figure to compare; M events/s and M hops/s per
# CPU second; peak RSS (MB); peak RSS per host (KB); bytes per in-flight
# packet = the packet pool's record size (struct packet; the free-list
# link lives inside it, chunks of 4096 records, no per-object header) and
# the pool's high-water mark of packets alive at once.
#
# Usage: run.sh SIM SCENARIO_DIR [CASE...]   (default: every case)
set -eu
SIM=$1
DIR=$2
shift 2
BENCH=$(cd "$(dirname "$0")" && pwd)
CASES=${*:-k8_websearch k16_websearch hpcc_websearch fat_tree_moe moe_1024}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
printf '%-15s %11s %10s %11s %11s %6s %8s %8s %6s %7s %7s %8s %7s %5s %9s\n' \
	case flows simulated events pkt-hops ev/hop wall_s cpu_s Mev/s Mhops/s peak_MB KB/host \
	B/pkt hosts pkts_peak
for c in $CASES; do
	case $c in
	hpcc_websearch | fat_tree_moe) ini=$DIR/$c.ini ;;
	*) ini=$BENCH/$c.ini ;;
	esac
	"$SIM" -q -o "$OUT/$c.db" "$ini" >"$OUT/$c.txt" 2>"$OUT/$c.err" || {
		echo "$c: sim failed:"; cat "$OUT/$c.err"; exit 1; }
	awk -v name="$c" '
		/^flows/ { flows = $2 }
		/^simulated/ { sim = $2 " ms"; wall = $5 }
		/^events/ { ev = $2; hops = $6 }
		/peak memory/ { mb = $(NF - 1) }
		/^bench:/ { hosts = $3 + 0; cpu = $5; evhop = $8; gsub(/,/, "", evhop); peak = $13; bpk = $15 }
		END {
			c = cpu > 0 ? cpu : 1e-9
			printf "%-15s %11s %10s %11d %11d %6.3f %8.2f %8.2f %6.2f %7.2f %7.1f %8.1f %7d %5d %9d\n",
			       name, flows, sim, ev, hops, evhop, wall, cpu, ev / c / 1e6, hops / c / 1e6,
			       mb, mb * 1024 / hosts, bpk, hosts, peak
		}' "$OUT/$c.txt"
done
