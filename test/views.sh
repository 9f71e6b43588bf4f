#!/bin/sh
# views.sh — the views of analysis/views.sql against closed forms.
#
# 1. A hand-made database (analysis/schema.sql + views.sql +
#    test/views_fixture.sql) whose every view answer is worked out by hand
#    below: nearest-rank percentiles of known slowdowns, nccl-tests busbw
#    of collectives of known size and time, pause time = the sum of the
#    pfc_pause intervals, utilisation from frame bytes and line rate.
# 2. Databases written by `sim`: they carry the views; the percentiles
#    agree with an independent ORDER BY ... LIMIT 1 OFFSET computation; a
#    ring all-reduce's busbw stays under the goodput its links allow.
#
# Run by `make check` with SIM, SRCDIR and BUILDDIR set. POSIX sh.
set -u
SIM=${SIM:-./sim}
SRCDIR=${SRCDIR:-.}
command -v sqlite3 >/dev/null || { echo "views.sh: SKIP: sqlite3 not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-views.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
checks=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# check NAME SQL: the query must return 1
check() {
	checks=$((checks + 1))
	got=$(sqlite3 "$db" "$2" 2>&1)
	[ "$got" = 1 ] || fail "$1 ($2 gave '$(echo "$got" | head -3)')"
}
# near A B: |A - B| <= 1e-9 (1 + |B|), as SQL
near() { echo "abs(($1) - ($2)) <= 1e-9 * (1 + abs($2))"; }

db=$tmp/fixture.db
cat "$SRCDIR/analysis/schema.sql" "$SRCDIR/analysis/views.sql" "$SRCDIR/test/views_fixture.sql" |
	sqlite3 -bail "$db" || fail "the fixture database does not load"

# failure_impact: failure 1 hit 4 flows (one unfinished, 300) with 5 + 3
# + 4 + 1 = 13 data frames, of one collective (400 has none); failure 2
# none, down for good.
check "failure_impact link" "SELECT kind = 'link' AND node_b = 'host1' AND down_us = 10 AND up_us = 30 AND frames_lost = 50 AND flows_hit = 4 AND flows_unfinished = 1 AND data_frames_lost = 13 AND collectives_hit = 1 FROM failure_impact WHERE failure_id = 1"
check "failure_impact switch" "SELECT kind = 'switch' AND node_b IS NULL AND up_us IS NULL AND down_us = 100 AND flows_hit = 0 AND flows_unfinished = 0 AND data_frames_lost = 0 AND collectives_hit = 0 FROM failure_impact WHERE failure_id = 2"
# failure_collective: collective 1 (100 ms, ideal 50 ms) through 3 flows, 12 frames.
check "failure_collective" "SELECT count(*) = 1 AND max(collective_id) = 1 AND max(flows_hit) = 3 AND max(frames_lost) = 12 AND max(coll_us) = 100000 AND max(ideal_us) = 50000 AND max(op) = 'allreduce' FROM failure_collective"

# slowdown_by_size. 1KB-10KB holds slowdowns 1..100: the p-th nearest-rank
# percentile of 1..100 is p itself (rank ceil(p·100/100) = p).
check "1KB-10KB percentiles" "SELECT transport = 'network' AND flows = 100 AND unfinished = 0 AND p50 = 50 AND p95 = 95 AND p99 = 99 AND max = 100 AND $(near mean 50.5) FROM slowdown_by_size WHERE bucket = '1KB-10KB'"
# 100KB-1MB: 1..7 and one unfinished: ranks ceil(3.5) = 4, ceil(6.65) = 7, ceil(6.93) = 7.
check "100KB-1MB percentiles" "SELECT flows = 7 AND unfinished = 1 AND p50 = 4 AND p95 = 7 AND p99 = 7 AND $(near mean 4) FROM slowdown_by_size WHERE bucket = '100KB-1MB' AND transport = 'network'"
# lower bounds inclusive: 999 B is <1KB, 10000 B is 10KB-100KB
check "bucket bounds" "SELECT group_concat(bucket || ':' || flows || ':' || p50 || ':' || lo_bytes || '-' || coalesce(hi_bytes, ''), ' ') = '<1KB:1:2.0:0-1000 10KB-100KB:1:2.0:10000-100000' FROM (SELECT * FROM slowdown_by_size WHERE bucket IN ('<1KB', '10KB-100KB') ORDER BY lo_bytes)"
check "empty buckets absent" "SELECT count(*) = 5 FROM slowdown_by_size WHERE transport = 'network'"
# NVLink apart: 4 flows of 500000 B with slowdowns 10, 20, 30, 40: ranks
# ceil(2) = 2 -> 20, ceil(3.8) = 4 -> 40, ceil(3.96) = 4 -> 40, mean 25; the
# network's 100KB-1MB bucket keeps its 7 + 1 flows (above).
check "NVLink bucket apart" "SELECT count(*) = 2 AND sum(flows) = 8 AND max(p50) = 20 AND max(p95) = 40 AND max(p99) = 40 AND $(near 'max(mean)' 25) AND sum(unfinished) = 0 FROM slowdown_by_size WHERE transport = 'nvlink'"
check "transports only" "SELECT group_concat(DISTINCT transport) = 'network,nvlink' FROM (SELECT transport FROM slowdown_by_size ORDER BY transport)"
# all 109 finished flows: 1 twice, 2 four times, 3..7 twice, 8..100 once, so
# value v >= 8 sits at rank v + 9: p50 rank ceil(54.5) = 55 -> 46, p95 rank
# ceil(103.55) = 104 -> 95, p99 rank ceil(107.91) = 108 -> 99; mean 5082/109.
check "all-flow percentiles" "SELECT flows = 109 AND unfinished = 1 AND p50 = 46 AND p95 = 95 AND p99 = 99 AND $(near mean '5082.0 / 109') AND lo_bytes IS NULL FROM slowdown_by_size WHERE bucket = 'all' AND transport = 'network'"

# collective_busbw: 1 GB in 100 ms is algbw 10 GB/s; busbw = 10 × 2·15/16 =
# 18.75 (allreduce, 16), 10 × 3/4 = 7.5 (allgather, 4), 10 × 7/8 = 8.75
# (alltoall, 8), 10 × 4/5 = 8 (reduce_scatter, 5), 10 (sendrecv, broadcast).
for c in "1 18.75" "2 7.5" "3 8.75" "4 8" "5 10" "6 10"; do
	set -- $c
	check "busbw of collective $1" "SELECT $(near algbw_GB_s 10) AND $(near busbw_GB_s "$2") AND $(near busbw_Gbit_s "8 * $2") AND $(near time_us 100000) AND $(near vs_ideal 2) FROM collective_busbw WHERE collective_id = $1"
done
check "unfinished collective left out" "SELECT count(*) = 6 FROM collective_busbw"

# iteration_breakdown: 10 ms, 4 compute, 1 bubble, 8 comm of which 5
# exposed: 3 overlapped, 10 - 4 - 1 - 5 = 0 other, exposed share 1/2;
# exposed per parallelism as written; unfinished left out.
check "iteration breakdown" "SELECT count(*) = 1 AND $(near 'max(iter_us)' 10000) AND $(near 'max(compute_us)' 4000) AND $(near 'max(comm_us)' 8000) AND $(near 'max(exposed_comm_us)' 5000) AND $(near 'max(overlapped_comm_us)' 3000) AND $(near 'max(other_us)' 0) AND $(near 'max(exposed_frac)' 0.5) AND $(near 'max(bubble_us)' 1000) FROM iteration_breakdown"
# job_summary: job j, one finished iteration (10 ms, 8 comm, 5 exposed)
# and one unfinished; its span from the first start to the last end; its
# flows split by transport agree with the flow table summed apart.
check "job summary" "SELECT count(*) = 1 AND max(job) = 'j' AND max(iterations) = 1 AND max(unfinished) = 1 AND $(near 'max(mean_iter_us)' 10000) AND $(near 'max(max_iter_us)' 10000) AND $(near 'max(mean_comm_us)' 8000) AND $(near 'max(mean_exposed_comm_us)' 5000) AND $(near 'max(span_us)' 10000) FROM job_summary"
check "job summary bytes" "SELECT network_bytes = (SELECT coalesce(sum(size_bytes), 0) FROM flow WHERE job = 'j' AND transport = 'network') AND nvlink_bytes = (SELECT coalesce(sum(size_bytes), 0) FROM flow WHERE job = 'j' AND transport = 'nvlink') AND flows = (SELECT count(*) FROM flow WHERE job = 'j') FROM job_summary"
check "exposed per parallelism" "SELECT $(near exposed_tp_us 1000) AND $(near exposed_pp_us 1500) AND $(near exposed_dp_us 500) AND $(near exposed_ep_us 1500) AND $(near exposed_cp_us 500) AND $(near 'exposed_tp_us + exposed_pp_us + exposed_dp_us + exposed_ep_us + exposed_cp_us' exposed_comm_us) FROM iteration_breakdown"

# traffic_matrix: GPU names for GPU traffic, node names otherwise; every
# flow counts, finished or not (8 × 500 KB, 100 × 5 KB, 999 B + 10 kB).
check "traffic matrix" "SELECT group_concat(coalesce(job, '-') || ' ' || parallelism || ' ' || src || ' ' || dst || ' ' || flows || ' ' || bytes || ' ' || transport, ', ') = '- bg host2 host3 100 500000 network, j dp host0.gpu0 host1.gpu0 8 4000000 network, - micro host2 host3 2 10999 network, j tp host0.gpu0 host0.gpu1 4 2000000 nvlink' FROM (SELECT * FROM traffic_matrix ORDER BY parallelism)"

# pfc_pause_time: sw0:1 prio 3 paused [1,3] + [5,8] us = 5 us in 2 pauses,
# prio 4 [2,4] = 2 us; sw0:2 from 9 us to the end, 163.2 us: 154.2 us.
check "pause time sums intervals" "SELECT pauses = 2 AND $(near paused_us 5) AND $(near first_us 1) AND $(near last_us 8) AND kind = 'switch' FROM pfc_pause_time WHERE node = 'sw0' AND port = 1 AND priority = 3"
check "pause time per priority" "SELECT pauses = 1 AND $(near paused_us 2) FROM pfc_pause_time WHERE node = 'sw0' AND port = 1 AND priority = 4"
check "open pause counts to the end" "SELECT pauses = 1 AND $(near paused_us 154.2) AND $(near paused_frac '154.2 / 163.2') AND $(near last_us 163.2) FROM pfc_pause_time WHERE node = 'sw0' AND port = 2"
check "pause time equals the interval sum" "SELECT $(near '(SELECT sum(paused_us) FROM pfc_pause_time)' '(SELECT sum(coalesce(end_ps, 163200000) - start_ps) / 1e6 FROM pfc_pause)')"

# congested_ports: ranked by queue, then pause; sw0:3 sent 1 MB of frames in
# 1000 frames: (1e6 + 20·1000) B × 8 / 100 Gb/s = 81.6 us = half of 163.2 us.
check "congested ranking" "SELECT group_concat(node || ':' || port, ' ') = 'sw0:3 sw0:1 sw0:2 host2:0 sw0:0' FROM (SELECT * FROM congested_ports ORDER BY rank)"
check "utilisation from frame bytes" "SELECT $(near tx_util 0.5) AND peer = 'host3' AND $(near paused_us 0) FROM congested_ports WHERE rank = 1"
check "port_link both ends" "SELECT count(*) = 8 AND sum(rate_bps = 100000000000) = 8 FROM port_link"

# link_util_sample: 62500 B in 10 us at 100 Gb/s = 1/2, 125000 B = 1, 0.
check "sampled utilisation" "SELECT group_concat(t_us || '=' || util, ' ') = '10.0=0.5 20.0=1.0 30.0=0.0' FROM (SELECT * FROM link_util_sample ORDER BY t_us)"

# Databases written by sim carry the views.
if [ -x "$SIM" ]; then
	# A 16 MB ring all-reduce over 4 hosts of a 100 Gb/s star. Each host's
	# link carries, per 1024 B of payload it sends, a 1106 B frame (1082 B +
	# 24 B preamble/gap/FCS, docs/protocol.md "Frames on the wire") and the 86 B ACK of a packet it
	# receives: busbw cannot pass 100 Gb/s × 1024/1192 = 85.91 Gb/s, and a
	# ring keeps its links busy, so it comes within 3% of it.
	cat >"$tmp/ar.ini" <<-EOF
		[topology]
		type = star
		hosts = 4
		link_rate = 100Gbps
		link_delay = 1us
		[nic]
		cc = none
		[traffic.ar]
		type = collective
		op = allreduce
		algorithm = ring
		size = 16MB
	EOF
	db=$tmp/ar.db
	"$SIM" -q -o "$db" "$tmp/ar.ini" >/dev/null 2>"$tmp/stderr" || fail "sim ar.ini: exit $? $(cat "$tmp/stderr")"
	check "sim databases carry the views" "SELECT count(*) = 8 FROM sqlite_master WHERE type = 'view' AND name IN ('slowdown_by_size', 'iteration_breakdown', 'collective_busbw', 'traffic_matrix', 'pfc_pause_time', 'port_link', 'congested_ports', 'link_util_sample')"
	check "ring busbw under the link goodput" "SELECT busbw_Gbit_s <= 100.0 * 1024 / 1192 AND busbw_Gbit_s >= 0.97 * 100 * 1024 / 1192 AND busbw_factor = 1.5 FROM collective_busbw"
	check "traffic matrix is the ring" "SELECT count(*) = 4 AND sum(bytes) = (SELECT sum(size_bytes) FROM flow) FROM traffic_matrix"

	# Incast with PFC: percentiles equal the rank-ceil(p·n/100) value found
	# by sorting; pause time equals the interval sum; --append keeps runs apart.
	db=$tmp/incast.db
	"$SIM" -q -o "$db" "$SRCDIR/scenarios/incast_pfc.ini" >/dev/null 2>"$tmp/stderr" || fail "sim incast_pfc: exit $?"
	"$SIM" -q -o "$db" --append --set traffic.incast.size=500KB "$SRCDIR/scenarios/incast_pfc.ini" >/dev/null 2>"$tmp/stderr" ||
		fail "sim incast_pfc --append: exit $? $(cat "$tmp/stderr")"
	for r in 1 2; do
		for p in 50 95 99; do
			check "run $r p$p by sorting" "SELECT p$p = (SELECT slowdown FROM flow WHERE run_id = $r AND slowdown IS NOT NULL ORDER BY slowdown
			         LIMIT 1 OFFSET (SELECT ($p * count(slowdown) + 99) / 100 - 1 FROM flow WHERE run_id = $r)) FROM slowdown_by_size WHERE run_id = $r AND bucket = 'all'"
		done
		check "run $r pause time = interval sum" "SELECT $(near "(SELECT sum(paused_us) FROM pfc_pause_time WHERE run_id = $r)" "(SELECT sum(end_ps - start_ps) / 1e6 FROM pfc_pause WHERE run_id = $r)") AND (SELECT count(*) FROM pfc_pause WHERE run_id = $r) > 0"
	done

	# A job of tp 2 (GPUs of one host, NVLink) x pp 2 x dp 2 on 4 hosts of
	# 2 GPUs: a message rides NVLink exactly when its two GPUs share a host
	# (it then has no queue pair), and slowdown_by_size counts each
	# transport's finished flows apart. The iteration's parts add up.
	cat >"$tmp/job.ini" <<-EOF
		[topology]
		type = star
		hosts = 4
		gpus_per_host = 2
		link_rate = 100Gbps
		link_delay = 1us
		[job.gpt]
		model = custom
		layers = 4
		hidden = 256
		heads = 4
		vocab = 1000
		seq_len = 128
		global_batch = 8
		tp = 2
		pp = 2
		dp = 2
	EOF
	db=$tmp/job.db
	"$SIM" -q -o "$db" "$tmp/job.ini" >/dev/null 2>"$tmp/stderr" || fail "sim job.ini: exit $? $(cat "$tmp/stderr")"
	check "nvlink iff one host" "SELECT count(*) > 0 AND sum(transport = 'nvlink') > 0 AND sum(transport = 'network') > 0 AND sum((transport = 'nvlink') = (src = dst AND qpn IS NULL)) = count(*) FROM flow"
	for t in network nvlink; do
		check "$t flows counted apart" "SELECT flows = (SELECT count(slowdown) FROM flow WHERE transport = '$t') FROM slowdown_by_size WHERE transport = '$t' AND bucket = 'all'"
	done
	check "breakdown adds up" "SELECT count(*) = 1 AND $(near 'compute_us + bubble_us + exposed_comm_us' iter_us) AND $(near other_us 0) FROM iteration_breakdown"
else
	echo "views.sh: $SIM not built: sim-written databases not checked"
fi

echo "views.sh: $checks checks, $fails failed"
[ "$fails" = 0 ]
