-- views.sql — the questions users ask of a rocesim result database, as views.
--
-- Compiled into the simulator after schema.sql (analysis/Makefile.inc), so
-- every result database carries them; `analysis/report` also loads this
-- file as TEMP views, so it reads databases written before a view existed
-- or changed, without writing to them. Every view keeps run_id: filter on it
-- when a database holds several runs (sim --append).
--
-- Conventions:
--   * Tables hold integer picoseconds; views give microseconds (*_us,
--     docs/scenario.md "Result vocabularies"): ps / 1e6.
--   * Percentiles are nearest-rank: the p-th percentile of n values is the
--     ceil(p·n/100)-th smallest (1-based), always one of the values, never
--     interpolated. ceil(p·n/100) is written (p·n + 99) / 100 in integer
--     arithmetic: SQLite 3.40 (Debian bookworm) has window functions but no
--     percentile() and, unless built with math functions, no ceil().
--   * Bandwidths follow nccl-tests doc/PERFORMANCE.md (docs/protocol.md
--     "Collectives"): GB/s are 1e9 bytes per second.
--   * Only finished rows enter times and percentiles (end_ps NOT NULL);
--     an interval still open when the run ended (pfc_pause.end_ps NULL)
--     counts up to run.sim_end_ps.
--
-- Plain SQL only (CTEs, window functions), valid on SQLite >= 3.25.

-- Flow-size buckets: decades of bytes (our choice). A bucket's flows are
-- within 10x of each other in size, so their ideal FCTs are comparable, a
-- "short flows" or "long flows" class of a paper is usually a union of
-- decades, and the workload-independent bounds let two runs be compared
-- bucket by bucket (buckets at percentiles of one workload's sizes would
-- move with the workload). Sizes are powers of 1000 as in scenario files (docs/scenario.md
-- "Values"): [0,1KB) [1KB,10KB) ... [100MB,∞). Training chunks (512 KiB)
-- land in 100KB-1MB. The row with bucket 'all' covers every finished flow
-- of its transport.
--
-- Network and NVLink messages are apart (flow.transport): an NVLink
-- message's slowdown measures how the host's NVLink fluid shared its rate,
-- not the fabric, and a training job's many tensor-parallel NVLink
-- messages would otherwise set the fabric's percentiles.
--
-- slowdown_by_size(run_id, transport, bucket, lo_bytes, hi_bytes, flows,
--   unfinished, p50, p95, p99, mean, max): per transport ('network',
--   'nvlink') and bucket: slowdown = fct_ps / ideal_fct_ps (>= 1),
--   nearest-rank percentiles over the bucket's finished flows; `unfinished`
--   counts the bucket's flows with no end (not in the percentiles); lo_bytes
--   <= size_bytes < hi_bytes (hi_bytes NULL: no upper bound; both NULL on
--   the 'all' row, so ORDER BY transport, lo_bytes lists it first). A
--   bucket with no finished flow has no row. The fabric's figures:
--   WHERE transport = 'network'.
CREATE VIEW IF NOT EXISTS slowdown_by_size AS
WITH sized AS (
	SELECT run_id, transport, slowdown,
	       CASE WHEN size_bytes < 1000 THEN 0
	            WHEN size_bytes < 10000 THEN 1
	            WHEN size_bytes < 100000 THEN 2
	            WHEN size_bytes < 1000000 THEN 3
	            WHEN size_bytes < 10000000 THEN 4
	            WHEN size_bytes < 100000000 THEN 5
	            ELSE 6 END AS b
	  FROM flow
), buckets(b, bucket, lo_bytes, hi_bytes) AS (
	VALUES (0, '<1KB', 0, 1000), (1, '1KB-10KB', 1000, 10000),
	       (2, '10KB-100KB', 10000, 100000), (3, '100KB-1MB', 100000, 1000000),
	       (4, '1MB-10MB', 1000000, 10000000), (5, '10MB-100MB', 10000000, 100000000),
	       (6, '>=100MB', 100000000, NULL), (-1, 'all', NULL, NULL)
), ranked AS (
	-- each finished flow's rank within its bucket (rn, of n) and within its transport (rn_all, of n_all)
	SELECT run_id, transport, b, slowdown,
	       row_number() OVER (PARTITION BY run_id, transport, b ORDER BY slowdown) AS rn,
	       count(*) OVER (PARTITION BY run_id, transport, b) AS n,
	       row_number() OVER (PARTITION BY run_id, transport ORDER BY slowdown) AS rn_all,
	       count(*) OVER (PARTITION BY run_id, transport) AS n_all
	  FROM sized WHERE slowdown IS NOT NULL
), pct AS (
	SELECT run_id, transport, b, max(n) AS flows,
	       max(CASE WHEN rn = (50 * n + 99) / 100 THEN slowdown END) AS p50,
	       max(CASE WHEN rn = (95 * n + 99) / 100 THEN slowdown END) AS p95,
	       max(CASE WHEN rn = (99 * n + 99) / 100 THEN slowdown END) AS p99,
	       avg(slowdown) AS mean, max(slowdown) AS max
	  FROM ranked GROUP BY run_id, transport, b
	UNION ALL
	SELECT run_id, transport, -1, max(n_all),
	       max(CASE WHEN rn_all = (50 * n_all + 99) / 100 THEN slowdown END),
	       max(CASE WHEN rn_all = (95 * n_all + 99) / 100 THEN slowdown END),
	       max(CASE WHEN rn_all = (99 * n_all + 99) / 100 THEN slowdown END),
	       avg(slowdown), max(slowdown)
	  FROM ranked GROUP BY run_id, transport
), open_ AS (
	SELECT run_id, transport, b, count(*) AS unfinished FROM sized WHERE slowdown IS NULL GROUP BY run_id, transport, b
	UNION ALL
	SELECT run_id, transport, -1, count(*) FROM sized WHERE slowdown IS NULL GROUP BY run_id, transport
)
SELECT p.run_id, p.transport, k.bucket, k.lo_bytes, k.hi_bytes, p.flows, coalesce(o.unfinished, 0) AS unfinished,
       p.p50, p.p95, p.p99, p.mean, p.max
  FROM pct p JOIN buckets k USING (b) LEFT JOIN open_ o USING (run_id, transport, b);

-- iteration_breakdown(run_id, job, iteration, start_us, iter_us,
--   compute_us, comm_us, exposed_comm_us, overlapped_comm_us, other_us,
--   exposed_frac, bubble_us, exposed_tp_us, exposed_pp_us, exposed_dp_us,
--   exposed_ep_us, exposed_cp_us, slow_us, critical_gpu): one row per finished
--   iteration of each job, split along its critical path (docs/protocol.md
--   "Iteration accounting"): iter_us = end − start = compute + bubble +
--   exposed + slow; slow_us the path's compute beyond the plan (slowed
--   GPUs), critical_gpu the GPU most of it came from; compute_us the
--   path's compute (at most the busiest stage's); bubble_us the rest of the
--   path's compute (pipeline fill and drain); exposed_X_us the path's
--   waits on parallelism X's communication, exposed_comm_us their sum;
--   comm_us GPU 0 of stage 0's communication, overlapped or not;
--   overlapped_comm_us = max(comm − exposed, 0); other_us = iter −
--   compute − bubble − exposed − slow: 0 (kept for queries written before the
--   split, when bubbles and network waits of other stages were all here);
--   exposed_frac = exposed / iter.
CREATE VIEW IF NOT EXISTS iteration_breakdown AS
SELECT run_id, job, iteration,
       start_ps / 1e6 AS start_us,
       (end_ps - start_ps) / 1e6 AS iter_us,
       compute_ps / 1e6 AS compute_us,
       comm_ps / 1e6 AS comm_us,
       exposed_comm_ps / 1e6 AS exposed_comm_us,
       max(comm_ps - exposed_comm_ps, 0) / 1e6 AS overlapped_comm_us,
       (end_ps - start_ps - compute_ps - coalesce(bubble_ps, 0) - exposed_comm_ps - coalesce(slow_ps, 0)) / 1e6
         AS other_us,
       exposed_comm_ps * 1.0 / (end_ps - start_ps) AS exposed_frac,
       bubble_ps / 1e6 AS bubble_us,
       exposed_tp_ps / 1e6 AS exposed_tp_us,
       exposed_pp_ps / 1e6 AS exposed_pp_us,
       exposed_dp_ps / 1e6 AS exposed_dp_us,
       exposed_ep_ps / 1e6 AS exposed_ep_us,
       exposed_cp_ps / 1e6 AS exposed_cp_us,
       coalesce(slow_ps, 0) / 1e6 AS slow_us,
       critical_gpu
  FROM iteration WHERE end_ps IS NOT NULL AND end_ps > start_ps;

-- job_summary(run_id, job, iterations, unfinished, mean_iter_us, max_iter_us,
--   mean_comm_us, mean_exposed_comm_us, span_us, network_bytes,
--   nvlink_bytes, flows, priority, hosts): one row per job, for jobs that
--   share a fabric to be read side by side: mean and longest time of its
--   finished iterations, mean communication time (GPU 0 of stage 0,
--   overlapped or not) and exposed communication per iteration, span_us
--   from its first iteration's start to its last finished one's end, the
--   bytes its messages moved over the network and over NVLink, its flow
--   count, the traffic class of its network flows (the smallest if
--   several) and how many hosts sent its network flows. A job's
--   slowdown next to running alone is mean_iter_us over the same
--   column of its solo run (analysis/report --solo).
CREATE VIEW IF NOT EXISTS job_summary AS
WITH it AS (
	SELECT run_id, job, count(end_ps) AS iterations, count(*) - count(end_ps) AS unfinished,
	       avg(CASE WHEN end_ps > start_ps THEN end_ps - start_ps END) / 1e6 AS mean_iter_us,
	       max(CASE WHEN end_ps > start_ps THEN end_ps - start_ps END) / 1e6 AS max_iter_us,
	       avg(CASE WHEN end_ps IS NOT NULL THEN comm_ps END) / 1e6 AS mean_comm_us,
	       avg(CASE WHEN end_ps IS NOT NULL THEN exposed_comm_ps END) / 1e6 AS mean_exposed_comm_us,
	       (max(end_ps) - min(start_ps)) / 1e6 AS span_us
	  FROM iteration GROUP BY run_id, job
), fl AS (
	SELECT run_id, job,
	       sum(CASE WHEN transport = 'network' THEN size_bytes ELSE 0 END) AS network_bytes,
	       sum(CASE WHEN transport = 'nvlink' THEN size_bytes ELSE 0 END) AS nvlink_bytes,
	       count(*) AS flows,
	       min(CASE WHEN transport = 'network' THEN priority END) AS priority,
	       count(DISTINCT CASE WHEN transport = 'network' THEN src END) AS hosts
	  FROM flow WHERE job IS NOT NULL GROUP BY run_id, job
)
SELECT it.run_id, it.job, it.iterations, it.unfinished, it.mean_iter_us, it.max_iter_us, it.mean_comm_us,
       it.mean_exposed_comm_us, it.span_us, coalesce(fl.network_bytes, 0) AS network_bytes,
       coalesce(fl.nvlink_bytes, 0) AS nvlink_bytes, coalesce(fl.flows, 0) AS flows, fl.priority,
       coalesce(fl.hosts, 0) AS hosts
  FROM it LEFT JOIN fl USING (run_id, job);

-- collective_busbw(run_id, collective_id, job, iteration, parallelism, op,
--   algorithm, group_size, size_bytes, time_us, ideal_us, algbw_GB_s,
--   busbw_factor, busbw_GB_s, busbw_Gbit_s, vs_ideal): one row per finished
--   collective, nccl-tests' convention (doc/PERFORMANCE.md): size_bytes is
--   nccl-tests' size (docs/scenario.md "Result vocabularies"), algbw = size / time,
--   busbw = algbw × factor with factor 2(n−1)/n for allreduce, (n−1)/n for
--   allgather, reduce_scatter and alltoall, 1 for broadcast and sendrecv
--   (n = group_size). busbw_Gbit_s is busbw in bits, to set beside a link
--   rate. vs_ideal = time / ideal (>= 1: how much the fabric stretched it).
CREATE VIEW IF NOT EXISTS collective_busbw AS
WITH c AS (
	SELECT *, CASE op
	          WHEN 'allreduce' THEN 2.0 * (group_size - 1) / group_size
	          WHEN 'allgather' THEN (group_size - 1) * 1.0 / group_size
	          WHEN 'reduce_scatter' THEN (group_size - 1) * 1.0 / group_size
	          WHEN 'alltoall' THEN (group_size - 1) * 1.0 / group_size
	          ELSE 1.0 END AS factor
	  FROM collective WHERE end_ps IS NOT NULL AND end_ps > start_ps
)
SELECT run_id, collective_id, job, iteration, parallelism, op, algorithm, group_size, size_bytes,
       (end_ps - start_ps) / 1e6 AS time_us,
       ideal_ps / 1e6 AS ideal_us,
       size_bytes * 1e3 / (end_ps - start_ps) AS algbw_GB_s,
       factor AS busbw_factor,
       size_bytes * 1e3 / (end_ps - start_ps) * factor AS busbw_GB_s,
       size_bytes * 8e3 / (end_ps - start_ps) * factor AS busbw_Gbit_s,
       (end_ps - start_ps) * 1.0 / ideal_ps AS vs_ideal
  FROM c;

-- traffic_matrix(run_id, job, parallelism, src, dst, flows, bytes,
--   transport): bytes posted per (sender, receiver) pair and parallelism,
--   finished or not. src/dst are GPU names ('host3.gpu5') for GPU traffic,
--   node names for the rest (background flows); job is NULL outside jobs;
--   transport is the pair's (GPUs of one host talk over NVLink, others over
--   the network).
CREATE VIEW IF NOT EXISTS traffic_matrix AS
SELECT run_id, job, parallelism, coalesce(src_gpu, src) AS src, coalesce(dst_gpu, dst) AS dst,
       count(*) AS flows, sum(size_bytes) AS bytes, transport
  FROM flow GROUP BY run_id, job, parallelism, coalesce(src_gpu, src), coalesce(dst_gpu, dst), transport;

-- pfc_pause_time(run_id, node, kind, port, priority, pauses, paused_us,
--   paused_frac, first_us, last_us): per paused egress (node, port) and
--   priority: the number of pfc_pause intervals, their total length (an
--   interval open at the end counts to run.sim_end_ps), that total as a
--   fraction of the run, and the first start and last end. kind is the
--   node's (switch, host: a host's NIC is paused by its ToR).
CREATE VIEW IF NOT EXISTS pfc_pause_time AS
SELECT p.run_id, p.node, n.kind, p.port, p.priority, count(*) AS pauses,
       sum(coalesce(p.end_ps, r.sim_end_ps) - p.start_ps) / 1e6 AS paused_us,
       sum(coalesce(p.end_ps, r.sim_end_ps) - p.start_ps) * 1.0 / nullif(r.sim_end_ps, 0) AS paused_frac,
       min(p.start_ps) / 1e6 AS first_us,
       max(coalesce(p.end_ps, r.sim_end_ps)) / 1e6 AS last_us
  FROM pfc_pause p JOIN run r USING (run_id)
  LEFT JOIN node n ON n.run_id = p.run_id AND n.name = p.node
 GROUP BY p.run_id, p.node, p.port, p.priority;

-- port_link(run_id, node, port, peer, peer_port, rate_bps, delay_ps): each
--   link seen from both of its ends, by node name: the rate of a port.
CREATE VIEW IF NOT EXISTS port_link AS
SELECT l.run_id, a.name AS node, l.port_a AS port, b.name AS peer, l.port_b AS peer_port, l.rate_bps, l.delay_ps
  FROM link l JOIN node a ON a.run_id = l.run_id AND a.node_id = l.node_a
              JOIN node b ON b.run_id = l.run_id AND b.node_id = l.node_b
UNION ALL
SELECT l.run_id, b.name, l.port_b, a.name, l.port_a, l.rate_bps, l.delay_ps
  FROM link l JOIN node a ON a.run_id = l.run_id AND a.node_id = l.node_a
              JOIN node b ON b.run_id = l.run_id AND b.node_id = l.node_b;

-- congested_ports(run_id, rank, node, port, peer, max_queue_bytes,
--   ecn_marked, drops, pause_frames_tx, pause_frames_rx, paused_us,
--   tx_util): every port, ranked within its run by its deepest egress queue,
--   then time paused, ECN marks and drops (rank 1 = most congested; ask
--   `WHERE rank <= 10 ORDER BY run_id, rank`). tx_util is the share of the
--   run's line time the port spent transmitting: (tx_bytes + 20 B of
--   preamble and inter-frame gap per frame) × 8 / rate / sim_end
--   (port_stats bytes include the FCS, docs/protocol.md "Frames on the wire").
CREATE VIEW IF NOT EXISTS congested_ports AS
SELECT s.run_id,
       row_number() OVER (PARTITION BY s.run_id
                          ORDER BY s.max_queue_bytes DESC, s.paused_ps DESC, s.ecn_marked DESC,
                                   s.drops DESC, s.node, s.port) AS rank,
       s.node, s.port, pl.peer, s.max_queue_bytes, s.ecn_marked, s.drops,
       s.pause_frames_tx, s.pause_frames_rx, s.paused_ps / 1e6 AS paused_us,
       (s.tx_bytes + 20.0 * s.tx_packets) * 8 * 1e12 / pl.rate_bps / nullif(r.sim_end_ps, 0) AS tx_util
  FROM port_stats s JOIN run r USING (run_id)
  LEFT JOIN port_link pl ON pl.run_id = s.run_id AND pl.node = s.node AND pl.port = s.port;

-- link_util_sample(run_id, node, port, t_us, util): link_sample as a
--   share of the line rate over each sampling interval (the time since the
--   port's previous sample, or since 0 for its first): tx_bytes × 8 / rate /
--   interval. Frame bytes as link_sample counts them (no preamble or gap).
--   Empty unless [output] link_sample_interval was set.
CREATE VIEW IF NOT EXISTS link_util_sample AS
SELECT s.run_id, s.node, s.port, s.t_ps / 1e6 AS t_us,
       s.tx_bytes * 8 * 1e12 / pl.rate_bps
         / nullif(s.t_ps - lag(s.t_ps, 1, 0) OVER (PARTITION BY s.run_id, s.node, s.port ORDER BY s.t_ps), 0)
         AS util
  FROM link_sample s LEFT JOIN port_link pl ON pl.run_id = s.run_id AND pl.node = s.node AND pl.port = s.port;

-- failure_impact(run_id, failure_id, kind, node_a, node_b, down_us, up_us,
--   frames_lost, flows_hit, flows_unfinished, data_frames_lost,
--   collectives_hit): each failure ([failure]) with what it touched: the
--   flows that lost data frames to it (failure_flow), how many of them
--   never finished (end_ps NULL), and the collectives those flows belong
--   to. up_us NULL: down for good.
CREATE VIEW IF NOT EXISTS failure_impact AS
SELECT f.run_id, f.failure_id, f.kind, f.node_a, f.node_b, f.down_ps / 1e6 AS down_us,
       f.up_ps / 1e6 AS up_us, f.frames_lost,
       count(ff.flow_id) AS flows_hit,
       count(ff.flow_id) - count(fl.end_ps) AS flows_unfinished,
       coalesce(sum(ff.frames_lost), 0) AS data_frames_lost,
       count(DISTINCT fl.collective_id) AS collectives_hit
  FROM failure f
  LEFT JOIN failure_flow ff ON ff.run_id = f.run_id AND ff.failure_id = f.failure_id
  LEFT JOIN flow fl ON fl.run_id = ff.run_id AND fl.flow_id = ff.flow_id
 GROUP BY f.run_id, f.failure_id;

-- failure_collective(run_id, failure_id, collective_id, job, iteration, op,
--   flows_hit, frames_lost, coll_us, ideal_us): the collectives a failure
--   touched (one of their flows lost data frames to it), with their time
--   (NULL when unfinished) against their time alone on the intact fabric.
CREATE VIEW IF NOT EXISTS failure_collective AS
SELECT ff.run_id, ff.failure_id, c.collective_id, c.job, c.iteration, c.op,
       count(*) AS flows_hit, sum(ff.frames_lost) AS frames_lost,
       (c.end_ps - c.start_ps) / 1e6 AS coll_us, c.ideal_ps / 1e6 AS ideal_us
  FROM failure_flow ff
  JOIN flow fl ON fl.run_id = ff.run_id AND fl.flow_id = ff.flow_id
  JOIN collective c ON c.run_id = fl.run_id AND c.collective_id = fl.collective_id
 GROUP BY ff.run_id, ff.failure_id, c.collective_id;
