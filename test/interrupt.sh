#!/bin/sh
# interrupt.sh — stopping a long run from outside (issue 8, "Shutdown").
#
#   - SIGINT, then SIGTERM: the run finishes its current event, writes what it
#     has and says 'interrupted'; every flow the run reported finished is in
#     the database with consistent times, every unfinished one with NULL ends.
#   - A second signal kills at once (default action). Results are written to
#     a temporary file beside the target and renamed over it only when the run
#     ends, so the database at the target is still the previous one, whole
#     and readable; with --append, SQLite's own atomic commits keep every
#     earlier run and the committed batches of the killed one ('running').
#
#   - [simulation] stop reached with work left: 'stopped', the unfinished
#     iteration written with end_ps NULL, a warning saying what was left.
#
# Run by `make check` with SIM and SRCDIR set. POSIX sh.
set -u
SIM=${SIM:-./sim}
SRCDIR=${SRCDIR:-.}
command -v sqlite3 >/dev/null || { echo "interrupt.sh: SKIP: sqlite3 not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-int.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
q() { sqlite3 "$db" "$1"; }
check() { [ "$(q "$2")" = 1 ] || fail "$1 ($2 gave '$(q "$2" | head -3)')"; }
# A long run: 1 s of web-search load (many minutes of wall time).
long() { exec "$SIM" -o "$db" --set simulation.stop=1s --set traffic.ws.stop=1s --set simulation.progress=off \
	"$@" "$SRCDIR/scenarios/websearch.ini"; }

for sig in INT TERM; do
	db=$tmp/$sig.db
	long >"$tmp/$sig.out" 2>"$tmp/$sig.err" &
	pid=$!
	sleep 3
	kill -$sig $pid
	wait $pid
	rc=$?
	[ $rc = 0 ] || fail "SIG$sig: exit $rc ($(cat "$tmp/$sig.err"))"
	check "SIG$sig: status" "SELECT status = 'interrupted' FROM run"
	# "flows A/B finished": A rows with an end, B rows in all.
	done_n=$(sed -n 's#^flows \([0-9]*\)/\([0-9]*\) finished#\1#p' "$tmp/$sig.out")
	posted=$(sed -n 's#^flows \([0-9]*\)/\([0-9]*\) finished#\2#p' "$tmp/$sig.out")
	[ -n "$done_n" ] && [ "$done_n" -gt 0 ] || fail "SIG$sig: no flow finished before the signal ($(cat "$tmp/$sig.out"))"
	check "SIG$sig: every finished flow present" "SELECT count(*) = ${done_n:-0} FROM flow WHERE end_ps IS NOT NULL"
	check "SIG$sig: every posted flow present" "SELECT count(*) = ${posted:-0} AND count(DISTINCT flow_id) = count(*) FROM flow"
	check "SIG$sig: finished times consistent" "SELECT count(*) = 0 FROM flow WHERE end_ps IS NOT NULL AND
		(fct_ps != end_ps - start_ps OR recv_end_ps IS NULL OR recv_end_ps > end_ps OR recv_end_ps <= start_ps
		 OR end_ps > (SELECT sim_end_ps FROM run))"
	check "SIG$sig: unfinished flows have no end" "SELECT count(*) = 0 FROM flow WHERE end_ps IS NULL AND fct_ps IS NOT NULL"
	check "SIG$sig: conservation" "SELECT packets_sent >= packets_delivered + packets_dropped FROM run"
	check "SIG$sig: database whole" "SELECT count(*) = 1 FROM pragma_integrity_check WHERE integrity_check = 'ok'"
	ls "$tmp" | grep -q 'tmp-' && fail "SIG$sig: temporary database left behind"
done

# A second signal kills at once (default action). SIGINT then SIGTERM: two
# SIGINTs sent together may merge into one, two different signals do not,
# and the handler of the first restores the default action of both.
second() {
	sleep 3
	kill -INT $pid
	kill -TERM $pid
	wait $pid
	rc=$?
	[ $rc = 143 ] || fail "$1: second signal: exit $rc, expected 143 (killed by SIGTERM)"
}

# The target is still the previous database, whole; the partial temporary file
# is left beside it for inspection.
db=$tmp/twice.db
cp "$tmp/INT.db" "$db"
before=$(q "SELECT count(*) || ':' || status FROM flow, run")
long >/dev/null 2>"$tmp/twice.err" &
pid=$!
second fresh
check "fresh: database readable" "SELECT count(*) = 1 FROM pragma_integrity_check WHERE integrity_check = 'ok'"
[ "$(q "SELECT count(*) || ':' || status FROM flow, run")" = "$before" ] ||
	fail "fresh: previous database changed ($before -> $(q "SELECT count(*) || ':' || status FROM flow, run"))"
ls "$db".tmp-* >/dev/null 2>&1 || fail "fresh: no partial temporary file"
rm -f "$db".tmp-*

# --append writes in place with SQLite's atomic commits: earlier runs intact,
# the killed one readable as 'running' with its committed batches.
db=$tmp/append.db
cp "$tmp/INT.db" "$db"
long --append >/dev/null 2>"$tmp/append.err" &
pid=$!
second append
check "append: database readable" "SELECT count(*) = 1 FROM pragma_integrity_check WHERE integrity_check = 'ok'"
check "append: first run intact" "SELECT status = 'interrupted' FROM run WHERE run_id = 1"
check "append: killed run still 'running'" "SELECT status = 'running' FROM run WHERE run_id = 2"

# [simulation] stop before the work is done: run.status 'stopped' (not
# 'complete'), a warning saying what was left, the finished iteration's row
# and the one in progress with end_ps NULL. A small dense job (TP 2 x DP 4
# on 4 hosts of 2 GPUs) runs 2 iterations; the stop is put 1 ns after the
# first iteration's end, read from a full run of the same scenario.
cat >"$tmp/job.ini" <<'INI'
[topology]
type = leaf_spine
leaves = 2
spines = 2
hosts_per_leaf = 2
link_rate = 100Gbps
link_delay = 1us
gpus_per_host = 2
[job.gpt]
model = gpt3-175b
layers = 2
hidden = 1024
heads = 8
ffn_hidden = 4096
seq_len = 512
global_batch = 8
tp = 2
dp = 4
iterations = 2
INI
db=$tmp/full.db
"$SIM" -q -o "$db" "$tmp/job.ini" >/dev/null 2>"$tmp/full.err" || fail "job run: exit $?"
check "full run: complete" "SELECT status = 'complete' FROM run"
check "full run: two finished iterations" "SELECT count(*) = 2 FROM iteration WHERE end_ps IS NOT NULL"
end0=$(q "SELECT end_ps FROM iteration WHERE iteration = 0")
stop_ps=$((end0 + 1000))
db=$tmp/stop.db
"$SIM" -q -o "$db" --set simulation.stop=${stop_ps}ps "$tmp/job.ini" >/dev/null 2>"$tmp/stop.err" ||
	fail "stopped run: exit $?"
check "stop: status" "SELECT status = 'stopped' FROM run"
check "stop: ended at the stop time" "SELECT sim_end_ps = $stop_ps FROM run"
check "stop: first iteration as in the full run" "SELECT end_ps = $end0 FROM iteration WHERE iteration = 0"
check "stop: iteration in progress, end NULL" "SELECT count(*) = 1 AND min(start_ps) = $end0 AND max(end_ps) IS NULL
	AND min(compute_ps) <= $stop_ps - $end0 FROM iteration WHERE iteration = 1"
grep -q "warning: the run stopped at \[simulation\] stop = .* with work unfinished: job 'gpt' finished 1 of 2 iterations" \
	"$tmp/stop.err" || fail "stop: no warning naming the job ($(cat "$tmp/stop.err"))"
# A stop after the work ended changes nothing: 'complete', no warning.
db=$tmp/late.db
"$SIM" -q -o "$db" --set simulation.stop=1s "$tmp/job.ini" >/dev/null 2>"$tmp/late.err" || fail "late stop: exit $?"
check "late stop: complete" "SELECT status = 'complete' FROM run"
grep -q "stopped at" "$tmp/late.err" && fail "late stop: warned ($(cat "$tmp/late.err"))"

[ $fails = 0 ] || { cat "$tmp"/*.err; exit 1; }
echo "interrupt.sh: all checks passed"
