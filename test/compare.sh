#!/bin/sh
# compare.sh — analysis/compare on runs written by `sim`: the same 15-to-1
# incast under four congestion controls, appended to one database, plus a
# second database. Checks each run is one line labelled by the key that
# differs (nic.cc=...), its figures equal the tables' (flows finished, ECN
# marks and PFC frames summed over the ports, p50 of the < 100 KB class by
# the nearest-rank rule computed here independently), the three plots are
# whole PNGs, and bad input exits 2.
#
# Run by `make check` with SIM and SRCDIR set. POSIX sh.
set -u
SIM=${SIM:-./sim}
SRCDIR=${SRCDIR:-.}
COMPARE=$(cd "$SRCDIR" && pwd)/analysis/compare
for t in sqlite3 gnuplot od; do
	command -v $t >/dev/null || { echo "compare.sh: SKIP: $t not installed"; exit 77; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-compare-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

db=$tmp/cc.db
for cc in dcqcn hpcc dctcp none; do
	"$SIM" -q "$SRCDIR/scenarios/incast.ini" --set nic.cc=$cc --set switch.ecn=on --append -o "$db" \
		>/dev/null 2>"$tmp/err" || fail "sim with cc=$cc: $(cat "$tmp/err")"
done
"$COMPARE" "$db" -o "$tmp/plots" >"$tmp/out" 2>"$tmp/err" || fail "compare failed: $(cat "$tmp/err")"
cat "$tmp/out"

r=1
for cc in dcqcn hpcc dctcp none; do
	line=$(grep "^nic.cc=$cc " "$tmp/out")
	[ -n "$line" ] || { fail "no line labelled nic.cc=$cc"; r=$((r + 1)); continue; }
	set -- $line
	# run status flows p50 p99 p50 p99 p50 p99 maxq ecn pauses paused
	want=$(sqlite3 "$db" "SELECT count(slowdown) || '/' || count(*) FROM flow WHERE run_id = $r")
	[ "$3" = "$want" ] || fail "cc=$cc: flows '$3', the table says $want"
	want=$(sqlite3 "$db" "SELECT sum(p.ecn_marked) FROM port_stats p JOIN node n ON n.run_id = p.run_id AND n.name = p.node
	                      WHERE p.run_id = $r AND n.kind = 'switch'")
	[ "${11}" = "$want" ] || fail "cc=$cc: ECN marks '${11}', the table says $want"
	want=$(sqlite3 "$db" "SELECT sum(pause_frames_tx) FROM port_stats WHERE run_id = $r")
	[ "${12}" = "$want" ] || fail "cc=$cc: PFC frames '${12}', the table says $want"
	# nearest rank: the ceil(n/2)-th smallest slowdown of the flows >= 1 MB
	n=$(sqlite3 "$db" "SELECT count(*) FROM flow WHERE run_id = $r AND size_bytes >= 1000000 AND slowdown IS NOT NULL")
	want=$(sqlite3 "$db" "SELECT printf('%.2f', slowdown) FROM flow WHERE run_id = $r AND size_bytes >= 1000000
	                      AND slowdown IS NOT NULL ORDER BY slowdown LIMIT 1 OFFSET $(((n + 1) / 2 - 1))")
	[ "$8" = "$want" ] || fail "cc=$cc: >=1MB p50 '$8', by hand $want"
	r=$((r + 1))
done
# Switching the controller changes the result: four distinct rows of figures.
distinct=$(grep "^nic.cc=" "$tmp/out" | awk "{ \$1 = \"\"; print }" | sort -u | wc -l)
[ "$distinct" = 4 ] || fail "the four controllers gave $distinct distinct result rows"

for p in compare_slowdown compare_queue compare_pfc; do
	f=$tmp/plots/$p.png
	[ -s "$f" ] || { fail "$p.png missing"; continue; }
	[ "$(od -An -tx1 -N8 "$f" | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$p.png is not a PNG"
	[ "$(tail -c 12 "$f" | od -An -tx1 | tr -d ' \n')" = 0000000049454e44ae426082 ] || fail "$p.png cut short"
done

# Bad input: exit 2, one line naming the file.
"$COMPARE" "$tmp/none.db" -o "$tmp/p2" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "none.db: no such readable file" "$tmp/err" || fail "missing file: $(cat "$tmp/err")"
echo "not sqlite" >"$tmp/bad.db"
"$COMPARE" "$tmp/bad.db" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "bad.db: not a rocesim result database" "$tmp/err" || fail "not SQLite: $(cat "$tmp/err")"

[ "$fails" = 0 ] || { echo "compare.sh: $fails failure(s)"; exit 1; }
echo "compare.sh: ok"
