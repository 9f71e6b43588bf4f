#!/bin/bash
# sweep_mpi.sh — `mpirun -np R sim --sweep ...` spreads the points over the
# ranks and writes the database a sweep on one machine writes
# (docs/sweeps.md "Under MPI"):
#   - a 2 x 2 sweep (two seeds x two loads of a small web-search fabric) on
#     2 ranks with -j 1 and on 3 ranks: every table, sorted, equals the
#     sequential sweep's, run_ids and run.sweep included; the points ran as
#     plain sequential runs (run.ranks 1: they did not take themselves for
#     ranks of the job); one line per point and a summary, from rank 0 only;
#   - parts sent to rank 0, and a rank that does not see the output's
#     folder: the sequential sweep's tables, captures and fct.txt files;
#   - points dealt as ranks free up: a long point on rank 0, the short
#     ones all on rank 1;
#   - a PFC deadlock in a point of rank 1: exit 3 (the worst point's);
#   - a bad value in a point and a point only the built world refuses: exit
#     2, said once (by rank 0), nothing written;
#   - --check: each point's 'valid' line once;
#   - SIGINT to mpirun while the ranks run their second points: the points
#     that ran are kept (the first 'stopped' by its short stop, the others
#     'interrupted'), the one never started has no row, nothing temporary
#     is left.
# Run by make check when sim was built with MPI.
set -u
: "${SIM:?}" "${SRCDIR:?}" "${MPIRUN:=mpirun}"
command -v sqlite3 >/dev/null || { echo "sweep_mpi.sh: sqlite3 not found"; exit 77; }
command -v "$MPIRUN" >/dev/null || { echo "sweep_mpi.sh: $MPIRUN not found"; exit 77; }
# As mpi.sh: root in CI containers, no ptrace rights for vader's single
# copy, 3 ranks on a 2-core machine, Open MPI's own allocations not ours.
# On SIGINT mpirun waits odls_base_sigkill_timeout (1 s) before it sends
# the ranks SIGTERM and as long again before SIGKILL: a slow (sanitizer)
# build needs longer to gather the points that ran.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_odls_base_sigkill_timeout=5
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# A rank that waits for ever (a point taking itself for a rank of the job
# does that) fails the test rather than hangs it; timeout passes a SIGINT on.
mpi() {
	if command -v timeout >/dev/null; then timeout 120 "$MPIRUN" "$@"; else "$MPIRUN" "$@"; fi
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-sweep-mpi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }
ws=$SRCDIR/scenarios/websearch.ini
# A 16-host fat tree for 2 ms (1 ms in the sanitizer build): about 0.2 s a point.
stop=2ms
[ -n "${MPI_QUICK:-}" ] && stop=1ms
small=(--set topology.k=4 --set "simulation.stop=$stop" --set "traffic.ws.stop=$stop")
# shellcheck disable=SC2054 # the commas separate a key's values
points=(--sweep simulation.seed=1,2 --sweep traffic.ws.load=0.3,0.6)

# Every table sorted by all its columns, run_id included; the run row
# without what differs by nature (start and wall time).
dump() {
	local t cols n
	for t in $(sqlite3 "$1" "SELECT name FROM sqlite_master WHERE type = 'table'
	                         AND name NOT LIKE 'sqlite_%' ORDER BY name"); do
		if [ "$t" = run ]; then
			cols="run_id, scenario, config, seed, version, sim_end_ps, events, packets_sent,
			      packets_delivered, packets_dropped, status, ranks, partition, rank_events, sweep"
		else
			cols='*'
		fi
		n=$(sqlite3 "$1" "CREATE TEMP VIEW c AS SELECT $cols FROM \"$t\";
		                  SELECT count(*) FROM pragma_table_info('c')")
		echo "$t $(sqlite3 -csv "$1" "SELECT $cols FROM \"$t\" ORDER BY $(seq -s, 1 "$n")" |
			sha256sum | cut -c1-16) $(sqlite3 "$1" "SELECT count(*) FROM \"$t\"")"
	done
}
# nothing_left DIR WHAT: no temporary database or work folder in DIR
nothing_left() {
	local left
	left=$(ls "$1" | grep -E '\.tmp-|\.sweep-')
	[ -z "$left" ] || bad "$2: left behind: $left"
}

# ---- the sequential sweep, then 2 and 3 ranks
mkdir "$tmp/seq" "$tmp/np2" "$tmp/np3"
"$SIM" "$ws" "${small[@]}" "${points[@]}" -j 1 -o "$tmp/seq/s.db" >"$tmp/seq.out" 2>"$tmp/seq.err" ||
	bad "sequential sweep: exit $? ($(cat "$tmp/seq.err"))"
dump "$tmp/seq/s.db" >"$tmp/seq.dump"
[ "$(sqlite3 "$tmp/seq/s.db" "SELECT count(*) FROM flow")" -gt 100 ] || bad "sequential sweep: too few flows to compare"
# The seeds and the loads must change the rows, or the comparison shows no order.
[ "$(sqlite3 "$tmp/seq/s.db" "SELECT count(DISTINCT events) FROM run")" = 4 ] ||
	bad "the 4 points do not differ: $(sqlite3 "$tmp/seq/s.db" "SELECT run_id, events FROM run")"
for np in 2 3; do
	st=0
	mpi -np $np "$SIM" "$ws" "${small[@]}" "${points[@]}" -j 1 -o "$tmp/np$np/s.db" \
		>"$tmp/np$np.out" 2>"$tmp/np$np.err" || st=$?
	if [ $st -ne 0 ] || [ ! -e "$tmp/np$np/s.db" ]; then
		bad "-np $np: exit $st"; tail -5 "$tmp/np$np.err"; continue
	fi
	nothing_left "$tmp/np$np" "-np $np"
	dump "$tmp/np$np/s.db" >"$tmp/np$np.dump"
	if cmp -s "$tmp/seq.dump" "$tmp/np$np.dump"; then
		echo "ok -np $np: every table equals the sequential sweep's ($(wc -l <"$tmp/seq.dump") tables)"
	else
		bad "-np $np: tables differ from the sequential sweep:"; diff "$tmp/seq.dump" "$tmp/np$np.dump"
	fi
	got=$(sqlite3 "$tmp/np$np/s.db" "SELECT group_concat(run_id || '|' || sweep || '|' || ranks, ';')
	                                 FROM (SELECT * FROM run ORDER BY run_id)")
	want="1|simulation.seed=1 traffic.ws.load=0.3|1;2|simulation.seed=1 traffic.ws.load=0.6|1"
	want="$want;3|simulation.seed=2 traffic.ws.load=0.3|1;4|simulation.seed=2 traffic.ws.load=0.6|1"
	[ "$got" = "$want" ] || bad "-np $np: run rows '$got', want '$want'"
	[ "$(grep -c '^sweep: point [1-4]/4 .*: stopped, exit 0' "$tmp/np$np.out")" = 4 ] ||
		bad "-np $np: not one line per point: $(cat "$tmp/np$np.out")"
	grep -q "^sweep: 4 points over $np ranks" "$tmp/np$np.out" || bad "-np $np: no opening line"
	[ "$(grep -c '^sweep: 4 of 4 points run' "$tmp/np$np.out")" = 1 ] || bad "-np $np: not one summary"
	grep -Eq '^ +4/4 +4 +stopped +0 .* 2 +0\.6$' "$tmp/np$np.out" || bad "-np $np: summary row of point 4"
done

# ---- the points' files sent to rank 0 ([parallel] parts = messages, what
# auto picks when a rank is on another machine than rank 0): ranks 1 and 2
# run their points in a private folder of their TMPDIR, captures and
# fct.txt included, and send them to rank 0; the database, the captures
# and the fct.txt files are the sequential sweep's, and nothing is left
# in TMPDIR. Run from the output's folder, so that the relative paths
# (and the run rows' configurations) are alike.
mkdir "$tmp/sseq" "$tmp/ssent" "$tmp/own"
sent=(--set parallel.parts=messages --set pcap.taps=host0,tor1 --set output.hpcc_fct=fct.txt)
sim=$(cd "$(dirname "$SIM")" && pwd)/$(basename "$SIM")
wsa=$(cd "$SRCDIR" && pwd)/scenarios/websearch.ini
(cd "$tmp/sseq" && "$sim" "$wsa" "${small[@]}" "${sent[@]}" "${points[@]}" -o s.db >../sseq.out 2>&1) ||
	bad "sequential sweep with captures: exit $?"
st=0
(cd "$tmp/ssent" && TMPDIR="$tmp/own" mpi -np 3 "$sim" "$wsa" "${small[@]}" "${sent[@]}" "${points[@]}" -o s.db \
	>../ssent.out 2>&1) || st=$?
dump "$tmp/sseq/s.db" >"$tmp/sseq.dump"
dump "$tmp/ssent/s.db" >"$tmp/ssent.dump" 2>/dev/null
if [ $st = 0 ] && cmp -s "$tmp/sseq.dump" "$tmp/ssent.dump" && diff -r "$tmp/sseq" "$tmp/ssent" -x s.db >/dev/null &&
   [ "$(find "$tmp/ssent/s" -name '*.pcap' -size +24c | wc -l)" -ge 8 ] &&
   [ "$(ls "$tmp/ssent" | grep -c '^fct\.point-[1-4]\.txt$')" = 4 ] && [ -z "$(ls -A "$tmp/own")" ]; then
	echo "ok parts = messages -np 3: the sequential sweep's tables, captures and fct.txt files; nothing left in TMPDIR"
else
	bad "parts = messages -np 3 (exit $st):"; diff "$tmp/sseq.dump" "$tmp/ssent.dump"
	diff -r "$tmp/sseq" "$tmp/ssent" -x s.db | head; ls -R "$tmp/own" "$tmp/ssent" | head -30; tail -5 "$tmp/ssent.out"
fi

# ---- two machines without a shared folder, on one: rank 1 in a mount
# namespace of its own, where a tmpfs hides the output's folder. auto
# sees that and sends its points to rank 0: the sequential sweep's tables.
mkdir "$tmp/hid"
if unshare -m sh -c "mount -t tmpfs none '$tmp/hid'" 2>/dev/null; then
	st=0
	mpi -np 1 "$SIM" "$ws" "${small[@]}" "${points[@]}" -o "$tmp/hid/s.db" : \
		-np 1 unshare -m sh -c 'mount -t tmpfs none "$1" && shift && exec "$@"' sh "$tmp/hid" \
		"$SIM" "$ws" "${small[@]}" "${points[@]}" -o "$tmp/hid/s.db" >"$tmp/hid.out" 2>&1 || st=$?
	if [ $st = 0 ] && dump "$tmp/hid/s.db" | cmp -s - "$tmp/seq.dump"; then
		echo "ok rank 1 without the output's folder: auto sends its points, the sequential sweep's tables"
	else
		bad "rank 1 without the output's folder (exit $st)"; tail -5 "$tmp/hid.out"
	fi
	nothing_left "$tmp/hid" "rank 1 without the output's folder"
else
	bad "unshare -m cannot mount a tmpfs here: the two-machine case needs it"
fi

# ---- points dealt as ranks free up: point 1 takes 20 times as long as
# each of the others, so rank 1 runs points 2, 3 and 4 while rank 0 runs
# point 1 (dealt i mod 2, rank 0 would run 1 and 3). Rank 0 prints its own
# points' lines as they end and the others' after, in point order: 1, 2,
# 3, 4 here, where i mod 2 gives 1, 3, 2, 4. Not in the sanitizer build
# (its slowness is mostly the points' start).
if [ -z "${MPI_QUICK:-}" ]; then
	mpi -np 2 "$SIM" "$ws" --set topology.k=4 --set simulation.stop=20ms --set traffic.ws.stop=20ms \
		--sweep traffic.ws.load=0.8,0.02,0.02,0.02 -j 1 -o "$tmp/dealt.db" >"$tmp/dealt.out" 2>&1 ||
		bad "dealt points: exit $?"
	order=$(sed -n 's|^sweep: point \([1-4]\)/4 .*|\1|p' "$tmp/dealt.out" | tr -d '\n')
	if [ "$order" = 1234 ]; then
		echo "ok points dealt as ranks free up: rank 1 ran points 2 to 4 while rank 0 ran point 1"
	else
		bad "dealt points: lines in the order $order, want 1234"; cat "$tmp/dealt.out"
	fi
fi

# ---- the worst status of every rank's points: point 2 (rank 1's) deadlocks
st=0
mpi -np 2 "$SIM" "$SRCDIR/scenarios/pfc_deadlock.ini" --set simulation.stop=3ms --sweep switch.pfc=off,on \
	-o "$tmp/dl.db" >"$tmp/dl.out" 2>"$tmp/dl.err" || st=$?
got=$(sqlite3 "$tmp/dl.db" "SELECT group_concat(run_id || '|' || sweep || '|' || status, ';') FROM (SELECT * FROM run ORDER BY run_id)")
if [ $st = 3 ] && [ "$got" = "1|switch.pfc=off|stopped;2|switch.pfc=on|deadlock" ]; then
	echo "ok a deadlock on rank 1: every rank exits 3"
else
	bad "a deadlock on rank 1: exit $st (expected 3), rows '$got'"
fi

# ---- refusals: exit 2, said once, nothing written
refuse() { # WHAT FRAGMENT ARGS...
	local what=$1 frag=$2 st=0
	shift 2
	mkdir "$tmp/r"
	mpi -np 2 "$SIM" "$ws" "${small[@]}" "$@" -o "$tmp/r/r.db" >"$tmp/r.out" 2>"$tmp/r.err" || st=$?
	[ $st = 2 ] || bad "$what: exit $st, expected 2 ($(cat "$tmp/r.err"))"
	[ "$(grep -cF -- "$frag" "$tmp/r.err")" = 1 ] || bad "$what: '$frag' not said once: $(cat "$tmp/r.err")"
	if [ -z "$(ls "$tmp/r")" ]; then
		echo "ok $what: exit 2, said once, nothing written"
	else
		bad "$what: wrote $(ls "$tmp/r")"
	fi
	rm -rf "$tmp/r"
}
refuse "a bad value in the last point" "sweep point 3/3 (nic.cc=dcqnc)" --sweep nic.cc=none,dcqcn,dcqnc
refuse "a point the built world refuses" "sweep point 2/2 (traffic.ws.hosts=host0 host99) is refused" \
	--sweep 'traffic.ws.hosts=host0 host1,host0 host99'

# ---- --check: rank 0 says each point is valid, once
out=$(mpi -np 2 "$SIM" "$ws" "${small[@]}" "${points[@]}" --check -o "$tmp/check.db" 2>&1)
if [ "$(echo "$out" | grep -c '^sweep: point [1-4]/4 .*: valid$')" = 4 ] &&
   [ "$(echo "$out" | grep -c '^sweep: 4 points valid')" = 1 ] && [ ! -e "$tmp/check.db" ]; then
	echo "ok --check -np 2: each point valid, once"
else
	bad "--check -np 2:"; echo "$out"
fi

# ---- SIGINT: point 1 (50 us) ends at once, points 2 and 3 run on the two
# ranks, point 4 never starts
mkdir "$tmp/i"
db=$tmp/i/int.db
: >"$tmp/int.out"
"$MPIRUN" -np 2 "$SIM" "$ws" --set topology.k=4 --set traffic.ws.stop=1s \
	--sweep simulation.stop=50us,1s,1s,1s -o "$db" >"$tmp/int.out" 2>"$tmp/int.err" &
pid=$!
n=0
while ! grep -q 'point 1/4' "$tmp/int.out" && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
sleep 1
kill -INT $pid
# mpirun's status is not sim's: Open MPI kills ranks that have not ended
# MPI a timeout after SIGTERM (they had written the database) and exits 1.
wait $pid
got=$(sqlite3 "$db" "SELECT group_concat(run_id || '|' || sweep || '|' || status, ';') FROM (SELECT * FROM run ORDER BY run_id)")
want="1|simulation.stop=50us|stopped;2|simulation.stop=1s|interrupted;3|simulation.stop=1s|interrupted"
if [ "$got" = "$want" ]; then
	echo "ok SIGINT: the points that ran kept, in point order, the one not started left out"
else
	bad "SIGINT rows: '$got', want '$want'"; cat "$tmp/int.out" "$tmp/int.err"
fi
[ "$(sqlite3 "$db" "SELECT count(DISTINCT run_id) FROM flow WHERE run_id IN (2, 3) AND end_ps IS NOT NULL")" = 2 ] ||
	bad "SIGINT: an interrupted point kept no finished flow"
[ "$(sqlite3 "$db" "PRAGMA integrity_check")" = ok ] || bad "SIGINT: database not whole"
grep -Eq '^ +4/4 +- +not run' "$tmp/int.out" || bad "SIGINT: summary does not show point 4 not run: $(cat "$tmp/int.out")"
nothing_left "$tmp/i" "SIGINT"

[ $fail -eq 0 ] && echo "sweep_mpi.sh: all checks passed"
exit $fail
