#!/bin/sh
# sweep.sh — `sim --sweep` end to end (docs/sweeps.md).
#
#   - A 2x2 sweep of the 15-to-1 incast (nic.cc x traffic.incast.size): four
#     run rows, run_id k for the k-th point in nested-loop order, run.sweep
#     naming the point's values; the incast's bytes per point are the closed
#     form 15 x size; every table of each point equals, row for row, a plain
#     `sim --set ...` run of the same point (run_id aside), and -j 2 writes
#     the same tables as -j 1.
#   - --fct and --pcap in a sweep: each point's file named .point-K, equal
#     to a plain run's, its captures in point-K.
#   - Refusals before anything runs: a bad value in the last point (the
#     loader's located message, did-you-mean) and a point only the built
#     world refuses (an unknown host): exit 2, no database, no temporary
#     file or folder, an existing database at the target untouched; a sim
#     built without MPI under mpirun (test/sweep_mpi.sh runs the sweep on
#     MPI ranks).
#   - The worst point's exit status: a PFC deadlock in one point (status
#     'deadlock', exit 3) beside a lossy point that runs to its stop, with
#     --append: the points' run_ids follow the run already there.
#   - SIGINT while the second of three points runs: the first point kept
#     ('stopped' by its short [simulation] stop), the second 'interrupted'
#     with its finished flows, the third never started (no row), exit 0 as
#     a plain interrupted run, a whole database, nothing temporary left.
#   - analysis/report on a sweep database: one line per point, labelled;
#     analysis/compare labels the points by their swept values.
#
# Run by `make check` with SIM and SRCDIR set. POSIX sh.
set -u
SIM=${SIM:-./sim}
SRCDIR=${SRCDIR:-.}
command -v sqlite3 >/dev/null || { echo "sweep.sh: SKIP: sqlite3 not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-sweep.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
incast=$SRCDIR/scenarios/incast.ini

# dump DB RUN_ID: every table's rows of that run, run_id left out, rows in
# the order of all their columns; run: the columns a rerun reproduces.
dump() {
	runcols="config, seed, sim_end_ps, events, packets_sent, packets_delivered, packets_dropped, status"
	# one query writes a SELECT per table, a second sqlite3 runs them all
	sqlite3 "$1" "SELECT 'SELECT ''== ' || m.name || ''';' || char(10) || 'SELECT ' || c.cols || ' FROM ' ||
	                     m.name || ' WHERE run_id = $2 ORDER BY ' || c.cols || ';'
	                FROM sqlite_master m JOIN
	                     (SELECT name AS t, CASE WHEN name = 'run' THEN '$runcols' ELSE
	                             (SELECT group_concat(p.name, ', ') FROM pragma_table_info(x.name) p WHERE p.name != 'run_id')
	                             END AS cols FROM sqlite_master x WHERE type = 'table') c ON c.t = m.name
	               WHERE m.type = 'table' ORDER BY m.name" | sqlite3 "$1"
}
# nothing_left DIR WHAT: no temporary database or work folder in DIR
nothing_left() {
	left=$(ls "$1" | grep -E '\.tmp-|\.sweep-')
	[ -z "$left" ] || fail "$2: left behind: $left"
}

# ---- a 2x2 sweep: rows, labels, closed form, equal to plain runs, -j
mkdir "$tmp/a"
"$SIM" "$incast" --sweep nic.cc=none,dcqcn --sweep traffic.incast.size=100KB,1MB -o "$tmp/a/j1.db" \
	>"$tmp/j1.out" 2>"$tmp/j1.err" || fail "2x2 -j 1: exit $? ($(cat "$tmp/j1.err"))"
"$SIM" "$incast" --sweep nic.cc=none,dcqcn --sweep traffic.incast.size=100KB,1MB -j 2 -o "$tmp/a/j2.db" \
	>"$tmp/j2.out" 2>"$tmp/j2.err" || fail "2x2 -j 2: exit $? ($(cat "$tmp/j2.err"))"
nothing_left "$tmp/a" "2x2"
db=$tmp/a/j1.db
got=$(sqlite3 "$db" "SELECT group_concat(run_id || '|' || sweep || '|' || status, ';') FROM (SELECT * FROM run ORDER BY run_id)")
want="1|nic.cc=none traffic.incast.size=100KB|complete;2|nic.cc=none traffic.incast.size=1MB|complete"
want="$want;3|nic.cc=dcqcn traffic.incast.size=100KB|complete;4|nic.cc=dcqcn traffic.incast.size=1MB|complete"
[ "$got" = "$want" ] || fail "2x2 run rows: got '$got', want '$want'"
# 15 senders of `size` each: 15 x 100 KB and 15 x 1 MB (sizes are powers of 1000).
got=$(sqlite3 "$db" "SELECT group_concat(b, ' ') FROM (SELECT run_id, sum(size_bytes) AS b FROM flow GROUP BY run_id ORDER BY run_id)")
[ "$got" = "1500000 15000000 1500000 15000000" ] || fail "2x2 bytes per point: $got"
# The resolved config of each point holds its values.
[ "$(sqlite3 "$db" "SELECT count(*) FROM run WHERE instr(config, 'cc = ' || substr(sweep, 8, instr(sweep, ' ') - 8)) > 0")" = 4 ] ||
	fail "2x2: a run's config does not hold its nic.cc"
k=1
for cc in none dcqcn; do
	for size in 100KB 1MB; do
		"$SIM" -q "$incast" --set nic.cc=$cc --set traffic.incast.size=$size -o "$tmp/plain$k.db" \
			>/dev/null 2>"$tmp/plain.err" || fail "plain run $cc $size: $(cat "$tmp/plain.err")"
		dump "$tmp/plain$k.db" 1 >"$tmp/plain$k.txt"
		dump "$db" $k >"$tmp/j1_$k.txt"
		dump "$tmp/a/j2.db" $k >"$tmp/j2_$k.txt"
		[ "$(grep -c . "$tmp/plain$k.txt")" -gt 100 ] || fail "point $k: the dump is too short to compare"
		cmp -s "$tmp/plain$k.txt" "$tmp/j1_$k.txt" ||
			fail "point $k ($cc $size): tables differ from a plain run: $(diff "$tmp/plain$k.txt" "$tmp/j1_$k.txt" | head -5)"
		cmp -s "$tmp/j1_$k.txt" "$tmp/j2_$k.txt" ||
			fail "point $k ($cc $size): -j 2 differs from -j 1: $(diff "$tmp/j1_$k.txt" "$tmp/j2_$k.txt" | head -5)"
		k=$((k + 1))
	done
done
# The two controllers must differ, or the comparison above shows nothing.
cmp -s "$tmp/j1_2.txt" "$tmp/j1_4.txt" && fail "nic.cc=none and dcqcn gave the same tables"
[ "$(grep -c '^sweep: point [1-4]/4 .*: complete, exit 0' "$tmp/j1.out")" = 4 ] ||
	fail "2x2: not one progress line per point: $(cat "$tmp/j1.out")"
grep -Eq '^ +4/4 +4 +complete +0 .*dcqcn +1MB$' "$tmp/j1.out" || fail "2x2: summary row of point 4: $(cat "$tmp/j1.out")"

# ---- --fct with captures: each point's fct.txt at FILE's name with
# .point-K, equal to a plain run's --fct of that point
mkdir "$tmp/f"
"$SIM" "$incast" --sweep nic.cc=none,dcqcn --fct "$tmp/f/fct.txt" --pcap "$tmp/f/cap" -o "$tmp/f/s.db" -j 2 \
	>/dev/null 2>"$tmp/f.err" || fail "--fct sweep: exit $? ($(cat "$tmp/f.err"))"
k=0
for cc in none dcqcn; do
	k=$((k + 1))
	"$SIM" -q "$incast" --set nic.cc=$cc --fct "$tmp/f/plain.txt" -o "$tmp/f/plain.db" >/dev/null 2>&1
	if [ "$(wc -l <"$tmp/f/fct.point-$k.txt")" -eq 15 ] && cmp -s "$tmp/f/plain.txt" "$tmp/f/fct.point-$k.txt" &&
	   [ -s "$tmp/f/cap/point-$k/host0-p0.pcap" ]; then
		echo "ok --fct sweep point $k: the plain run's fct.txt (15 flows), captures beside"
	else
		fail "--fct sweep point $k: $(ls "$tmp/f" "$tmp/f/cap" 2>&1 | tr '\n' ' ')"
	fi
done

# ---- refusals before anything runs
mkdir "$tmp/r"
cp "$tmp/plain1.db" "$tmp/r/keep.db"
before=$(cksum <"$tmp/r/keep.db")
launcher=
refuse() { # WHAT FRAGMENT ARGS...
	what=$1 frag=$2
	shift 2
	# shellcheck disable=SC2086 # $launcher: variables for env, or none
	env $launcher "$SIM" "$incast" "$@" >"$tmp/r.out" 2>"$tmp/r.err"
	rc=$?
	[ $rc = 2 ] || fail "$what: exit $rc, expected 2 ($(cat "$tmp/r.err"))"
	grep -Fq -- "$frag" "$tmp/r.err" || fail "$what: no '$frag' in: $(cat "$tmp/r.err")"
	[ "$(ls "$tmp/r")" = keep.db ] || fail "$what: wrote $(ls "$tmp/r")"
	[ "$(cksum <"$tmp/r/keep.db")" = "$before" ] || fail "$what: the existing database changed"
	grep -q 'point 1/' "$tmp/r.out" && fail "$what: a point ran: $(cat "$tmp/r.out")"
}
refuse "bad value in the last point" "sweep point 3/3 (traffic.incast.size=1XB)" \
	--sweep traffic.incast.size=100KB,1MB,1XB -o "$tmp/r/new.db"
refuse "bad key" "unknown key 'sise' (did you mean 'size'?)" --sweep traffic.incast.sise=1MB -o "$tmp/r/new.db"
refuse "bad value, existing target" "sweep point 3/3" --sweep nic.cc=none,dcqcn,dcqnc -o "$tmp/r/keep.db"
grep -q "did you mean 'dcqcn'" "$tmp/r.err" || fail "bad value: no suggestion: $(cat "$tmp/r.err")"
refuse "unknown host in the last points" "sweep point 3/4 (traffic.incast.receiver=host99 traffic.incast.size=100KB)" \
	--sweep traffic.incast.receiver=host0,host99 --sweep traffic.incast.size=100KB,1MB -o "$tmp/r/keep.db"
grep -Fq "unknown host 'host99'" "$tmp/r.err" || fail "unknown host: not the check's message: $(cat "$tmp/r.err")"
refuse "empty value" "value 2 is empty" --sweep nic.cc=none,,dcqcn -o "$tmp/r/new.db"
# A sim built without MPI started by mpirun on two ranks (its launcher's
# variables stand in for it) refuses rather than run the sweep twice; with
# MPI, test/sweep_mpi.sh spreads the points over the ranks.
if [ -z "${MPIRUN:-}" ]; then
	launcher="OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0"
	refuse "under mpirun without MPI" "this sim was built without MPI" --sweep nic.cc=none,dcqcn -o "$tmp/r/new.db"
	launcher=
fi

# ---- the worst point's exit status, appended to a database with a run
cp "$tmp/plain1.db" "$tmp/dl.db"
"$SIM" "$SRCDIR/scenarios/pfc_deadlock.ini" --set simulation.stop=3ms --sweep switch.pfc=on,off -j 2 --append \
	-o "$tmp/dl.db" >"$tmp/dl.out" 2>"$tmp/dl.err"
rc=$?
[ $rc = 3 ] || fail "deadlock point: exit $rc, expected 3 ($(cat "$tmp/dl.err"))"
got=$(sqlite3 "$tmp/dl.db" "SELECT group_concat(run_id || '|' || coalesce(sweep, '-') || '|' || status, ';') FROM (SELECT * FROM run ORDER BY run_id)")
[ "$got" = "1|-|complete;2|switch.pfc=on|deadlock;3|switch.pfc=off|stopped" ] || fail "deadlock sweep rows (--append): $got"
[ "$(sqlite3 "$tmp/dl.db" "SELECT count(*) FROM deadlock WHERE run_id = 2") " != "0 " ] || fail "deadlock point: no cycle rows"
[ "$(sqlite3 "$tmp/dl.db" "SELECT count(*) FROM flow WHERE run_id = 1")" = 15 ] || fail "--append: the first run's flows changed"

# ---- SIGINT during the second of three points
mkdir "$tmp/i"
db=$tmp/i/int.db
: >"$tmp/int.out"
"$SIM" "$SRCDIR/scenarios/websearch.ini" --set topology.k=4 --set traffic.ws.stop=1s \
	--sweep simulation.stop=50us,1s,1s -o "$db" >"$tmp/int.out" 2>"$tmp/int.err" &
pid=$!
n=0
while ! grep -q 'point 1/3' "$tmp/int.out" && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
sleep 1
kill -INT $pid
wait $pid
rc=$?
[ $rc = 0 ] || fail "SIGINT: exit $rc ($(cat "$tmp/int.err"))"
got=$(sqlite3 "$db" "SELECT group_concat(run_id || '|' || sweep || '|' || status, ';') FROM (SELECT * FROM run ORDER BY run_id)")
[ "$got" = "1|simulation.stop=50us|stopped;2|simulation.stop=1s|interrupted" ] || fail "SIGINT rows: $got"
[ "$(sqlite3 "$db" "SELECT count(*) > 0 FROM flow WHERE run_id = 2 AND end_ps IS NOT NULL")" = 1 ] ||
	fail "SIGINT: the interrupted point kept no finished flow"
[ "$(sqlite3 "$db" "PRAGMA integrity_check")" = ok ] || fail "SIGINT: database not whole"
grep -Eq '^ +3/3 +- +not run' "$tmp/int.out" || fail "SIGINT: summary does not show point 3 not run: $(cat "$tmp/int.out")"
nothing_left "$tmp/i" "SIGINT"

# ---- the report compares the points
if command -v gnuplot >/dev/null; then
	"$SRCDIR/analysis/report" "$tmp/a/j1.db" "$tmp/plots" >"$tmp/rep.out" 2>"$tmp/rep.err" ||
		fail "report: exit $? ($(cat "$tmp/rep.err"))"
	grep -q 'sweep of 4 points' "$tmp/rep.out" || fail "report: no sweep table: $(head -5 "$tmp/rep.out")"
	for k in 1 2 3 4; do
		label=$(sqlite3 "$tmp/a/j1.db" "SELECT sweep FROM run WHERE run_id = $k")
		# The flows column: finished/all network flows of the point.
		want=$(sqlite3 "$tmp/a/j1.db" "SELECT count(end_ps) || '/' || count(*) FROM flow WHERE run_id = $k")
		grep -Eq "^ +$k +$label +complete +$want " "$tmp/rep.out" || fail "report: no line for point $k ($label, $want)"
	done
	# compare labels a sweep's runs by their swept values
	"$SRCDIR/analysis/compare" "$tmp/a/j1.db" -o "$tmp/cplots" >"$tmp/cmp.out" 2>"$tmp/cmp.err" ||
		fail "compare: exit $? ($(cat "$tmp/cmp.err"))"
	[ "$(grep -Ec '^nic\.cc=(none|dcqcn) traffic\.incast\.size=(100KB|1MB) +complete +15/15 ' "$tmp/cmp.out")" = 4 ] ||
		fail "compare: not one line per point labelled by its values: $(cat "$tmp/cmp.out")"
fi

[ $fails = 0 ] && echo "sweep.sh: all passed"
exit $((fails > 0))
