-- indexes.sql — the indexes of the rocesim result database (schema.sql).
--
-- Built by the simulator when a run ends (results_finish), after the rows
-- are in: building an index over a finished table is a sort, while keeping
-- it current during the run costs a random B-tree insertion per row.
-- IF NOT EXISTS makes this a no-op on a database that already has them
-- (--append), where SQLite then maintains them row by row.

-- One row per (run, flow): the key users join on.
CREATE UNIQUE INDEX IF NOT EXISTS flow_key ON flow (run_id, flow_id);
-- Per-job and per-collective questions (iteration breakdowns, collective
-- completion) select flows by these; size-bucket percentiles scan a run.
CREATE INDEX IF NOT EXISTS flow_by_job ON flow (run_id, job, iteration);
CREATE INDEX IF NOT EXISTS flow_by_collective ON flow (run_id, collective_id);
-- Time series and intervals are read per port or per flow.
CREATE INDEX IF NOT EXISTS pfc_pause_by_port ON pfc_pause (run_id, node, port);
CREATE INDEX IF NOT EXISTS queue_sample_by_port ON queue_sample (run_id, node, port);
CREATE INDEX IF NOT EXISTS link_sample_by_port ON link_sample (run_id, node, port);
CREATE INDEX IF NOT EXISTS cc_sample_by_flow ON cc_sample (run_id, flow_id);
-- A job's compute timeline is read per iteration and worker.
CREATE INDEX IF NOT EXISTS compute_span_by_job ON compute_span (run_id, job, iteration, stage, dp_index);
