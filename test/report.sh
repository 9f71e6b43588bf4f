#!/bin/sh
# report.sh — analysis/report on small databases: the hand-made fixture
# (test/views_fixture.sql, every table filled, so every plot is drawn) and
# an incast with PFC written by `sim`; one database and two side by side;
# a database written before flow.transport, the iteration breakdown's
# columns and compute_span.
# Checks the plots exist and are whole PNGs of the size asked for, the
# summary shows the fixture's hand-worked numbers, a plot with no data is
# skipped with the reason, the databases are left untouched, and bad input
# (a missing file, a file that is not SQLite, a database that is not ours)
# exits 2 with a clear message and writes nothing.
#
# Run by `make check` with SIM, SRCDIR and BUILDDIR set. POSIX sh.
set -u
SIM=${SIM:-./sim}
SRCDIR=${SRCDIR:-.}
REPORT=$(cd "$SRCDIR" && pwd)/analysis/report
for t in sqlite3 gnuplot od; do
	command -v $t >/dev/null || { echo "report.sh: SKIP: $t not installed"; exit 77; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-report-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# png FILE WIDTH HEIGHT: the PNG signature, an IHDR of that size first and
# an IEND chunk last (a whole file, not one cut short).
png() {
	[ -s "$1" ] || { fail "$1 missing or empty"; return; }
	head=$(od -An -tx1 -N24 "$1" | tr -d ' \n')
	want=89504e470d0a1a0a0000000d49484452$(printf '%08x%08x' "$2" "$3")
	[ "$head" = "$want" ] || fail "$1: not a ${2}x$3 PNG (starts $head)"
	tail=$(tail -c 12 "$1" | od -An -tx1 | tr -d ' \n')
	[ "$tail" = 0000000049454e44ae426082 ] || fail "$1: no IEND chunk at the end ($tail)"
}
# has FILE PATTERN WHAT: the file has a line matching the extended regex
has() { grep -Eq "$2" "$1" || fail "$3: no line matching '$2' in $(cat "$1")"; }

fixture=$tmp/fixture.db
cat "$SRCDIR/analysis/schema.sql" "$SRCDIR/analysis/views.sql" "$SRCDIR/test/views_fixture.sql" |
	sqlite3 -bail "$fixture" || fail "the fixture database does not load"
sum_before=$(cksum <"$fixture")

# One database, every table filled: all six plots, at their sizes.
"$REPORT" "$fixture" "$tmp/out1" >"$tmp/out1.txt" 2>"$tmp/err1" || fail "report fixture: exit $? $(cat "$tmp/err1")"
png "$tmp/out1/slowdown_cdf.png" 1000 600
png "$tmp/out1/slowdown_vs_size.png" 1000 600
png "$tmp/out1/iteration_timeline.png" 1400 500
png "$tmp/out1/compute_timeline.png" 1400 500
png "$tmp/out1/iteration_breakdown.png" 1000 600
png "$tmp/out1/pfc_timeline.png" 1200 450
png "$tmp/out1/queue_depth.png" 1200 450
png "$tmp/out1/link_util.png" 1200 450
# The summary carries the closed forms of test/views.sh: all-flow nearest-rank
# percentiles 46/95/99 of 109 flows (1 unfinished), the 16-rank allreduce's
# busbw 18.75 GB/s, 4 pause intervals with sw0:2 paused 154.2 us (94.5% of
# 163.2 us), sw0:3 the most congested port at 50% utilisation.
has "$tmp/out1.txt" '^ +network +all +109 +1 +46\.00 +95\.00 +99\.00 +100\.00' "summary percentiles"
# NVLink apart: its 4 messages' slowdowns 10..40 (p50 rank 2, p95 and p99 rank 4)
has "$tmp/out1.txt" '^ +nvlink +100KB-1MB +4 +0 +20\.00 +40\.00 +40\.00 +40\.00' "summary NVLink percentiles"
has "$tmp/out1.txt" '^ +tp +nvlink +4 +0\.002 ' "summary bytes by transport"
has "$tmp/out1.txt" '^ +j +dp +allreduce +ring +16 +1 +1000\.0 +100000\.0 +18\.75 +2\.00' "summary busbw"
has "$tmp/out1.txt" '^PFC: 4 pause intervals' "summary PFC count"
has "$tmp/out1.txt" '^failures: 2 ' "summary failure count"
has "$tmp/out1.txt" '^ +1 +link +sw0 - host1 +10\.0 +30\.0 +50 +4 +1 +1 *$' "summary failure touched"
has "$tmp/out1.txt" '^ +2 +switch +sw0 +100\.0 +never +7 +0 +0 +0 *$' "summary failure for good"
has "$tmp/out1.txt" '^ +sw0 +2 +3 +1 +154\.2 +94\.5%' "summary pause time"
grep -A3 '^PFC:' "$tmp/out1.txt" | tail -1 | grep -Eq '^ +sw0 +2 ' || fail "summary: the longest pause is not listed first"
has "$tmp/out1.txt" '^ +1 +sw0 +3 +host3 +900000 +40 +0 +0\.0 +50\.0%' "summary congested ports"
# iteration 0: 10 ms = 4 compute + 1 bubble + 1 tp + 1.5 pp + 0.5 dp + 1.5 ep
# + 0.5 cp, no straggler (slow 0, no critical GPU), 0 other, GPU 0's
# communication 8 ms, exposed 5/10
has "$tmp/out1.txt" '^ +j +0 +10\.000 +4\.000 +1\.000 +1\.000 +1\.500 +0\.500 +1\.500 +0\.500 +0\.000 +- +0\.000 +8\.000 +50\.0%' "summary iteration"
[ "$(cksum <"$fixture")" = "$sum_before" ] || fail "the report changed the database"

if [ -x "$SIM" ]; then
	# A database written by sim: no jobs, no samples (skipped, saying which
	# table is empty and what turns it on); the default OUTDIR is ./plots.
	incast=$tmp/incast.db
	"$SIM" -q -o "$incast" "$SRCDIR/scenarios/incast_pfc.ini" >/dev/null 2>"$tmp/err" || fail "sim incast_pfc: exit $? $(cat "$tmp/err")"
	(cd "$tmp" && "$REPORT" "$incast") >"$tmp/out2.txt" 2>"$tmp/err2" || fail "report incast: exit $? $(cat "$tmp/err2")"
	png "$tmp/plots/slowdown_cdf.png" 1000 600
	png "$tmp/plots/pfc_timeline.png" 1200 450
	[ ! -e "$tmp/plots/iteration_timeline.png" ] || fail "an iteration timeline drawn for a run without collectives"
	has "$tmp/out2.txt" '^ +iteration_timeline: no collective' "skipped timeline"
	has "$tmp/out2.txt" '^ +queue_depth: queue_sample is empty \(set \[output\] queue_sample_interval\)' "skipped queue depth"
	has "$tmp/out2.txt" '^ +link_util: link_sample is empty \(set \[output\] link_sample_interval\)' "skipped link utilisation"
	has "$tmp/out2.txt" '^flows 8 \(0 unfinished\)' "summary of a sim database"
	has "$tmp/out2.txt" '^ +compute_timeline: compute_span is empty \(no \[job\]\)' "skipped compute timeline"
	has "$tmp/out2.txt" '^ +iteration_breakdown: no finished iteration' "skipped breakdown"

	# Two databases: one panel each (stacked), or one line each.
	"$REPORT" "$fixture" "$incast" "$tmp/out3" >"$tmp/out3.txt" 2>"$tmp/err3" || fail "report two: exit $? $(cat "$tmp/err3")"
	png "$tmp/out3/slowdown_cdf.png" 1000 600
	png "$tmp/out3/iteration_timeline.png" 1400 1000
	png "$tmp/out3/compute_timeline.png" 1400 1000
	png "$tmp/out3/pfc_timeline.png" 1200 900
	png "$tmp/out3/queue_depth.png" 1200 900
	[ "$(grep -c '^== ' "$tmp/out3.txt")" = 2 ] || fail "two databases: not two summaries"
	# DB2 OUTDIR told apart by the .db suffix of the second argument
	rm -rf "$tmp/plots"
	(cd "$tmp" && "$REPORT" "$fixture" "$incast" >/dev/null 2>&1) && [ -f "$incast" ] && [ -s "$tmp/plots/iteration_timeline.png" ] ||
		fail "second .db taken for an output folder"
else
	echo "report.sh: $SIM not built: report on a sim database not checked"
fi

# A database of an older rocesim: no flow.transport (its messages without a
# queue pair rode NVLink), no breakdown columns (no slow_ps, critical_gpu),
# no compute_span. The report
# still reads it, read-only: the same network figures, the breakdown's
# missing parts shown as '-'.
old=$tmp/old.db
cat "$SRCDIR/analysis/schema.sql" "$SRCDIR/test/views_fixture.sql" | sqlite3 -bail "$old" &&
	sqlite3 -bail "$old" "UPDATE flow SET qpn = 1 WHERE transport = 'network'; ALTER TABLE flow DROP COLUMN transport;
	                      ALTER TABLE iteration DROP COLUMN bubble_ps; ALTER TABLE iteration DROP COLUMN exposed_tp_ps;
	                      ALTER TABLE iteration DROP COLUMN exposed_pp_ps; ALTER TABLE iteration DROP COLUMN exposed_dp_ps;
	                      ALTER TABLE iteration DROP COLUMN exposed_ep_ps; ALTER TABLE iteration DROP COLUMN exposed_cp_ps;
	                      ALTER TABLE iteration DROP COLUMN slow_ps; ALTER TABLE iteration DROP COLUMN critical_gpu;
	                      DROP TABLE compute_span;" ||
	fail "the old database does not load"
sum_old=$(cksum <"$old")
"$REPORT" "$old" "$tmp/out4" >"$tmp/out4.txt" 2>"$tmp/err4" || fail "report old database: exit $? $(cat "$tmp/err4")"
has "$tmp/out4.txt" '^ +network +all +109 +1 +46\.00 +95\.00 +99\.00 +100\.00' "old database: network percentiles"
has "$tmp/out4.txt" '^ +nvlink +100KB-1MB +4 +0 +20\.00 ' "old database: NVLink from the queue pair"
has "$tmp/out4.txt" '^ +j +0 +10\.000 +4\.000 +- +- +- +- +- +- +0\.000 +- +1\.000 +8\.000 +50\.0%' "old database: iteration"
has "$tmp/out4.txt" '^ +compute_timeline: compute_span is empty' "old database: no compute spans"
[ "$(cksum <"$old")" = "$sum_old" ] || fail "the report changed the old database"

# Jobs side by side with --solo: the fixture's job j has one finished
# iteration of 10 ms (8 ms of communication, 5 exposed); a copy whose
# iteration took 4 ms stands for its solo run, so j's slowdown is 2.5.
solo=$tmp/solo.db
cp "$fixture" "$solo"
sqlite3 "$solo" "UPDATE iteration SET end_ps = 4000000000 WHERE job = 'j' AND iteration = 0"
"$REPORT" --solo j="$solo" "$fixture" "$tmp/out5" >"$tmp/out5.txt" 2>"$tmp/err5" || fail "report --solo: exit $? $(cat "$tmp/err5")"
has "$tmp/out5.txt" '^jobs side by side' "jobs table"
has "$tmp/out5.txt" '^ +j +1 +1 +10\.000 +10\.000 +8\.000 +5\.000 +0\.004 +4\.000 +2\.500 *$' "jobs table with the solo slowdown"
"$REPORT" "$fixture" "$tmp/out6" >"$tmp/out6.txt" 2>/dev/null
has "$tmp/out6.txt" '^ +j +1 +1 +10\.000 +10\.000 +8\.000 +5\.000 +0\.004 +- +- *$' "jobs table without a solo run"

# Bad input: exit 2, one clear line naming the file, nothing written.
# bad NAME PATTERN ARGS...
bad() {
	name=$1 pattern=$2
	shift 2
	rm -rf "$tmp/bad"
	"$REPORT" "$@" >"$tmp/bad.out" 2>"$tmp/bad.err"
	st=$?
	[ "$st" = 2 ] || fail "$name: exit $st, want 2"
	grep -Eq "$pattern" "$tmp/bad.err" || fail "$name: stderr '$(cat "$tmp/bad.err")' lacks '$pattern'"
	[ ! -e "$tmp/bad" ] || fail "$name: wrote $tmp/bad"
}
bad "missing file" "report: $tmp/none.db: no such file" "$tmp/none.db" "$tmp/bad"
echo "flow,src,dst" >"$tmp/flows.csv"
bad "not SQLite" "report: $tmp/flows.csv: not a rocesim result database \(SQLite says: .*not a database" "$tmp/flows.csv" "$tmp/bad"
sqlite3 "$tmp/other.db" "CREATE TABLE run (id INTEGER); CREATE TABLE flow (x)"
bad "another database" "report: $tmp/other.db: not a rocesim result database \(it has no 'run' table with columns run_id" "$tmp/other.db" "$tmp/bad"
: >"$tmp/empty.db"
bad "empty file" "not a rocesim result database" "$tmp/empty.db" "$tmp/bad"
cat "$SRCDIR/analysis/schema.sql" | sqlite3 "$tmp/norun.db"
bad "no run" "norun.db: a rocesim result database with no run in it" "$tmp/norun.db" "$tmp/bad"
bad "bad second database" "report: $tmp/none2.db: no such file" "$fixture" "$tmp/none2.db" "$tmp/bad"
bad "unknown option" "report: unknown option '-x'" -x "$fixture"
bad "too many arguments" "expected 1 to 3 arguments, got 4" "$fixture" "$fixture" "$tmp/bad" extra
bad "no argument" "expected 1 to 3 arguments, got 0"
bad "--solo without =" "report: --solo 'j': expected JOB=SOLO_DB" --solo j "$fixture" "$tmp/bad"
bad "--solo missing file" "report: --solo j=$tmp/none.db: no such readable file" --solo "j=$tmp/none.db" "$fixture" "$tmp/bad"
noit=$tmp/noit.db
cp "$fixture" "$noit"
sqlite3 "$noit" "DELETE FROM iteration"
bad "--solo without the job" "report: --solo zz=.*: its last run has no finished iteration of job 'zz'" --solo "zz=$noit" "$fixture" "$tmp/bad"

echo "report.sh: $fails failed"
[ "$fails" = 0 ]
