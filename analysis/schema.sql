-- schema.sql — the rocesim result database (how a run writes it:
-- docs/scenario.md "How a run writes its database"; vocabularies:
-- docs/scenario.md "Result vocabularies").
--
-- This file is our public contract with everyone who queries results: its
-- table and column names are fixed (columns or tables may be added when a
-- model needs them, never renamed). It is compiled into the simulator
-- (models/run/schema_sql.c is generated from it at build time) and installed
-- beside the binary for reference.
--
-- Conventions:
--   * Every table has run_id (the run's row in `run`); the first run of a
--     new database is run_id 1, `sim --append` adds run_id = max + 1.
--   * Times are integer picoseconds, in columns named *_ps. Rates are bits
--     per second (*_bps); sizes are bytes (*_bytes, bytes).
--   * Nodes are named as everywhere else in rocesim ('host3', 'host3.gpu5',
--     'tor0', 'sw1'); `node` maps those names to the numeric node_id that
--     `link` uses.
--   * NULL means "not applicable" or "did not happen before the run ended"
--     (an unfinished flow's end times, a flow that belongs to no job).
--   * Every statement is IF NOT EXISTS so the same text runs against an
--     existing database when appending a run.
--
-- Indexes live in analysis/indexes.sql: they are built when a run ends,
-- which is several times faster than keeping them up to date row by row
-- while a million flows arrive in completion order. Views (times in
-- microseconds, percentiles, breakdowns) live in analysis/views.sql:
-- slowdown_by_size, iteration_breakdown, collective_busbw, traffic_matrix,
-- pfc_pause_time, port_link, congested_ports, link_util_sample, failure_impact,
-- failure_collective.

-- One row per simulation run. Inserted with status 'running' before the
-- simulation starts; counters and the final status are written last, so a
-- run that never finished is visible as such.
CREATE TABLE IF NOT EXISTS run (
	run_id            INTEGER PRIMARY KEY,   -- 1, 2, ... in order of start
	scenario          TEXT NOT NULL,         -- scenario path as given on the command line
	config            TEXT,                  -- fully resolved scenario text (defaults filled, --set applied)
	seed              INTEGER,               -- [simulation] seed
	version           TEXT,                  -- rocesim version that wrote the run
	started_at        TEXT,                  -- wall-clock start, ISO-8601 UTC ('2024-05-01T12:00:00Z')
	wall_s            REAL,                  -- wall-clock duration of the run, seconds
	sim_end_ps        INTEGER,               -- simulated time when the run ended, ps
	events            INTEGER,               -- events executed
	packets_sent      INTEGER,               -- data packets NICs put on the wire (retransmissions included)
	packets_delivered INTEGER,               -- data packets that reached their receiving NIC (duplicates and out-of-order ones included)
	packets_dropped   INTEGER,               -- data packets lost in the network (switch or NIC buffer, corrupted on a lossy link); sent = delivered + dropped once drained
	                                         -- (sent = delivered + dropped + in flight when the run ended)
	status            TEXT NOT NULL,         -- running | complete | stopped | interrupted | deadlock | stalled | failed
	ranks             INTEGER DEFAULT 1,     -- MPI ranks that ran it (1: sequential; docs/parallel.md)
	partition         TEXT,                  -- with ranks > 1: the partition ('pod: 48 cut links, lookahead 1000000 ps'), or why rank 0 ran alone
	rank_events       TEXT,                  -- with ranks > 1: each rank's events, 'e0,e1,...' (their sum is events)
	sweep             TEXT                   -- sim --sweep: the point's swept values, 'section.key=value' joined by
	                                         -- spaces in --sweep order ('traffic.ws.load=0.5 nic.cc=dcqcn'); NULL outside a sweep
);

-- A partitioned run: each rank's share of the work and of the waiting
-- (docs/parallel.md). No rows for a sequential run.
CREATE TABLE IF NOT EXISTS run_rank (
	run_id         INTEGER NOT NULL,   -- run.run_id
	rank           INTEGER NOT NULL,   -- MPI rank
	events         INTEGER NOT NULL,   -- events it ran (those of elements every rank runs counted on rank 0)
	foreign_events INTEGER NOT NULL,   -- events of elements another rank owns: always 0 (else a bug, warned)
	windows        INTEGER NOT NULL,   -- synchronisation windows
	frames_out     INTEGER NOT NULL,   -- frames it sent over cut links
	bytes_out      INTEGER NOT NULL,   -- their bytes as messages
	copies_made    INTEGER NOT NULL,   -- records of other ranks' messages it copied, to carry their frames
	copies_held    INTEGER NOT NULL,   -- of those, still held at the end: a message's copies go when it ends, unless frames of it were sent twice
	ports_built    INTEGER NOT NULL,   -- ports it built and holds: its nodes' ports and the far end of each of its cut links (sim --check's "builds N ports")
	busy_s         REAL,               -- wall seconds running events, and writing result rows while at a boundary
	wait_s         REAL,               -- wall seconds at window boundaries (MPI_Iallgather) not writing rows: waiting for the slowest rank
	trade_s        REAL,               -- wall seconds trading frames as MPI messages (MPI_Alltoallv); through shared memory the writing is in busy_s, the reading in land_s
	land_s         REAL,               -- wall seconds putting received frames on their links
	PRIMARY KEY (run_id, rank)
);

-- Every node of the built world.
CREATE TABLE IF NOT EXISTS node (
	run_id  INTEGER NOT NULL,   -- run.run_id
	node_id INTEGER NOT NULL,   -- numeric id, as used by link.node_a/node_b
	name    TEXT NOT NULL,      -- stable name: 'host0', 'host3.gpu5', 'tor0', 'spine1'
	kind    TEXT NOT NULL,      -- host | gpu | switch | nvswitch
	tier    INTEGER,            -- 0 for hosts and GPUs, then 1 (ToR/leaf), 2 (agg/spine), 3 (core)
	PRIMARY KEY (run_id, node_id),
	UNIQUE (run_id, name)
);

-- Every (full-duplex) link of the built world, once.
CREATE TABLE IF NOT EXISTS link (
	run_id   INTEGER NOT NULL,  -- run.run_id
	link_id  INTEGER NOT NULL,  -- numeric id of the link
	node_a   INTEGER NOT NULL,  -- node.node_id of one end
	port_a   INTEGER NOT NULL,  -- port number on node_a
	node_b   INTEGER NOT NULL,  -- node.node_id of the other end
	port_b   INTEGER NOT NULL,  -- port number on node_b
	rate_bps INTEGER NOT NULL,  -- line rate, bits/s, each direction
	delay_ps INTEGER NOT NULL,  -- propagation delay, ps
	PRIMARY KEY (run_id, link_id)
);

-- One row per message (an RDMA send of size_bytes over one QP). Rows are
-- committed in batches as flows finish; flows unfinished when the run stops
-- are written at the end with NULL end times.
CREATE TABLE IF NOT EXISTS flow (
	run_id        INTEGER NOT NULL,  -- run.run_id
	flow_id       INTEGER NOT NULL,  -- unique within the run
	src           TEXT NOT NULL,     -- sending node name ('host3')
	dst           TEXT NOT NULL,     -- receiving node name
	src_gpu       TEXT,              -- sending GPU ('host3.gpu5'); NULL when not a GPU's traffic
	dst_gpu       TEXT,              -- receiving GPU; NULL when not a GPU's traffic
	qpn           INTEGER,           -- queue pair number at the sender; NULL on NVLink
	sport         INTEGER,           -- UDP source port (the ECMP entropy); NULL on NVLink
	priority      INTEGER,           -- traffic class / PFC priority 0-7; NULL on NVLink
	size_bytes    INTEGER NOT NULL,  -- message payload, bytes
	start_ps      INTEGER NOT NULL,  -- when the message was posted, ps
	end_ps        INTEGER,           -- sender saw its last byte acknowledged (send completion), ps; NULL if unfinished
	recv_end_ps   INTEGER,           -- last byte reached the receiver, ps; NULL if unfinished
	fct_ps        INTEGER,           -- end_ps - start_ps; NULL if unfinished
	ideal_fct_ps  INTEGER,           -- FCT of the same message alone on the idle fabric, ACK return included, ps
	slowdown      REAL,              -- fct_ps / ideal_fct_ps (>= 1 up to rounding); NULL if unfinished
	packets       INTEGER,           -- data packets of the message (MTU segments); NULL on NVLink
	retx_packets  INTEGER,           -- data packets sent again (go-back-N, selective repeat or timeout)
	ecn_marked    INTEGER,           -- data packets that arrived CE-marked before the message was whole at the receiver
	cnp_received  INTEGER,           -- CNPs the sender received for this flow
	source        TEXT,              -- the scenario section that made it ('job.moe', 'traffic.ws')
	job           TEXT,              -- job name ('moe'); NULL when not a job's traffic
	iteration     INTEGER,           -- training iteration (0-based); NULL when not a job's
	collective_id INTEGER,           -- collective.collective_id it belongs to; NULL when none
	parallelism   TEXT,              -- dp | tp | pp | ep | cp (job traffic) | bg (poisson) | micro (other traffic)
	transport     TEXT               -- network (RDMA over the fabric) | nvlink (between GPUs of one host)
);
-- (run_id, flow_id) is unique: the index flow_key of analysis/indexes.sql.

-- One row per collective operation (a job's or a [traffic] collective's).
CREATE TABLE IF NOT EXISTS collective (
	run_id        INTEGER NOT NULL,  -- run.run_id
	collective_id INTEGER NOT NULL,  -- unique within the run; flow.collective_id
	job           TEXT,              -- job name; NULL for a bare [traffic] collective
	iteration     INTEGER,           -- training iteration; NULL when not a job's
	parallelism   TEXT,              -- dp | tp | pp | ep | cp | micro
	op            TEXT NOT NULL,     -- allreduce | reduce_scatter | allgather | alltoall | broadcast | sendrecv
	algorithm     TEXT,              -- ring | halving_doubling | tree | multicast | direct
	group_size    INTEGER,           -- ranks taking part
	size_bytes    INTEGER,           -- as nccl-tests counts it (docs/scenario.md "Result vocabularies")
	start_ps      INTEGER,           -- its first message was posted, ps
	end_ps        INTEGER,           -- its last message completed, ps; NULL if unfinished
	ideal_ps      INTEGER,           -- its duration alone on the idle fabric, ps
	PRIMARY KEY (run_id, collective_id)
);

-- One row per training iteration of each job. compute_ps, bubble_ps and
-- the exposed_*_ps columns and slow_ps split the iteration's critical path
-- (the chain of compute steps, collectives and sends, each starting when
-- the last thing it waited for ended, that ends last): they add up to
-- end − start
-- (docs/protocol.md "Iteration accounting"). An iteration cut short by
-- [simulation] stop has end_ps NULL and splits the longest chain done by
-- then (at most stop − start).
CREATE TABLE IF NOT EXISTS iteration (
	run_id          INTEGER NOT NULL,  -- run.run_id
	job             TEXT NOT NULL,     -- job name
	iteration       INTEGER NOT NULL,  -- 0-based
	start_ps        INTEGER,           -- iteration began, ps
	end_ps          INTEGER,           -- iteration ended (last GPU done), ps; NULL if unfinished
	compute_ps      INTEGER,           -- compute on the critical path, at most the busiest pipeline stage's
	                                   -- (per step, its slowest data-parallel GPU), ps
	comm_ps         INTEGER,           -- communication time of GPU 0 of stage 0, overlapped or not, ps
	exposed_comm_ps INTEGER,           -- communication on the critical path (sum of exposed_*_ps), ps
	bubble_ps       INTEGER,           -- the rest of the path's compute: the busiest stage idle while
	                                   -- other pipeline stages compute (fill and drain), ps
	exposed_tp_ps   INTEGER,           -- tensor-parallel collectives on the critical path, ps
	exposed_pp_ps   INTEGER,           -- sends between pipeline stages on the critical path, ps
	exposed_dp_ps   INTEGER,           -- gradient reductions, parameter gathers (ZeRO) and the tied
	                                   -- embedding all-reduce on the critical path, ps
	exposed_ep_ps   INTEGER,           -- expert all-to-alls on the critical path, ps
	exposed_cp_ps   INTEGER,           -- ring-attention KV sends (context parallelism) on the critical path, ps
	slow_ps         INTEGER,           -- compute on the critical path beyond the plan: time lost to slowed
	                                   -- GPUs ([job.NAME] slow, slow_random), ps
	critical_gpu    TEXT,              -- the GPU whose slow-down put the most of slow_ps on the path
	                                   -- ('host3.gpu1'); NULL when slow_ps is 0
	PRIMARY KEY (run_id, job, iteration)
);

-- One row per compute span of each worker (a tensor-parallel group, whose
-- GPUs compute in lock step) and iteration: the compute steps of one
-- micro-batch's forward or backward pass through its pipeline stage (with
-- interleaved 1F1B, through one of its model chunks: v rows per
-- micro-batch and direction), with the blocking collectives between them
-- (tensor-parallel, expert all-to-alls, ZeRO-3 gathers, ring-attention
-- waits) inside the span; and the optimizer step, once per worker.
CREATE TABLE IF NOT EXISTS compute_span (
	run_id      INTEGER NOT NULL,  -- run.run_id
	job         TEXT NOT NULL,     -- job name
	iteration   INTEGER NOT NULL,  -- 0-based
	stage       INTEGER NOT NULL,  -- pipeline stage (0-based)
	dp_index    INTEGER NOT NULL,  -- data-parallel index of the worker (0-based)
	gpu         TEXT NOT NULL,     -- the worker's tensor-parallel rank 0 ('host3.gpu5')
	micro_batch INTEGER,           -- micro-batch (0-based); NULL for the optimizer step
	kind        TEXT NOT NULL,     -- fwd | bwd | optimizer
	start_ps    INTEGER NOT NULL,  -- its first compute step began, ps
	end_ps      INTEGER NOT NULL,  -- its last compute step ended, ps
	compute_ps  INTEGER NOT NULL   -- compute within [start, end] (the rest: blocking collectives), ps
);

-- Intervals during which an egress queue was paused by PFC.
CREATE TABLE IF NOT EXISTS pfc_pause (
	run_id   INTEGER NOT NULL,  -- run.run_id
	node     TEXT NOT NULL,     -- node name of the paused egress
	port     INTEGER NOT NULL,  -- its port number
	priority INTEGER NOT NULL,  -- paused priority 0-7
	start_ps INTEGER NOT NULL,  -- pause began, ps
	end_ps   INTEGER            -- pause ended, ps; NULL if still paused when the run ended
);

-- Link and switch failures ([failure]): one row per failure interval.
-- While down, frames put on the link (either direction) or on the wire
-- when it failed are lost; routing drops the link detection_ps after
-- down_ps and restores it detection_ps after up_ps.
CREATE TABLE IF NOT EXISTS failure (
	run_id       INTEGER NOT NULL,  -- run.run_id
	failure_id   INTEGER NOT NULL,  -- 1, 2, ...: scheduled links, switches, then random ones
	kind         TEXT NOT NULL,     -- 'link' or 'switch' (every link of the switch)
	node_a       TEXT NOT NULL,     -- link: the first end; switch: the switch
	port_a       INTEGER,           -- its port; NULL for a switch
	node_b       TEXT,              -- link: the other end; NULL for a switch
	port_b       INTEGER,           -- its port; NULL for a switch
	down_ps      INTEGER NOT NULL,  -- went down, ps
	up_ps        INTEGER,           -- came back, ps; NULL: down for good
	detection_ps INTEGER NOT NULL,  -- [failure] detection: delay of routing's reaction
	random       INTEGER NOT NULL,  -- 1: drawn from [failure] mtbf/mttr
	frames_lost  INTEGER NOT NULL   -- frames (data and control) lost on its links, or dropped
	                                -- at a switch left without a route after its detection
);

-- Data frames of each flow that a failure lost (only flows that lost any).
CREATE TABLE IF NOT EXISTS failure_flow (
	run_id      INTEGER NOT NULL,   -- run.run_id
	failure_id  INTEGER NOT NULL,   -- failure.failure_id
	flow_id     INTEGER NOT NULL,   -- flow.flow_id
	frames_lost INTEGER NOT NULL    -- its data frames (first sends and retransmissions) lost
);

-- Counters of every port of every node (hosts included), at the end of the run.
CREATE TABLE IF NOT EXISTS port_stats (
	run_id          INTEGER NOT NULL,  -- run.run_id
	node            TEXT NOT NULL,     -- node name
	port            INTEGER NOT NULL,  -- port number
	tx_bytes        INTEGER,           -- frame bytes sent (headers, ICRC, FCS; no preamble or gap)
	tx_packets      INTEGER,           -- frames put on the link, data and control
	rx_bytes        INTEGER,           -- frame bytes received (corrupted frames included)
	drops           INTEGER,           -- packets dropped at this port
	ecn_marked      INTEGER,           -- packets CE-marked at this egress
	pause_frames_tx INTEGER,           -- PFC frames sent
	pause_frames_rx INTEGER,           -- PFC frames received
	paused_ps       INTEGER,           -- total time this egress was paused (any priority), ps
	max_queue_bytes INTEGER,           -- largest egress queue seen, bytes
	rx_corrupt      INTEGER,           -- frames (any kind: data, ACK/NAK, CNP, PFC) that landed here corrupted by a lossy link ([failure] loss) and were dropped by the FCS/ICRC check
	PRIMARY KEY (run_id, node, port)
);

-- Multicast groups and the trees built for them.
CREATE TABLE IF NOT EXISTS multicast_group (
	run_id     INTEGER NOT NULL,  -- run.run_id
	group_id   INTEGER NOT NULL,  -- numeric id within the run
	name       TEXT NOT NULL,     -- group name ([multicast] group = NAME ...)
	source     TEXT,              -- source node name
	members    INTEGER,           -- number of destinations
	tree_links INTEGER,           -- links in the distribution tree
	PRIMARY KEY (run_id, group_id)
);

-- PFC deadlocks found: each cycle of paused ports, one row per port.
CREATE TABLE IF NOT EXISTS deadlock (
	run_id   INTEGER NOT NULL,  -- run.run_id
	cycle    INTEGER NOT NULL,  -- cycle number within the run (0-based)
	position INTEGER NOT NULL,  -- position of this port along the cycle (0-based)
	node     TEXT NOT NULL,     -- node name
	port     INTEGER NOT NULL,  -- paused egress port
	priority INTEGER NOT NULL,  -- paused priority
	PRIMARY KEY (run_id, cycle, position)
);

-- Sampled egress queue depth ([output] queue_sample_interval).
CREATE TABLE IF NOT EXISTS queue_sample (
	run_id INTEGER NOT NULL,  -- run.run_id
	node   TEXT NOT NULL,     -- node name
	port   INTEGER NOT NULL,  -- egress port
	t_ps   INTEGER NOT NULL,  -- sample time, ps
	bytes  INTEGER NOT NULL   -- bytes queued at that egress
);

-- Sampled link transmission ([output] link_sample_interval).
CREATE TABLE IF NOT EXISTS link_sample (
	run_id   INTEGER NOT NULL,  -- run.run_id
	node     TEXT NOT NULL,     -- node name
	port     INTEGER NOT NULL,  -- egress port
	t_ps     INTEGER NOT NULL,  -- sample time (end of the interval), ps
	tx_bytes INTEGER NOT NULL   -- frame bytes sent during the interval ending at t_ps
);

-- Sampled congestion-control state per flow ([output] cc_sample_interval).
CREATE TABLE IF NOT EXISTS cc_sample (
	run_id     INTEGER NOT NULL,  -- run.run_id
	flow_id    INTEGER NOT NULL,  -- flow.flow_id
	t_ps       INTEGER NOT NULL,  -- sample time, ps
	rate_bps   INTEGER,           -- current sending rate, bits/s
	target_bps INTEGER,           -- target rate (DCQCN), bits/s; NULL: the controller keeps none
	alpha      REAL,              -- congestion estimate alpha, 0-1 (DCQCN, DCTCP); NULL: none kept
	window_b   INTEGER,           -- the controller's window of unacknowledged bytes (Swift, HPCC); NULL: none
	rtt_ps     INTEGER,           -- its latest or smoothed RTT, ps (delay-based controllers); NULL: none
	util       REAL               -- HPCC's normalised inflight estimate U; NULL: none
);

-- The path each flow took ([output] flow_paths = on): one row per hop.
CREATE TABLE IF NOT EXISTS flow_path (
	run_id  INTEGER NOT NULL,  -- run.run_id
	flow_id INTEGER NOT NULL,  -- flow.flow_id
	hop     INTEGER NOT NULL,  -- 0 = the sender's NIC, then each switch in order
	node    TEXT NOT NULL,     -- node name
	port    INTEGER NOT NULL,  -- egress port taken at that node
	PRIMARY KEY (run_id, flow_id, hop)
);
