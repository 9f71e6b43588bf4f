#!/bin/sh
# check_scale.sh — `sim --check` on large fat trees: it completes, exits 0
# and reports the fabric it built with the closed-form counts of a k-ary
# fat tree (Al-Fares et al., SIGCOMM 2008): k^3/4 hosts, 5k^2/4 switches
# (k^2 edge and aggregation, k^2/4 core) and 3k^3/4 links (host, edge-
# aggregation and aggregation-core links, k^3/4 each). k = 32 is 8,192
# hosts; building it takes about 0.15 s with -O2 and 2 s under ASan
# (routing is per destination switch: docs/protocol.md "ECMP"). With the
# per-host tables of before, it took 0.36 s and k = 64 took 26 s.
#
# Run by `make check` with SIM set. POSIX sh only.

set -u
SIM=${SIM:-./sim}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
if [ ! -x "$SIM" ]; then
	echo "check_scale.sh: SKIP: $SIM is not built"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-check-scale.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
fails=0

for k in 8 32; do
	# the benchmark scenario k16_websearch.ini with this k
	sed "s/^k = 16$/k = $k/" "$SRCDIR/test/bench/k16_websearch.ini" >"$tmp/k$k.ini"
	"$SIM" --check "$tmp/k$k.ini" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "FAIL: k=$k: exit status $rc: $(cat "$tmp/err")"
		fails=$((fails + 1))
		continue
	fi
	want="hosts $((k * k * k / 4)), switches $((5 * k * k / 4)), links $((3 * k * k * k / 4))"
	if grep -q "k$k.ini: $want\$" "$tmp/out"; then
		echo "ok: k=$k: $want"
	else
		echo "FAIL: k=$k: expected '$want' in:"
		cat "$tmp/out"
		fails=$((fails + 1))
	fi
done
[ "$fails" -eq 0 ] || { echo "check_scale.sh: $fails failure(s)"; exit 1; }
