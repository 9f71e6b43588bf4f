-- views_fixture.sql — a hand-made result database for test/views.sh and
-- test/report.sh: rows chosen so every view of analysis/views.sql has a
-- closed-form answer (worked out in test/views.sh beside each check). Load
-- after analysis/schema.sql and analysis/views.sql.
--
-- One run of 163.2 us (sim_end_ps 163200000) on a star: host0..host3 on
-- sw0 ports 0..3, 100 Gb/s links of 1 us.
INSERT INTO run (run_id, scenario, config, seed, version, started_at, wall_s, sim_end_ps, events,
                 packets_sent, packets_delivered, packets_dropped, status)
VALUES (1, 'fixture.ini', '', 1, 'test', '2026-01-01T00:00:00Z', 0.5, 163200000, 1000, 10, 10, 0, 'complete');
INSERT INTO node (run_id, node_id, name, kind, tier) VALUES
	(1, 0, 'host0', 'host', 0), (1, 1, 'host1', 'host', 0), (1, 2, 'host2', 'host', 0),
	(1, 3, 'host3', 'host', 0), (1, 4, 'sw0', 'switch', 1),
	(1, 5, 'host0.gpu0', 'gpu', 0), (1, 6, 'host1.gpu0', 'gpu', 0);
INSERT INTO link (run_id, link_id, node_a, port_a, node_b, port_b, rate_bps, delay_ps) VALUES
	(1, 0, 0, 0, 4, 0, 100000000000, 1000000), (1, 1, 1, 0, 4, 1, 100000000000, 1000000),
	(1, 2, 2, 0, 4, 2, 100000000000, 1000000), (1, 3, 3, 0, 4, 3, 100000000000, 1000000);

-- Flows. Bucket 1KB-10KB: 100 flows of 5000 B with slowdowns 1..100, posted
-- in a scrambled order (k·37 mod 100 + 1 runs over 1..100 once); fct = 1 us
-- × slowdown, ideal 1 us. Bucket 100KB-1MB: 7 flows of 500000 B (500KB) with slowdowns
-- 1..7, plus one unfinished. Boundaries: 999 B is <1KB, 10000 B is
-- 10KB-100KB (lower bounds inclusive), one flow each with slowdown 2.
-- The 7 + 1 500KB flows are host0.gpu0 -> host1.gpu0 dp traffic of job j;
-- the rest are background host2 -> host3.
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 99)
INSERT INTO flow (run_id, flow_id, src, dst, size_bytes, start_ps, end_ps, recv_end_ps, fct_ps,
                  ideal_fct_ps, slowdown, parallelism)
SELECT 1, i, 'host2', 'host3', 5000, 0, (i * 37 % 100 + 1) * 1000000, (i * 37 % 100 + 1) * 1000000,
       (i * 37 % 100 + 1) * 1000000, 1000000, (i * 37 % 100 + 1) * 1.0, 'bg' FROM k;
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 7)
INSERT INTO flow (run_id, flow_id, src, dst, src_gpu, dst_gpu, size_bytes, start_ps, end_ps, recv_end_ps,
                  fct_ps, ideal_fct_ps, slowdown, job, iteration, collective_id, parallelism)
SELECT 1, 200 + i, 'host0', 'host1', 'host0.gpu0', 'host1.gpu0', 500000, 0, (8 - i) * 50000000,
       (8 - i) * 50000000, (8 - i) * 50000000, 50000000, (8 - i) * 1.0, 'j', 0, 1, 'dp' FROM k;
INSERT INTO flow (run_id, flow_id, src, dst, src_gpu, dst_gpu, size_bytes, start_ps, ideal_fct_ps,
                  job, iteration, collective_id, parallelism)
VALUES (1, 300, 'host0', 'host1', 'host0.gpu0', 'host1.gpu0', 500000, 100000000, 50000000, 'j', 0, 1, 'dp');
INSERT INTO flow (run_id, flow_id, src, dst, size_bytes, start_ps, end_ps, recv_end_ps, fct_ps,
                  ideal_fct_ps, slowdown, parallelism) VALUES
	(1, 400, 'host2', 'host3', 999, 0, 2000000, 2000000, 2000000, 1000000, 2.0, 'micro'),
	(1, 401, 'host2', 'host3', 10000, 0, 2000000, 2000000, 2000000, 1000000, 2.0, 'micro');
UPDATE flow SET transport = 'network';
-- NVLink: 4 tp messages of 500000 B host0.gpu0 -> host0.gpu1 of job j with
-- slowdowns 10, 20, 30, 40 (ideal 1 us). Their own rows of
-- slowdown_by_size; the network's figures above must not move.
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 4)
INSERT INTO flow (run_id, flow_id, src, dst, src_gpu, dst_gpu, size_bytes, start_ps, end_ps, recv_end_ps,
                  fct_ps, ideal_fct_ps, slowdown, job, iteration, parallelism, transport)
SELECT 1, 500 + i, 'host0', 'host0', 'host0.gpu0', 'host0.gpu1', 500000, 0, i * 10000000, i * 10000000,
       i * 10000000, 1000000, i * 10.0, 'j', 0, 'tp', 'nvlink' FROM k;

-- Collectives, each of 1 GB in 100 ms (algbw 10 GB/s), ideal 50 ms.
INSERT INTO collective (run_id, collective_id, job, iteration, parallelism, op, algorithm, group_size,
                        size_bytes, start_ps, end_ps, ideal_ps) VALUES
	(1, 1, 'j', 0, 'dp', 'allreduce', 'ring', 16, 1000000000, 0, 100000000000, 50000000000),
	(1, 2, 'j', 0, 'tp', 'allgather', 'ring', 4, 1000000000, 0, 100000000000, 50000000000),
	(1, 3, 'j', 0, 'ep', 'alltoall', 'direct', 8, 1000000000, 0, 100000000000, 50000000000),
	(1, 4, 'j', 0, 'dp', 'reduce_scatter', 'ring', 5, 1000000000, 0, 100000000000, 50000000000),
	(1, 5, 'j', 0, 'pp', 'sendrecv', 'ring', 2, 1000000000, 0, 100000000000, 50000000000),
	(1, 6, NULL, NULL, 'micro', 'broadcast', 'ring', 8, 1000000000, 0, 100000000000, 50000000000),
	(1, 7, 'j', 1, 'dp', 'allreduce', 'ring', 16, 1000000000, 100000000000, NULL, 50000000000);

-- Iterations: 10 ms with 4 ms of compute, 1 ms of bubble, 8 ms of
-- communication, 5 ms of it exposed (tp 1, pp 1.5, dp 0.5, ep 1.5, cp
-- 0.5); the second one unfinished.
INSERT INTO iteration (run_id, job, iteration, start_ps, end_ps, compute_ps, comm_ps, exposed_comm_ps,
                       bubble_ps, exposed_tp_ps, exposed_pp_ps, exposed_dp_ps, exposed_ep_ps, exposed_cp_ps) VALUES
	(1, 'j', 0, 0, 10000000000, 4000000000, 8000000000, 5000000000,
	 1000000000, 1000000000, 1500000000, 500000000, 1500000000, 500000000),
	(1, 'j', 1, 10000000000, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- Compute spans of job j's iteration 0: two stages, one micro-batch each
-- way (stage 0 forward [0,2] ms, stage 1 forward [2.5,4.5] and backward
-- [4.5,6.5] ms, stage 0 backward [7,9] ms, 1.5 ms of compute each).
INSERT INTO compute_span (run_id, job, iteration, stage, dp_index, gpu, micro_batch, kind, start_ps, end_ps,
                          compute_ps) VALUES
	(1, 'j', 0, 0, 0, 'host0.gpu0', 0, 'fwd', 0, 2000000000, 1500000000),
	(1, 'j', 0, 1, 0, 'host1.gpu0', 0, 'fwd', 2500000000, 4500000000, 1500000000),
	(1, 'j', 0, 1, 0, 'host1.gpu0', 0, 'bwd', 4500000000, 6500000000, 1500000000),
	(1, 'j', 0, 0, 0, 'host0.gpu0', 0, 'bwd', 7000000000, 9000000000, 1500000000);

-- PFC: sw0 port 1 paused at priority 3 during [1,3] and [5,8] us (5 us in 2
-- pauses) and at priority 4 during [2,4] us; sw0 port 2 from 9 us to the
-- end of the run (163.2 us: 154.2 us, still open).
INSERT INTO pfc_pause (run_id, node, port, priority, start_ps, end_ps) VALUES
	(1, 'sw0', 1, 3, 1000000, 3000000), (1, 'sw0', 1, 3, 5000000, 8000000),
	(1, 'sw0', 1, 4, 2000000, 4000000), (1, 'sw0', 2, 3, 9000000, NULL);

-- Port counters: sw0:3 sent 1 MB of frames in 1000 frames: with 20 B of
-- preamble and gap each, 1.02 MB × 8 / 100 Gb/s = 81.6 us, half the run.
-- Queue depths rank sw0:3 (900 KB), sw0:1 (500 KB, paused), host2:0 and
-- sw0:2 (both 100 KB: the longer pause first).
INSERT INTO port_stats (run_id, node, port, tx_bytes, tx_packets, rx_bytes, drops, ecn_marked,
                        pause_frames_tx, pause_frames_rx, paused_ps, max_queue_bytes) VALUES
	(1, 'sw0', 3, 1000000, 1000, 0, 0, 40, 0, 0, 0, 900000),
	(1, 'sw0', 1, 0, 0, 0, 0, 0, 0, 3, 5000000, 500000),
	(1, 'sw0', 2, 0, 0, 0, 0, 0, 0, 1, 154200000, 100000),
	(1, 'host2', 0, 0, 0, 0, 0, 0, 0, 0, 0, 100000),
	(1, 'sw0', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

-- Samples every 10 us at sw0:3: 62500 B in 10 us at 100 Gb/s is half the
-- line, 125000 B all of it.
INSERT INTO link_sample (run_id, node, port, t_ps, tx_bytes) VALUES
	(1, 'sw0', 3, 10000000, 62500), (1, 'sw0', 3, 20000000, 125000), (1, 'sw0', 3, 30000000, 0);
INSERT INTO queue_sample (run_id, node, port, t_ps, bytes) VALUES
	(1, 'sw0', 3, 10000000, 300000), (1, 'sw0', 3, 20000000, 900000), (1, 'sw0', 3, 30000000, 0),
	(1, 'sw0', 1, 10000000, 500000), (1, 'sw0', 1, 20000000, 0);

-- Failures: the link sw0:1 - host1 down during [10, 30] us, losing 50
-- frames, 13 of them data frames of four flows: 5, 3 and 4 of the dp
-- flows 201, 202 and 300 (unfinished) of collective 1, 1 of flow 400 (no
-- collective); sw0 down from 100 us for good, losing 7 control frames.
INSERT INTO failure (run_id, failure_id, kind, node_a, port_a, node_b, port_b, down_ps, up_ps,
                     detection_ps, random, frames_lost) VALUES
	(1, 1, 'link', 'sw0', 1, 'host1', 0, 10000000, 30000000, 50000000, 0, 50),
	(1, 2, 'switch', 'sw0', NULL, NULL, NULL, 100000000, NULL, 50000000, 0, 7);
INSERT INTO failure_flow (run_id, failure_id, flow_id, frames_lost) VALUES
	(1, 1, 201, 5), (1, 1, 202, 3), (1, 1, 300, 4), (1, 1, 400, 1);
