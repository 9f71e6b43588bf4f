#!/bin/bash
# mpi.sh — a partitioned run (mpirun -np N ./sim) writes the sequential run's
# results, table for table (docs/parallel.md): for N = 2, 3 and 4 ranks (3
# and 4 oversubscribed on small machines) on a permutation, the HPCC
# reference case cut short by [simulation] stop, a lossy fabric with
# retransmissions, a PFC deadlock (the same cycles, found at the same time),
# incast under PFC, and training jobs under partition = hosts (the MoE job
# cut short by stop, a ZeRO-3 job whose all-gathers make multicast trees
# during the run, two jobs side by side), link and switch failures (a link
# flap under a collective, random failures), sampling, captures. Also: --check prints the
# partition, SIGINT stops every rank with an 'interrupted' database, too
# many ranks and a bad partition are refused with exit status 2, and so is
# a partition that would split a job's hosts; [output] hpcc_fct merged
# into the sequential run's file. HPCC's in-band telemetry crosses ranks
# with its frames (hpcc_int).
# Run by make check when sim was built with MPI.
set -u
: "${SIM:?}" "${SRCDIR:?}" "${MPIRUN:=mpirun}"
command -v sqlite3 >/dev/null || { echo "mpi.sh: sqlite3 not found"; exit 77; }
command -v "$MPIRUN" >/dev/null || { echo "mpi.sh: $MPIRUN not found"; exit 77; }
# Root in CI containers; vader's single copy needs ptrace rights containers lack;
# Open MPI's own allocations are not ours to check for leaks.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-mpi.XXXXXX")
mkdir "$tmp/own"   # the ranks' TMPDIR where parts are sent (parallel.parts = messages)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
src=$(cd "$SRCDIR" && pwd -P)

# Every table, sorted by every column (as test/golden.sh digests them); the
# run row without what differs by nature (wall time, start time, ranks).
dump() {
	local t cols n
	for t in $(sqlite3 "$1" "SELECT name FROM sqlite_master WHERE type = 'table'
	                         AND name NOT LIKE 'sqlite_%' AND name <> 'run_rank' ORDER BY name"); do
		if [ "$t" = run ]; then
			cols="scenario, config, seed, sim_end_ps, events, packets_sent, packets_delivered,
			      packets_dropped, status"
		else
			cols='*'
		fi
		n=$(sqlite3 "$1" "CREATE TEMP VIEW c AS SELECT $cols FROM \"$t\";
		                  SELECT count(*) FROM pragma_table_info('c')")
		echo "$t $(sqlite3 -csv "$1" "SELECT $cols FROM \"$t\" ORDER BY $(seq -s, 1 "$n")" |
			sha256sum | cut -c1-16) $(sqlite3 "$1" "SELECT count(*) FROM \"$t\"")"
	done
}

# same NAME SCENARIO "NPS" [--set ...]: sequential, then each N, compared.
same() {
	local name=$1 sc=$2 nps=$3 st
	shift 3
	st=0
	"$SIM" -q -o "$tmp/$name.seq.db" "$SRCDIR/scenarios/$sc" "$@" >"$tmp/$name.seq.out" 2>&1 || st=$?
	if [ $st -ne 0 ] && [ $st -ne 3 ]; then
		echo "FAIL $name: sequential run exited $st"; cat "$tmp/$name.seq.out"; fail=1; return
	fi
	dump "$tmp/$name.seq.db" >"$tmp/$name.seq.dump"
	for n in $nps; do
		local pst=0
		"$MPIRUN" -np "$n" "$SIM" -q -o "$tmp/$name.$n.db" "$SRCDIR/scenarios/$sc" "$@" \
			>"$tmp/$name.$n.out" 2>&1 || pst=$?
		if [ $pst -ne $st ]; then
			echo "FAIL $name -np $n: exit $pst, the sequential run's $st"; tail -5 "$tmp/$name.$n.out"
			fail=1; continue
		fi
		if [ -e "$tmp/$name.$n.db.rank1" ]; then
			echo "FAIL $name -np $n: a rank's part was left beside the database"; fail=1
		fi
		dump "$tmp/$name.$n.db" >"$tmp/$name.$n.dump"
		local how
		how=$(sqlite3 "$tmp/$name.$n.db" "SELECT ranks || ' ranks, ' || partition FROM run")
		if cmp -s "$tmp/$name.seq.dump" "$tmp/$name.$n.dump"; then
			echo "ok $name -np $n: every table equal ($how)"
		else
			echo "FAIL $name -np $n: tables differ from the sequential run's ($how)"
			diff "$tmp/$name.seq.dump" "$tmp/$name.$n.dump" | grep '^[<>]'
			fail=1
		fi
	done
}

# Random failures of the links between switches and a core switch down
# for a while, on a permutation: frames lost on cut links, in the air and
# in queues, on several ranks; routing reacting on each.
failures=(--set traffic.perm.size=200KB --set "failure.mtbf=fabric 100us" --set "failure.mttr=fabric 10us"
	  --set failure.horizon=40us --set failure.detection=2us --set "failure.switch=core0 5us 25us"
	  --set nic.rto=20us)

# MPI_QUICK=1 (the sanitizer build in CI, ten times slower): 2 and 4
# ranks on fewer cases; the optimised build runs them all.
if [ "${MPI_QUICK:-0}" = 1 ]; then
	same permutation permutation.ini "2 4"
	same hpcc_stopped hpcc_websearch.ini "2" --set simulation.stop=2001ms
	same hpcc_int hpcc_websearch_hpcc.ini "2" --set simulation.stop=2001ms
	same lossy lossy_link.ini "2"
	same pfc_deadlock pfc_deadlock.ini "2"
	same multicast multicast_allgather.ini "2 4"
	same fat_tree_moe fat_tree_moe.ini "2" --set simulation.stop=5ms
	same link_flap link_flap_allreduce.ini "2"
	same failures permutation.ini "2" "${failures[@]}"
	same permutation_messages permutation.ini "2" --set parallel.trade=messages
	TMPDIR="$tmp/own" same permutation_parts permutation.ini "2" --set parallel.parts=messages
	same moe_mirrored fat_tree_moe.ini "2" --set simulation.stop=3ms --set job.moe.endpoint_delay=1us
else
	same permutation permutation.ini "2 3 4"
	same hpcc_stopped hpcc_websearch.ini "2 4" --set simulation.stop=2001ms
	same hpcc_int hpcc_websearch_hpcc.ini "2 3" --set simulation.stop=2001ms
	same lossy lossy_link.ini "2 3"
	same pfc_deadlock pfc_deadlock.ini "2 3"
	same incast_pfc incast_pfc.ini "2"
	same multicast multicast_allgather.ini "2 3 4"
	same fat_tree_moe fat_tree_moe.ini "2 3 4" --set simulation.stop=5ms
	same two_jobs two_jobs.ini "2"
	# Jobs reacting 1 us late (endpoint_delay): every rank runs them, the
	# hosts spread (round_robin by auto; pod and leaf named).
	same moe_mirrored fat_tree_moe.ini "2 3 4" --set simulation.stop=3ms --set job.moe.endpoint_delay=1us
	same two_jobs_mirrored two_jobs.ini "2 3" --set job.a.endpoint_delay=1us --set job.b.endpoint_delay=2us
	same two_jobs_pod two_jobs.ini "2" --set job.a.endpoint_delay=1us --set job.b.endpoint_delay=2us \
		--set parallel.partition=pod
	same background_mirrored moe_with_background.ini "2 3" --set simulation.stop=3ms \
		--set job.moe.endpoint_delay=1us
	# Shorter than the cut links' 1 us: every rank runs the jobs, the ranks
	# synchronising every 500 ns (auto, at least half the links' delay) or
	# every 300 ns (pod named); with 400 ns auto keeps the hosts on rank 0.
	same jobs_early two_jobs.ini "2 3" --set job.a.endpoint_delay=500ns --set job.b.endpoint_delay=700ns
	same jobs_early_pod two_jobs.ini "2" --set job.a.endpoint_delay=300ns --set job.b.endpoint_delay=2us \
		--set parallel.partition=pod
	same jobs_close two_jobs.ini "2" --set job.a.endpoint_delay=400ns --set job.b.endpoint_delay=400ns
	same jobs_failures two_jobs.ini "2 3" --set job.a.endpoint_delay=1us --set job.b.endpoint_delay=1us \
		--set "failure.mtbf=fabric 100us" --set "failure.mttr=fabric 10us" --set failure.horizon=200us \
		--set failure.detection=2us --set "failure.switch=core0 5us 25us" --set nic.rto=20us
	same link_flap link_flap_allreduce.ini "2 3 4"
	same failures permutation.ini "2 3 4" "${failures[@]}"
	same sampled websearch.ini "3" --set simulation.stop=300us --set output.queue_sample_interval=5us \
		--set output.link_sample_interval=10us
	same moe_sampled fat_tree_moe.ini "2" --set simulation.stop=2ms --set output.queue_sample_interval=10us \
		--set output.cc_sample_interval=10us
	# Trading as MPI messages, not through shared memory, gives the same tables.
	same hpcc_messages hpcc_websearch.ini "2" --set simulation.stop=2001ms --set parallel.trade=messages
	same moe_messages fat_tree_moe.ini "3" --set simulation.stop=2ms --set parallel.trade=messages
	# Every partition method gives the same tables (auto picked pod or metis above).
	for m in leaf rail round_robin metis; do
		same "permutation_$m" permutation.ini "3" --set parallel.partition=$m
	done
	TMPDIR="$tmp/own" same permutation_parts permutation.ini "2 3" --set parallel.parts=messages
fi

# The partitioned cases did split the work, and said how.
check() {
	local what=$1 db=$2 sql=$3
	if [ "$(sqlite3 "$db" "$sql")" = 1 ]; then echo "ok $what"; else echo "FAIL $what ($sql)"; fail=1; fi
}
check "permutation -np 4: four ranks ran events, their sum the run's" "$tmp/permutation.4.db" \
	"SELECT count(*) = 4 AND sum(r.events) = (SELECT events FROM run) AND min(r.events) > 0
	   AND sum(foreign_events) = 0 FROM run_rank r"
check "permutation -np 2: copies of records made, and every one dropped as its message ended" \
	"$tmp/permutation.2.db" "SELECT (SELECT status = 'complete' FROM run) AND sum(copies_made) > 0
	   AND sum(copies_held) = 0 FROM run_rank"
check "lossy -np 2: a message sent partly twice keeps its copies" "$tmp/lossy.2.db" \
	"SELECT sum(copies_held) > 0 FROM run_rank"
check "pfc_deadlock -np 2: the deadlock's cycle rows" "$tmp/pfc_deadlock.2.db" \
	"SELECT count(*) > 0 FROM deadlock"
check "hpcc_stopped -np 2: stopped in the traffic" "$tmp/hpcc_stopped.2.db" "SELECT status = 'stopped' AND packets_sent > 0 FROM run"
check "lossy -np 2: retransmissions happened" "$tmp/lossy.2.db" "SELECT sum(retx_packets) > 0 FROM flow"
check "multicast -np 2: hosts on rank 0, the switches on rank 1, both busy" "$tmp/multicast.2.db" \
	"SELECT (SELECT partition LIKE 'hosts: %' FROM run) AND count(*) = 2 AND min(events) > 0
	   AND sum(frames_out) > 0 AND sum(foreign_events) = 0 FROM run_rank"
check "moe_mirrored -np 2: the job on both ranks, each busy, every copy dropped" "$tmp/moe_mirrored.2.db" \
	"SELECT (SELECT partition LIKE 'round_robin: % jobs on every rank, endpoint_delay 1000000 ps'
	           AND status = 'stopped' FROM run)
	   AND count(*) = 2 AND min(events) > 0 AND sum(foreign_events) = 0 AND sum(copies_held) = 0 FROM run_rank"
if [ "${MPI_QUICK:-0}" != 1 ]; then
	check "jobs_early -np 3: a delay of half the links' delay spreads the jobs, windows that long" \
		"$tmp/jobs_early.3.db" "SELECT partition LIKE 'round_robin: % lookahead 500000 ps; jobs on every rank%'
		   AND status = 'complete' FROM run"
	check "jobs_early_pod -np 2: pod asked for, windows as long as the shortest delay" \
		"$tmp/jobs_early_pod.2.db" "SELECT partition LIKE 'pod: % lookahead 300000 ps; jobs on every rank%'
		   AND status = 'complete' FROM run"
	check "jobs_close -np 2: a delay under half the links' delay keeps the hosts on rank 0" \
		"$tmp/jobs_close.2.db" "SELECT partition LIKE 'hosts: %' AND status = 'complete' FROM run"
	check "jobs_failures -np 3: the jobs on every rank lost frames and resent them" "$tmp/jobs_failures.3.db" \
		"SELECT (SELECT sum(frames_lost) > 0 FROM failure) AND (SELECT sum(retx_packets) > 0 FROM flow)
		   AND (SELECT partition LIKE '%jobs on every rank%' AND status = 'complete' FROM run)"
fi
check "fat_tree_moe -np 2: stopped, its frames crossed ranks" "$tmp/fat_tree_moe.2.db" \
	"SELECT status = 'stopped' AND packets_sent > 0 AND ranks = 2 FROM run"
check "failures -np 2: partitioned, and the failures lost frames" "$tmp/failures.2.db" \
	"SELECT (SELECT count(*) >= 5 AND sum(frames_lost) > 0 FROM failure)
	    AND (SELECT count(*) > 0 FROM failure_flow) AND (SELECT partition NOT LIKE 'none%' FROM run)"
check "link_flap -np 2: the flap lost frames under partition = hosts" "$tmp/link_flap.2.db" \
	"SELECT (SELECT sum(frames_lost) > 0 FROM failure) AND (SELECT partition LIKE 'hosts: %' FROM run)"

# [output] hpcc_fct: each rank writes the flows its hosts sent, rank 0
# merges them into the sequential run's file, byte for byte. Four pairs of
# flows in four pods end at the same picosecond: their lines keep the
# sequential run's order (by the key of the event that ended each) when
# the ranks own the pods in turn (round_robin), not only in blocks (pod).
cat >"$tmp/ties.ini" <<'EOF'
[simulation]
seed = 1
[topology]
type = fat_tree
k = 8
link_rate = 100Gbps
link_delay = 1us
[traffic.f]
type = flows
flow = host0 host1 64KB 0us
flow = host32 host33 64KB 0us
flow = host64 host65 64KB 0us
flow = host96 host97 64KB 0us
flow = host2 host17 64KB 0us
flow = host34 host49 64KB 0us
flow = host66 host81 64KB 0us
flow = host98 host113 64KB 0us
EOF
"$SIM" -q -o "$tmp/ties.db" --set output.hpcc_fct="$tmp/fct.seq" "$tmp/ties.ini" >/dev/null 2>&1
for how in "2 pod" "4 pod" "3 round_robin" "3 pod messages"; do
	set -- $how
	TMPDIR="$tmp/own" "$MPIRUN" -np "$1" "$SIM" -q -o "$tmp/ties.$1.db" --set output.hpcc_fct="$tmp/fct.$1" \
		--set parallel.partition="$2" --set parallel.parts="${3:-auto}" "$tmp/ties.ini" >/dev/null 2>&1
	if [ "$(awk '{ print $6 + $7 }' "$tmp/fct.seq" | uniq -c | awk '{ print $1 }' | tr '\n' ' ')" != "4 4 " ]; then
		echo "FAIL hpcc_fct: the flows did not end in two groups of four at once"; fail=1
	elif cmp -s "$tmp/fct.seq" "$tmp/fct.$1" && ! ls "$tmp"/fct.*.rank* >/dev/null 2>&1; then
		echo "ok hpcc_fct -np $1 ($2${3:+, parts sent}): the sequential run's file, ties in its order"
	else
		echo "FAIL hpcc_fct -np $1 ($2${3:+, parts sent}): differs from the sequential run's (or a part was left)"; fail=1
	fi
done
# --fct FILE in place of the key: the same file at FILE.
TMPDIR="$tmp/own" "$MPIRUN" -np 2 "$SIM" -q -o "$tmp/ties.opt.db" --fct "$tmp/fct.opt" \
	--set parallel.parts=messages "$tmp/ties.ini" >/dev/null 2>&1
if cmp -s "$tmp/fct.seq" "$tmp/fct.opt" && ! ls "$tmp"/fct.opt.* >/dev/null 2>&1; then
	echo "ok --fct -np 2 (parts sent): the sequential run's file"
else
	echo "FAIL --fct -np 2 (parts sent): differs from the sequential run's (or a part was left)"; fail=1
fi

# Captures: each rank writes its own ports' files, byte for byte the
# sequential run's (under pod, and under hosts, whose switches' ranks read
# copies of the message records).
pcaps() {
	local name=$1 sc=$2 taps=$3 n=$4 stop=$5 parts=${6:-auto}
	"$SIM" -q -o "$tmp/$name.seq.db" --pcap "$tmp/$name.seq-pcap" "$SRCDIR/scenarios/$sc" \
		--set pcap.taps="$taps" --set simulation.stop="$stop" >/dev/null 2>&1
	TMPDIR="$tmp/own" "$MPIRUN" -np "$n" "$SIM" -q -o "$tmp/$name.$n.db" --pcap "$tmp/$name.$n-pcap" \
		"$SRCDIR/scenarios/$sc" --set pcap.taps="$taps" --set simulation.stop="$stop" \
		--set parallel.parts="$parts" >/dev/null 2>&1
	local files
	files=$(find "$tmp/$name.seq-pcap" -name '*.pcap' -size +24c | wc -l)
	if [ "$files" -gt 2 ] && diff -r "$tmp/$name.seq-pcap" "$tmp/$name.$n-pcap" >/dev/null; then
		echo "ok $name -np $n: every capture file equal ($files with frames)"
	else
		echo "FAIL $name -np $n: captures differ from the sequential run's ($files files with frames)"; fail=1
	fi
}
pcaps pcap_pod permutation.ini host0,host5,tor0,tor9:1,agg3,core2 2 200us
pcaps pcap_hosts fat_tree_moe.ini host0,leaf0,leaf2:20,spine1 2 1ms
# parts = messages (what auto picks when the ranks are on several
# machines): ranks r > 0 write their captures in their own TMPDIR and send
# them to rank 0, as their parts of the database (permutation_parts) and of
# fct.txt (hpcc_fct, "parts sent"); none of it is left there.
pcaps pcap_sent permutation.ini host0,host5,tor0,tor9:1,agg3,core2 3 200us messages
if [ -z "$(ls -A "$tmp/own")" ]; then
	echo "ok parts = messages: nothing left in the ranks' TMPDIR"
else
	echo "FAIL parts = messages: left in TMPDIR: $(ls -A "$tmp/own")"; fail=1
fi

# A rank that cannot open its part (here a folder in its way) stops every
# rank at once, said by rank 0, and nothing is written.
mkdir "$tmp/blocked.db.rank1"
st=0
timeout 120 "$MPIRUN" -np 2 "$SIM" -q -o "$tmp/blocked.db" "$SRCDIR/scenarios/permutation.ini" \
	>"$tmp/blocked.out" 2>&1 || st=$?
if [ $st -eq 2 ] && grep -q "^sim: rank 1: cannot write results to $tmp/blocked.db.rank1: Is a directory" \
	"$tmp/blocked.out" && [ -z "$(find "$tmp" -maxdepth 1 -name 'blocked.db*' ! -name blocked.db.rank1)" ]; then
	echo "ok a rank that cannot open its part: every rank stops, rank 0 says why, nothing written"
else
	echo "FAIL a rank that cannot open its part (exit $st)"; cat "$tmp/blocked.out"; fail=1
fi
# Two machines without a shared folder, on one: rank 1 in a mount
# namespace of its own, where a tmpfs hides the output's folder (as another
# machine would not have it). auto sees that and sends the parts: the
# sequential run's tables; parts = folder is refused before the run.
# apart SETS...: rank 0 as usual, rank 1 behind the tmpfs.
apart() {
	timeout 120 "$MPIRUN" -np 1 "$SIM" -q -o "$tmp/hid/p.db" "$SRCDIR/scenarios/permutation.ini" "$@" : \
		-np 1 unshare -m sh -c 'mount -t tmpfs none "$1" && shift && exec "$@"' sh "$tmp/hid" \
		"$SIM" -q -o "$tmp/hid/p.db" "$SRCDIR/scenarios/permutation.ini" "$@"
}
mkdir "$tmp/hid"
if unshare -m sh -c "mount -t tmpfs none '$tmp/hid'" 2>/dev/null; then
	st=0
	TMPDIR="$tmp/own" apart >"$tmp/apart.out" 2>&1 || st=$?
	if [ $st -eq 0 ] && [ -e "$tmp/hid/p.db" ] && dump "$tmp/hid/p.db" | cmp -s - "$tmp/permutation.seq.dump" &&
	   [ "$(sqlite3 "$tmp/hid/p.db" "SELECT ranks FROM run")" = 2 ] && [ -z "$(ls -A "$tmp/own")" ]; then
		echo "ok rank 1 without the output's folder: auto sends the parts, every table equal"
	else
		echo "FAIL rank 1 without the output's folder, auto (exit $st)"; cat "$tmp/apart.out"; fail=1
	fi
	rm -rf "${tmp:?}/hid"/*
	st=0
	apart --set parallel.parts=folder >"$tmp/apart.out" 2>&1 || st=$?
	if [ $st -eq 2 ] && grep -q "^sim: --set: \[parallel\] parts = 'folder': a rank does not see the folder of" \
		"$tmp/apart.out" && [ -z "$(ls -A "$tmp/hid")" ]; then
		echo "ok rank 1 without the output's folder, parts = folder: refused before the run, nothing written"
	else
		echo "FAIL rank 1 without the output's folder, parts = folder (exit $st)"; cat "$tmp/apart.out"; fail=1
	fi
else
	echo "FAIL unshare -m cannot mount a tmpfs here: the two-machine cases need it"; fail=1
fi

# --append: rank 1's part is a new database even when an old one (a run
# killed between its publishing and the merge) sits at its path.
cp "$tmp/permutation.seq.db" "$tmp/appended.db"
cp "$tmp/permutation.seq.db" "$tmp/appended.db.rank1"
"$MPIRUN" -np 2 "$SIM" -q -o "$tmp/appended.db" --append "$SRCDIR/scenarios/permutation.ini" >/dev/null 2>&1
check "--append -np 2 over an old part: run 2's rows are run 1's, counted once" "$tmp/appended.db" \
	"SELECT (SELECT count(*) FROM flow WHERE run_id = 2) = (SELECT count(*) FROM flow WHERE run_id = 1)
	   AND (SELECT count(*) FROM port_stats WHERE run_id = 2) = (SELECT count(*) FROM port_stats WHERE run_id = 1)
	   AND (SELECT count(*) FROM run) = 2"

# A part that cannot reach rank 0 (a folder in the way where rank 0 puts
# what rank 1 sent): exit 1, said, no database rather than half of one.
mkdir "$tmp/lost.db.rank1"
st=0
TMPDIR="$tmp/own" timeout 120 "$MPIRUN" -np 2 "$SIM" -q -o "$tmp/lost.db" "$SRCDIR/scenarios/permutation.ini" \
	--set parallel.parts=messages >"$tmp/lost.out" 2>&1 || st=$?
if [ $st -eq 1 ] && grep -q "^sim: could not gather the ranks' parts (said above): $tmp/lost.db was not written" \
	"$tmp/lost.out" && [ -z "$(find "$tmp" -maxdepth 1 -name 'lost.db*' ! -name lost.db.rank1)" ] &&
   [ -z "$(ls -A "$tmp/own")" ]; then
	echo "ok a part that cannot reach rank 0: exit 1, said, no database, nothing left in TMPDIR"
else
	echo "FAIL a part that cannot reach rank 0 (exit $st)"; cat "$tmp/lost.out"; ls "$tmp" "$tmp/own"; fail=1
fi

# A job's hosts cannot be split: another partition than hosts is refused.
st=0
"$MPIRUN" -np 2 "$SIM" -q -o "$tmp/split.db" "$SRCDIR/scenarios/two_jobs.ini" \
	--set parallel.partition=leaf >"$tmp/split.out" 2>&1 || st=$?
if [ $st -eq 2 ] && grep -q "^sim: --set: \[parallel\] partition = 'leaf': a training job (\[job\]) needs every host on one rank" "$tmp/split.out" &&
   [ ! -e "$tmp/split.db" ]; then
	echo "ok a partition splitting a job's hosts: refused, nothing written"
else
	echo "FAIL a partition splitting a job's hosts (exit $st)"; cat "$tmp/split.out"; fail=1
fi

# Each rank built what --check says it builds: its nodes' ports and the
# far end of each of its cut links (a closed form over the partition),
# counted here from the ports the run's ranks actually held; under pod
# (even) and under hosts (rank 0 every host, rank 1 every switch).
ports_built() {
	local name=$1 sc=$2 n=$3 said built
	said=$("$SIM" --check --ranks "$n" "$SRCDIR/scenarios/$sc" 2>/dev/null |
		sed -n 's/^partition: rank \([0-9]*\): .* builds \([0-9]*\) ports$/\1|\2/p')
	built=$(sqlite3 "$tmp/$name.$n.db" "SELECT rank || '|' || ports_built FROM run_rank ORDER BY rank")
	if [ "$(echo "$said" | wc -l)" = "$n" ] && [ "$said" = "$built" ]; then
		echo "ok $name -np $n: each rank built the ports --check says it builds ($(echo $built))"
	else
		echo "FAIL $name -np $n: ports built ($(echo $built)) differ from --check's ($(echo $said))"; fail=1
	fi
}
ports_built permutation permutation.ini 4
ports_built multicast multicast_allgather.ini 2

# --check under mpirun prints the partition and its cut.
out=$("$MPIRUN" -np 2 "$SIM" --check "$SRCDIR/scenarios/permutation.ini" 2>&1)
if echo "$out" | grep -q "^partition: 2 ranks by .* links cut .*lookahead"; then
	echo "ok --check -np 2 prints the partition"
else
	echo "FAIL --check -np 2: no partition line"; echo "$out"; fail=1
fi

# A partition that cannot be made is bad input: exit 2, one located line,
# nothing written.
st=0
"$MPIRUN" -np 3 "$SIM" -q -o "$tmp/bad.db" "$SRCDIR/scenarios/dumbbell.ini" \
	--set parallel.partition=pod >"$tmp/bad.out" 2>&1 || st=$?
if [ $st -ne 0 ] && grep -q "^sim: --set: \[parallel\] partition = 'pod': the fabric has no pods" "$tmp/bad.out" &&
   [ "$(grep -c '^sim:' "$tmp/bad.out")" = 1 ] && [ ! -e "$tmp/bad.db" ]; then
	echo "ok a partition that cannot be made: refused, said once, nothing written"
else
	echo "FAIL a partition that cannot be made (exit $st)"; cat "$tmp/bad.out"; fail=1
fi

# SIGINT to mpirun reaches every rank: one database, 'interrupted', rows intact.
# The traffic runs for 1 s of simulated time (minutes of wall time), so the
# signal comes long before the end however fast the machine. sigint NAME
# PART [--set ...]: PART, the glob rank 1's part is written at (beside the
# database, or in its TMPDIR when the parts are sent to rank 0).
sigint() {
	local name=$1 part=$2
	shift 2
	TMPDIR="$tmp/own" "$MPIRUN" -np 2 "$SIM" -q -o "$tmp/$name.db" "$SRCDIR/test/bench/k8_websearch.ini" \
		--set simulation.stop=1s --set traffic.ws.stop=1s "$@" >"$tmp/$name.out" 2>&1 &
	local pid=$! seen=0
	for _ in $(seq 200); do   # both ranks writing (their handlers are set by then)
		if compgen -G "$tmp/$name.db.tmp-*" >/dev/null && compgen -G "$part" >/dev/null; then
			seen=1
			break
		fi
		sleep 0.1
	done
	sleep 1
	kill -INT $pid
	wait $pid
	[ $seen = 1 ] || { echo "FAIL $name: rank 1's part never appeared at $part"; fail=1; }
	check "$name: one database, interrupted" "$tmp/$name.db" \
		"SELECT status = 'interrupted' AND ranks = 2 FROM run"
	check "$name: every finished flow has its row once" "$tmp/$name.db" \
		"SELECT count(*) = count(DISTINCT flow_id) FROM flow"
	if grep -q "conservation broken" "$tmp/$name.out"; then
		echo "FAIL $name: packets unaccounted for"; grep conservation "$tmp/$name.out"; fail=1
	else
		echo "ok $name: every packet sent is delivered, dropped or in the network"
	fi
}
sigint SIGINT "$tmp/SIGINT.db.rank1.tmp-*"
# Parts sent to rank 0: rank 1 writes its part in its TMPDIR, never beside
# the database, and sends it when interrupted too; nothing is left there.
sigint SIGINT_sent "$tmp/own/rocesim-*/results.db.tmp-*" --set parallel.parts=messages
check "SIGINT_sent: rank 1's rows are in (its ports' statistics)" "$tmp/SIGINT_sent.db" \
	"SELECT count(DISTINCT node) = 128 + 80 FROM port_stats"
if [ -z "$(ls -A "$tmp/own")" ] && ! compgen -G "$tmp/SIGINT_sent.db.rank*" >/dev/null; then
	echo "ok SIGINT_sent: nothing left in the ranks' TMPDIR nor beside the database"
else
	echo "FAIL SIGINT_sent: left: $(ls -A "$tmp/own") $(ls "$tmp" | grep SIGINT_sent)"; fail=1
fi

[ $fail -eq 0 ] && echo "mpi.sh: all checks passed"
exit $fail
