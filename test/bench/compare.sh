#!/bin/sh
# compare.sh: is binary B faster than binary A on a scenario? On a shared
# machine whose speed drifts by tens of percent from minute to minute, a
# single timing of each says little; this runs A and B in turn on one core
# (taskset, when there is one), N times each, so that every B run has an A
# run beside it in time (every other pair runs B first, so that a steady
# drift of the machine's speed cancels instead of favouring one), and
# prints each pair's loop seconds (sim's summary), the minimum and median
# of each, and the mean of the per-pair ratios B/A with twice its standard
# error. A ratio whose interval holds 1 is no measured difference; on the
# project's VM one pair's ratio spreads by about 8% (RESULTS.md), so a
# difference of a few per cent needs tens of pairs.
#
# Usage: compare.sh [-n N] SIM_A SIM_B SCENARIO [sim options...]
#   e.g. test/bench/compare.sh -n 8 /tmp/old/sim ./sim scenarios/hpcc_websearch.ini
set -eu
N=5
if [ "${1:-}" = -n ]; then
	N=$2
	shift 2
fi
[ $# -ge 3 ] || {
	echo "usage: compare.sh [-n N] SIM_A SIM_B SCENARIO [sim options...]" >&2
	exit 2
}
A=$1
B=$2
shift 2
PIN=
if command -v taskset >/dev/null 2>&1 && taskset -c 1 true 2>/dev/null; then
	PIN="taskset -c 1"
fi
DB=$(mktemp)
PAIRS=$(mktemp)
trap 'rm -f "$DB" "$PAIRS"' EXIT
# Loop seconds of one run of SIM ("simulated ... in S s wall").
loop_s() {
	sim=$1
	shift
	out=$($PIN "$sim" -q -o "$DB" "$@") || { echo "compare.sh: $sim failed" >&2; exit 1; }
	s=$(printf '%s\n' "$out" | awk '/^simulated/ { print $(NF - 2) }')
	[ -n "$s" ] || { echo "compare.sh: $sim printed no summary" >&2; exit 1; }
	echo "$s"
}
i=0
while [ $i -lt "$N" ]; do
	if [ $((i % 2)) -eq 0 ]; then
		a=$(loop_s "$A" "$@")
		b=$(loop_s "$B" "$@")
	else # B first: a drift within the pairs does not favour either
		b=$(loop_s "$B" "$@")
		a=$(loop_s "$A" "$@")
	fi
	echo "$a $b" >>"$PAIRS"
	i=$((i + 1))
done
awk -v a="$A" -v b="$B" '
	{ ta[NR] = $1; tb[NR] = $2; r[NR] = $2 / $1; sum += r[NR]; printf "pair %2d  A %7.3f s  B %7.3f s  B/A %.3f\n", NR, $1, $2, r[NR] }
	function sorted_at(v, n, k,    i, j, t, w) {
		for (i = 1; i <= n; i++) w[i] = v[i]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && w[j - 1] > w[j]; j--) { t = w[j]; w[j] = w[j - 1]; w[j - 1] = t }
		return w[k]
	}
	END {
		n = NR
		mean = sum / n
		for (i = 1; i <= n; i++) ss += (r[i] - mean) ^ 2
		se = n > 1 ? sqrt(ss / (n - 1) / n) : 0
		m = int((n + 1) / 2)
		printf "A %s: min %.3f s, median %.3f s\n", a, sorted_at(ta, n, 1), sorted_at(ta, n, m)
		printf "B %s: min %.3f s, median %.3f s\n", b, sorted_at(tb, n, 1), sorted_at(tb, n, m)
		printf "B/A: %.3f +- %.3f (mean of %d paired ratios, 2 standard errors)\n", mean, 2 * se, n
	}' "$PAIRS"
