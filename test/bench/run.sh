#!/bin/sh
# make bench: the fixed benchmark set of issue 7, run one after the other
# with the binary given (use the optimised build: plain ./configure, -O2),
# one table line per case. Figures are recorded in test/bench/RESULTS.md.
#
#   k8_websearch    fat-tree k=8 (128 hosts), web-search 30%, DCQCN, 10 ms
#   k16_websearch   fat-tree k=16 (1024 hosts), web-search 30%, DCQCN, 1 ms
#   hpcc_websearch  HPCC ns-3's reference case through the interop
#                   (scenarios/hpcc_websearch.ini: 320 hosts, 3,201 flows)
#   hpcc_websearch_{hpcc,timely,dctcp,swift}
#                   the same reference case under each other controller
#                   (scenarios/hpcc_websearch_*.ini): a controller's cost per
#                   packet-hop against DCQCN's
#   fat_tree_moe    scenarios/fat_tree_moe.ini (128 GPUs, 2 iterations)
#   moe_1024        one MoE iteration on 1024 GPUs (test/bench/moe_1024.ini)
#   moe_1024_late   the same with endpoint_delay = 1us: under mpirun its
#                   job runs on every rank and its hosts are spread
#   api_latency     the library: one rocesim_post_msg + rocesim_next pair
#                   (a 1 KB message between GPUs of two hosts, run to its
#                   completion on the idle fabric of test/api_fabric.ini),
#                   median and p90 wall time of 20,000 (test/bench/api_bench,
#                   built beside SIM)
#   serve_rate      the line protocol (sim --serve): requests per second for
#                   100,000 `now` requests (the protocol alone) and for
#                   20,000 `post msg` + `next` pairs (each also simulates
#                   its message), wall time of the whole process less that
#                   of a session with no request
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
# Each case runs BENCH_RUNS times (default 3) in a row: wall_s, cpu_s and
# the rates are the median run's, wall_min the fastest run's loop (the
# machine's speed drifts from minute to minute; the median is the figure
# to quote). The runs must agree on flows, simulated time, events and
# packet-hops (a run is a pure function of its scenario): if they do not,
# the bench fails.
#
# Usage: [BENCH_RUNS=N] run.sh SIM SCENARIO_DIR [CASE...]   (default: every case)
set -eu
SIM=$1
DIR=$2
shift 2
BENCH=$(cd "$(dirname "$0")" && pwd)
# CASE@N: the same case on N MPI ranks (mpirun -np N, $MPIRUN), when sim
# was built with MPI: the wall_s column is rank 0's loop, cpu_s rank 0's;
# the lines around it give the cores' round trip before and after.
PAR=
if [ -n "${MPIRUN:-}" ]; then PAR="k16_websearch@2 hpcc_websearch@2 moe_1024@2 moe_1024_late@2"; fi
CASES=${*:-k8_websearch k16_websearch hpcc_websearch hpcc_websearch_hpcc hpcc_websearch_timely hpcc_websearch_dctcp hpcc_websearch_swift fat_tree_moe moe_1024 moe_1024_late api_latency serve_rate $PAR}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
FABRIC=$BENCH/../api_fabric.ini
RUNS=${BENCH_RUNS:-3}
case $RUNS in '' | *[!0-9]* | 0)
	echo "run.sh: BENCH_RUNS must be a positive integer, got '$RUNS'" >&2
	exit 2 ;;
esac
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
printf '%-21s %13s %14s %11s %11s %6s %8s %8s %6s %7s %7s %8s %7s %5s %9s %8s %4s\n' \
	case flows simulated events pkt-hops ev/hop wall_s cpu_s Mev/s Mhops/s peak_MB KB/host \
	B/pkt hosts pkts_peak wall_min runs
# Wall seconds of running "$@" with stdin from $IN and stdout discarded.
seconds() {
	t0=$(date +%s.%N)
	"$@" <"$IN" >/dev/null || { echo "failed: $*"; exit 1; }
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}
# A parallel case's speed depends on how far apart the CPUs are (a VM's
# host may move its vCPUs): a cache line's round trip between CPUs 0 and 1
# (test/bench/core_rtt, built beside SIM), before and after each such case.
cores_rtt() {
	rtt=$(dirname "$SIM")/test/bench/core_rtt
	[ -x "$rtt" ] && echo "  (cores 0 and 1 $1 $c: a cache line's round trip $("$rtt" 2>/dev/null || echo '?') ns)"
	return 0
}
for c in $CASES; do
	case $c in
	api_latency)
		"$(dirname "$SIM")/test/bench/api_bench" "$FABRIC" 20000 1000 host0.gpu0 host1.gpu0 || exit 1
		continue ;;
	serve_rate)
		IN=$OUT/none.txt; : >"$IN"
		base=$(seconds "$SIM" --serve "$FABRIC")
		IN=$OUT/now.txt; awk 'BEGIN { for (i = 0; i < 100000; i++) print "now" }' >"$IN"
		tn=$(seconds "$SIM" --serve "$FABRIC")
		IN=$OUT/post.txt
		awk 'BEGIN { for (i = 0; i < 20000; i++) { printf "post msg host0.gpu0 host1.gpu0 1000 %d %d\nnext\n", (i + 1) * 20000000, i } }' >"$IN"
		tp=$(seconds "$SIM" --serve "$FABRIC")
		awk -v b="$base" -v n="$tn" -v p="$tp" 'BEGIN {
			printf "serve_rate: %.0f now requests/s; %.0f requests/s as post msg + next pairs (%.0f messages/s); session start and close %.3f s\n",
			       100000 / (n - b), 40000 / (p - b), 20000 / (p - b), b }' 
		continue ;;
	esac
	base=${c%@*}
	launch=
	if [ "$base" != "$c" ]; then
		launch="${MPIRUN:-mpirun} -np ${c#*@}"
		cores_rtt before
	fi
	opts=
	case $base in
	hpcc_websearch* | fat_tree_moe) ini=$DIR/$base.ini ;;
	moe_1024_late) ini=$BENCH/moe_1024.ini; opts="--set job.moe.endpoint_delay=1us" ;;
	*) ini=$BENCH/$base.ini ;;
	esac
	r=1
	while [ "$r" -le "$RUNS" ]; do
		$launch "$SIM" -q -o "$OUT/$c.db" "$ini" $opts >"$OUT/$c.$r.txt" 2>"$OUT/$c.err" || {
			echo "$c: sim failed:"; cat "$OUT/$c.err"; exit 1; }
		rm -f "$OUT/$c.db"
		r=$((r + 1))
	done
	# One line per run: the figures, then the run's identity (what every
	# run must share).
	for f in "$OUT/$c".[0-9]*.txt; do
		awk '
			/^flows/ { flows = $2 }
			/^simulated/ { sim = $2; wall = $5 }
			/^events/ { ev = $2; hops = $6 }
			/peak memory/ { mb = $(NF - 1) }
			/^bench:/ { hosts = $3 + 0; cpu = $5; evhop = $8; gsub(/,/, "", evhop); peak = $13; bpk = $15 }
			END { print cpu, wall, mb, flows, sim, ev, hops, evhop, hosts, bpk, peak }' "$f"
	done >"$OUT/$c.runs"
	awk -v name="$c" '
		{ id = $4 " " $5 " " $6 " " $7
		  if (NR == 1) first = id
		  else if (id != first) { bad = 1 }
		  cpu[NR] = $1; wall[NR] = $2; mb[NR] = $3; line[NR] = $0 }
		END {
			if (bad) { print name ": runs disagree (flows, simulated time, events or packet-hops): not deterministic"; exit 1 }
			n = NR
			# the median run by CPU time (the lower middle for an even count)
			for (i = 1; i <= n; i++) order[i] = i
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && cpu[order[j]] < cpu[order[j - 1]]; j--) { t = order[j]; order[j] = order[j - 1]; order[j - 1] = t }
			m = order[int((n + 1) / 2)]
			wmin = wall[1]; mbmax = mb[1]
			for (i = 2; i <= n; i++) { if (wall[i] < wmin) wmin = wall[i]; if (mb[i] > mbmax) mbmax = mb[i] }
			split(line[m], f, " ")
			c = f[1] > 0 ? f[1] : 1e-9
			printf "%-21s %13s %11.6f ms %11d %11d %6.3f %8.2f %8.2f %6.2f %7.2f %7.1f %8.1f %7d %5d %9d %8.2f %4d\n",
			       name, f[4], f[5], f[6], f[7], f[8], f[2], f[1], f[6] / c / 1e6, f[7] / c / 1e6,
			       mbmax, mbmax * 1024 / f[9], f[10], f[9], f[11], wmin, n
		}' "$OUT/$c.runs" || exit 1
	if [ -n "$launch" ]; then cores_rtt after; fi
done
