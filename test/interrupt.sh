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

[ $fails = 0 ] || { cat "$tmp"/*.err; exit 1; }
echo "interrupt.sh: all checks passed"
