#!/bin/sh
# speedup.sh: how much faster is a run on N MPI ranks than the sequential
# run, on this machine? Runs the sequential binary and `mpirun -np N` of it
# in turn, P pairs (every other pair parallel first, so a drift of the
# machine's speed cancels), and prints each pair's loop seconds (sim's
# summary: rank 0's loop under mpirun, which ends with the last rank's)
# and whole-process seconds, then the mean speedup (sequential / parallel)
# of each with twice its standard error, and the parallel run's per-rank
# figures (run_rank: events, windows, frames sent to other ranks, seconds
# busy and in exchanges) from its last pair.
#
# Each pair also says how far apart CPUs 0 and 1 were around its parallel
# run (a cache line's round trip, before/after, by test/bench/core_rtt:
# `make bench` builds it; CORE_RTT names another), since the frames that
# cross ranks cross between those cores: on a virtual machine the host may
# place its vCPUs near or far, and move them between runs (and during them:
# round trips that agree before and after do not prove the run stayed
# put). When they differ, the mean is also given over the pairs at the
# closest placement seen (both round trips within 1.5 times the session's
# smallest) and over the others.
#
# Usage: speedup.sh [-n P] [-r N] SIM SCENARIO [sim options...]
#   e.g. test/bench/speedup.sh -n 6 ./sim test/bench/k16_websearch.ini
set -eu
P=5
N=2
while [ $# -gt 0 ]; do
	case $1 in
	-n) P=$2; shift 2 ;;
	-r) N=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || { echo "usage: speedup.sh [-n P] [-r N] SIM SCENARIO [sim options...]" >&2; exit 2; }
SIM=$1
shift
MPIRUN=${MPIRUN:-mpirun}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
DB=$(mktemp -u)
PAIRS=$(mktemp)
trap 'rm -f "$DB" "$DB.seq" "$PAIRS"' EXIT
# "LOOP WHOLE" seconds of one run (the command given) into database $OUT.
run() {
	t0=$(date +%s.%N)
	rm -f "$OUT"
	out=$("$@" -q -o "$OUT" "$SCEN" $OPTS) || { echo "speedup.sh: $* failed" >&2; exit 1; }
	t1=$(date +%s.%N)
	loop=$(echo "$out" | awk '/^simulated/ { print $5 }')
	echo "$loop $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
}
SCEN=$1
shift
OPTS="$*"
RTT=${CORE_RTT:-$(dirname "$SIM")/test/bench/core_rtt}
# The cores' round trip in ns, or 0 when it cannot be measured.
rtt() {
	if [ -x "$RTT" ]; then "$RTT" 2>/dev/null || echo 0; else echo 0; fi
}
i=1
while [ $i -le "$P" ]; do
	r0=$(rtt)
	# the parallel run's database is kept (the last pair's run_rank is shown)
	if [ $((i % 2)) -eq 1 ]; then
		s=$(OUT=$DB.seq run "$SIM"); p=$(OUT=$DB run $MPIRUN -np "$N" "$SIM")
	else
		p=$(OUT=$DB run $MPIRUN -np "$N" "$SIM"); s=$(OUT=$DB.seq run "$SIM")
	fi
	r1=$(rtt)
	echo "$s $p $r0 $r1" | awk -v i=$i '{ printf "pair %d: sequential loop %.3f s (process %.3f s), %d ranks loop %.3f s (process %.3f s): %.3fx, %.3fx", i, $1, $2, '"$N"', $3, $4, $1 / $3, $2 / $4
		if ($5 > 0) printf "; cores round trip %d/%d ns", $5, $6
		printf "\n" }'
	echo "$s $p $r0 $r1" >>"$PAIRS"
	i=$((i + 1))
done
awk -v n="$N" '
	# mean and twice the standard error of the speedups of the pairs with sel[i]
	function stats(label, sel,   i, c, sa, sb, va, vb, ma, mb, ea, eb) {
		for (i = 1; i <= k; i++) if (sel[i]) { c++; sa += a[i]; sb += b[i] }
		if (!c) return
		ma = sa / c; mb = sb / c
		for (i = 1; i <= k; i++) if (sel[i]) { va += (a[i] - ma) ^ 2; vb += (b[i] - mb) ^ 2 }
		ea = c > 1 ? 2 * sqrt(va / (c - 1) / c) : 0; eb = c > 1 ? 2 * sqrt(vb / (c - 1) / c) : 0
		printf "speedup on %d ranks over %d pairs%s: loop %.3f +- %.3f, whole process %.3f +- %.3f\n", n, c, label, ma, ea, mb, eb
	}
	{ k++; a[k] = $1 / $3; b[k] = $2 / $4; r[k] = $5 > $6 ? $5 : $6
	  if ($5 > 0 && $6 > 0) { lo = $5 < $6 ? $5 : $6; if (!min || lo < min) min = lo } }
	END {
		for (i = 1; i <= k; i++) all[i] = 1
		stats("", all)
		if (!min) exit
		for (i = 1; i <= k; i++) { near[i] = r[i] > 0 && r[i] <= 1.5 * min; far[i] = !near[i]; nn += near[i] }
		if (nn == k || nn == 0) exit
		stats(sprintf(" with the cores near (round trip <= %d ns)", 1.5 * min), near)
		stats(" with the cores farther apart", far)
	}' "$PAIRS"
sqlite3 -header -column "$DB" "SELECT rank, events, windows, frames_out, round(busy_s, 3) AS busy_s,
	round(wait_s, 3) AS wait_s, round(trade_s, 3) AS trade_s, round(land_s, 3) AS land_s,
	round(1.0 * events / windows, 1) AS events_per_window FROM run_rank" 2>/dev/null || true
sqlite3 "$DB" "SELECT 'partition: ' || partition FROM run" 2>/dev/null || true
