"""api_python.py — python/rocesim.py (ctypes over librocesim) against batch runs of sim.

Run by test/api_python.sh with ROCESIM_LIBRARY, SIM, SRCDIR and a temporary
folder TMP. Checks, on test/api_fabric.ini (4 hosts x 2 GPUs, one switch):
  - an nccl-tests sweep of all-reduces over the 8 GPUs, 8 B doubling to
    256 KiB (the C test, test_api.c, covers up to 1 MiB; this one keeps the
    Python test short under ASan), each posted when the previous one
    completed at the start times of a batch run's [traffic] collective
    sections: every completion time equals the batch collective.end_ps;
  - a data-parallel job (dp 8, zero 0, 3 iterations, 3 gradient buckets)
    emulated step by step from its plan (Fabric.job_dp_plan): compute, the
    buckets' all-reduces (each chained after the previous, after=TAG), the
    optimizer step; the iteration start/end times equal the batch
    iteration rows;
  - posting in the past and advancing backwards raise RocesimError 'past'
    and change nothing; close writes a database whose run row is complete.
Exits 1 on the first failed check (printing it), 0 when all pass.
"""
import os
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.environ["SRCDIR"], "python"))
import rocesim  # noqa: E402

SIM = os.environ["SIM"]
FABRIC = os.path.join(os.environ["SRCDIR"], "test", "api_fabric.ini")
TMP = os.environ["TMP"]
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)


def batch(sets, db):
    args = [SIM, FABRIC, "-q", "-o", db]
    for s in sets:
        args += ["--set", s]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return sqlite3.connect(db)


def sweep():
    sizes, starts, t, s = [], [], 0, 8
    while s <= 256 * 1024:
        sizes.append(s)
        starts.append(t)
        t += 50_000_000 + 4 * 2 * s * 80  # far above its time: 80 ps a byte at 100 Gb/s
        s *= 2
    sets = []
    for i, (s, t) in enumerate(zip(sizes, starts)):
        sec = "traffic.s%02d" % i
        sets += ["%s.type=collective" % sec, "%s.op=allreduce" % sec, "%s.algorithm=ring" % sec,
                 "%s.size=%dB" % (sec, s), "%s.start=%dps" % (sec, t)]
    db = batch(sets, os.path.join(TMP, "sweep.db"))
    ends = [r[0] for r in db.execute("SELECT end_ps FROM collective ORDER BY start_ps")]
    check(len(ends) == len(sizes), "batch sweep rows")
    same = 0
    with rocesim.Fabric(FABRIC) as f:
        gpus = [f.endpoint("host%d.gpu%d" % (g // 2, g % 2)) for g in range(8)]
        for i, (s, t) in enumerate(zip(sizes, starts)):
            f.post_coll("allreduce", gpus, s, t, tag=i, algorithm="ring")
            c = f.next()
            check(c.tag == i and c.kind == "coll" and c.bytes == s, "completion %d: %r" % (i, c))
            same += c.time_ps == ends[i]
            if c.time_ps != ends[i]:
                print("  %d B: API %d ps, batch %d ps" % (s, c.time_ps, ends[i]))
    check(same == len(sizes), "sweep: %d of %d completion times equal the batch run's" % (same, len(sizes)))
    print("sweep: %d sizes, 8 B .. %d B, %d completion times equal the batch run's" % (len(sizes), sizes[-1], same))


def dp_job():
    job = ["job.dp.model=custom", "job.dp.layers=2", "job.dp.hidden=256", "job.dp.heads=4", "job.dp.vocab=1000",
           "job.dp.seq_len=128", "job.dp.global_batch=16", "job.dp.dp=8", "job.dp.iterations=3",
           "job.dp.dp_bucket=600000"]
    db = batch(job, os.path.join(TMP, "dp.db"))
    rows = db.execute("SELECT start_ps, end_ps FROM iteration WHERE job = 'dp' ORDER BY iteration").fetchall()
    with rocesim.Fabric(FABRIC, sets=job) as f:
        plan = f.job_dp_plan("dp")
    check(plan.iterations == 3 and len(plan.gpus) == 8 and len(plan.bucket_bytes) == 3, "plan %r" % (plan,))
    got = []
    with rocesim.Fabric(FABRIC) as f:
        f.coll_options(plan.chunk_bytes, plan.channels)
        t = plan.start_ps
        for it in range(plan.iterations):
            start = t                                     # the driver's forward and backward, then
            for b, size in enumerate(plan.bucket_bytes):  # rocesim's gradient all-reduces, one after another
                tag = 100 * it + b
                if b == 0:
                    f.post_coll("allreduce", plan.gpus, size, t + plan.compute_ps, tag=tag, algorithm=plan.algorithm)
                else:
                    f.post_coll("allreduce", plan.gpus, size, tag=tag, algorithm=plan.algorithm, after=tag - 1)
            for b in range(len(plan.bucket_bytes)):
                c = f.next()
                check(c.tag == 100 * it + b, "bucket order %r" % (c,))
            t = c.time_ps + plan.optimizer_ps             # the driver's optimizer step
            got.append((start, t))
    check(got == rows, "dp job: emulated %r, batch %r" % (got, rows))
    print("dp job: %d iterations, emulated %r, batch %r" % (len(got), got, rows))


def errors():
    db = os.path.join(TMP, "errors.db")
    f = rocesim.Fabric(FABRIC, output=db)
    f.advance(5_000_000)
    for what, call in (("post in the past", lambda: f.post_msg("host0.gpu0", "host1.gpu0", 1000, 4_999_999, 1)),
                       ("advance backwards", lambda: f.advance(4_000_000))):
        try:
            call()
            check(False, what + " was accepted")
        except rocesim.RocesimError as e:
            check(e.code == "past", "%s: %s" % (what, e))
    check(f.now == 5_000_000 and f.pending == 0, "nothing changed")
    try:
        f.endpoint("host9.gpu0")
        check(False, "unknown GPU accepted")
    except rocesim.RocesimError as e:
        check(e.code == "name", "unknown GPU: %s" % e)
    try:
        f.post_coll("allreduse", [0, 1], 100, 5_000_000, 1)
        check(False, "bad op accepted")
    except rocesim.RocesimError as e:
        check(e.code == "arg" and "allreduce" in e.message, "bad op: %s" % e)
    f.post_msg("host0.gpu0", "host3.gpu1", 100000, 6_000_000, 7)
    c = f.next()
    check(c.tag == 7 and c.time_ps > 6_000_000, "message completion %r" % (c,))
    check(f.close() == "complete", "status")
    row = sqlite3.connect(db).execute("SELECT status, events > 0, wall_s IS NOT NULL FROM run").fetchall()
    check(row == [("complete", 1, 1)], "run row %r" % (row,))
    try:
        rocesim.Fabric(os.path.join(TMP, "missing.ini"))
        check(False, "a missing scenario opened")
    except rocesim.RocesimError as e:
        check(e.code == "input" and "missing.ini" in e.message, "missing scenario: %s" % e)
    print("errors: past, backwards, names, ops; close wrote a complete run row")


sweep()
dp_job()
errors()
sys.exit(1 if failures else 0)
