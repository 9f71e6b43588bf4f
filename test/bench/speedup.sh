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
trap 'rm -f "$DB" "$PAIRS"' EXIT
# "LOOP WHOLE" seconds of one run (the command given).
run() {
	t0=$(date +%s.%N)
	out=$("$@" -q -o "$DB" "$SCEN" $OPTS) || { echo "speedup.sh: $* failed" >&2; exit 1; }
	t1=$(date +%s.%N)
	loop=$(echo "$out" | awk '/^simulated/ { print $5 }')
	echo "$loop $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
}
SCEN=$1
shift
OPTS="$*"
i=1
while [ $i -le "$P" ]; do
	if [ $((i % 2)) -eq 1 ]; then
		s=$(run "$SIM"); rm -f "$DB"; p=$(run $MPIRUN -np "$N" "$SIM")
	else
		p=$(run $MPIRUN -np "$N" "$SIM"); rm -f "$DB"; s=$(run "$SIM")
	fi
	[ $i -lt "$P" ] && rm -f "$DB"
	echo "$s $p" | awk -v i=$i '{ printf "pair %d: sequential loop %.3f s (process %.3f s), %d ranks loop %.3f s (process %.3f s): %.3fx, %.3fx\n", i, $1, $2, '"$N"', $3, $4, $1 / $3, $2 / $4 }'
	echo "$s $p" >>"$PAIRS"
	i=$((i + 1))
done
awk -v n="$N" '
	{ k++; a[k] = $1 / $3; b[k] = $2 / $4 }
	END {
		for (i = 1; i <= k; i++) { sa += a[i]; sb += b[i] }
		ma = sa / k; mb = sb / k
		for (i = 1; i <= k; i++) { va += (a[i] - ma) ^ 2; vb += (b[i] - mb) ^ 2 }
		ea = k > 1 ? 2 * sqrt(va / (k - 1) / k) : 0; eb = k > 1 ? 2 * sqrt(vb / (k - 1) / k) : 0
		printf "speedup on %d ranks over %d pairs: loop %.3f +- %.3f, whole process %.3f +- %.3f\n", n, k, ma, ea, mb, eb
	}' "$PAIRS"
sqlite3 -header -column "$DB" "SELECT rank, events, windows, frames_out, round(busy_s, 3) AS busy_s,
	round(sync_s, 3) AS sync_s, round(1.0 * events / windows, 1) AS events_per_window FROM run_rank" 2>/dev/null || true
sqlite3 "$DB" "SELECT 'partition: ' || partition FROM run" 2>/dev/null || true
rm -f "$DB"
