/*
 * rocesim.h — librocesim: the rocesim packet-level simulator as a library
 * (docs/library.md). A driver (an emulator, a system-level simulator, a
 * script through python/rocesim.py) opens a fabric from a scenario file,
 * posts messages and collectives at simulated times, moves the clock and
 * collects completions; rocesim answers with the times its packet-level
 * model of the fabric gives.
 *
 * Contract:
 *   - Time is int64_t picoseconds and never goes backwards: posting at a
 *     time before rocesim_now, or advancing to one, is ROCESIM_E_PAST and
 *     changes nothing.
 *   - Messages and collectives go through the same code as a scenario's
 *     [traffic] sections (msg/flow posting, the collective engine), so a
 *     post at time t gives exactly what a [traffic.X] section starting at t
 *     gives in a batch run of `sim`.
 *   - A completion is reported once: a message when its last byte reached
 *     the destination (what a receiver waiting for it sees), a collective
 *     when its last message did. Completions come out in simulated-time
 *     order (ties in the order the events ran).
 *   - Errors are return codes (< 0) with a message (rocesim_last_error);
 *     the library never exits the process on bad input and installs no
 *     signal handler. An internal bug (a broken invariant) still aborts.
 *   - Not thread-safe: one thread at a time per handle. Handles are
 *     independent, but only the most recently opened one's temporary
 *     database is removed if the process dies of an internal failure.
 * Names exported by the shared library all begin with rocesim_.
 */
#ifndef ROCESIM_H
#define ROCESIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ROCESIM_API __attribute__((visibility("default")))
#else
#define ROCESIM_API
#endif

/* An open fabric with its clock, its posted work and its completions. */
typedef struct rocesim rocesim;

enum rocesim_rc {
	ROCESIM_OK = 0,
	ROCESIM_E_INPUT = -1,    /* the scenario or an override is bad (rocesim_open) */
	ROCESIM_E_PAST = -2,     /* a time before rocesim_now */
	ROCESIM_E_NAME = -3,     /* an unknown GPU, host or job */
	ROCESIM_E_ARG = -4,      /* a bad size, op, algorithm or group, or a NULL handle */
	ROCESIM_E_STALLED = -5,  /* the watchdog stopped the run (PFC deadlock or stall) */
	ROCESIM_E_IDLE = -6,     /* rocesim_next: no posted work is pending */
	ROCESIM_E_IO = -7,       /* the result database could not be written */
};

enum rocesim_kind { ROCESIM_MSG = 0, ROCESIM_COLL = 1 };

struct rocesim_completion {
	uint64_t tag;            /* the tag it was posted with */
	int64_t time_ps;         /* completion: the last byte at its destination (a collective:
				  * of its last message) */
	int64_t posted_ps;       /* the time it was posted for */
	uint64_t bytes;          /* message size; collective size (nccl-tests convention) */
	int kind;                /* enum rocesim_kind */
	int64_t id;              /* its flow_id or collective_id in the result database */
};

/* Opens the fabric of a scenario file. sets: n_sets "SECTION.KEY=VALUE"
 * overrides, applied as `sim --set` does. output: the result database to
 * write at rocesim_close (replaced when it exists, built in a temporary
 * file beside it meanwhile), or NULL to write none. The scenario's own
 * [traffic] and [job] sections run too; it may have none. [simulation]
 * stop is ignored: the driver moves the clock. NULL on error, with
 * rocesim_last_error(NULL) saying why (file:line, section, key, value). */
ROCESIM_API rocesim *rocesim_open(const char *scenario, const char *const *sets, size_t n_sets,
				  const char *output);
/* Finishes the run and frees h. When every posted message and collective
 * completed and the scenario's own sources have nothing left to post, the
 * senders' last ACKs are let arrive (flow rows end as in a batch run) and
 * the run row says 'complete'; otherwise 'stopped', with the unfinished
 * rows' ends NULL (closing never runs the scenario's own [traffic] or
 * [job] further); 'deadlock' or 'stalled' after ROCESIM_E_STALLED. *status (when status is not NULL) gets that word
 * (a static string). Returns ROCESIM_OK, ROCESIM_E_STALLED (the database
 * is still written) or ROCESIM_E_IO. */
ROCESIM_API int rocesim_close(rocesim *h, const char **status);

/* The message of the handle's last error; with h NULL, of the calling
 * thread's last failed rocesim_open. Valid until the next call on h. */
ROCESIM_API const char *rocesim_last_error(const rocesim *h);
ROCESIM_API const char *rocesim_version(void);

/* Simulated time now, ps. */
ROCESIM_API int64_t rocesim_now(const rocesim *h);
/* Endpoint of a name: "hostH.gpuI" is GPU H x gpus_per_host + I (0 ..
 * n_gpus - 1); "hostH" is n_gpus + H: the host's NIC 0, as [traffic]
 * flows use it. ROCESIM_E_NAME when there is no such GPU or host. */
ROCESIM_API int rocesim_endpoint(const rocesim *h, const char *name);
ROCESIM_API int rocesim_n_gpus(const rocesim *h);
ROCESIM_API int rocesim_n_hosts(const rocesim *h);
/* Posted messages and collectives not yet reported as complete (whether
 * polled or not). */
ROCESIM_API int rocesim_pending(const rocesim *h);

/* Posts a message of `bytes` (> 0) from endpoint src to dst (both GPUs or
 * both hosts, src != dst) at time at_ps (>= now). GPU to GPU it is a
 * message between GPUs (NVLink within a host, RDMA between hosts), host to
 * host a flow as [traffic] flows posts it. */
ROCESIM_API int rocesim_post_msg(rocesim *h, int src, int dst, uint64_t bytes, int64_t at_ps, uint64_t tag);
/* Posts a collective at at_ps (>= now): op allreduce, reduce_scatter,
 * allgather, alltoall, broadcast or sendrecv; algorithm a name of the
 * collective registry (ring, halving_doubling, tree, direct, multicast) or
 * NULL for the op's default; gpus: n GPU endpoints in rank order
 * (distinct, n >= 2); bytes > 0 in nccl-tests' convention. Chunking and
 * channels are rocesim_coll_options' (default as [traffic] collective:
 * 512 KiB, 2). */
ROCESIM_API int rocesim_post_coll(rocesim *h, const char *op, const char *algorithm, const int *gpus,
				  size_t n, uint64_t bytes, int64_t at_ps, uint64_t tag);
/* The same, started when the pending post tagged after_tag completes, in
 * the very event of its completion: as a stream (NCCL's, a job's bucket
 * reductions) starts its next operation, which a post at the completion
 * time, an event of its own, does not reproduce exactly when other events
 * share that instant. posted_ps of its completion is that time.
 * ROCESIM_E_NAME when no pending post has that tag. */
ROCESIM_API int rocesim_post_msg_after(rocesim *h, uint64_t after_tag, int src, int dst, uint64_t bytes,
				       uint64_t tag);
ROCESIM_API int rocesim_post_coll_after(rocesim *h, uint64_t after_tag, const char *op, const char *algorithm,
					const int *gpus, size_t n, uint64_t bytes, uint64_t tag);
/* Chunk size (bytes > 0) and channels (>= 1) of the collectives posted
 * from now on ([job] chunk and channels). */
ROCESIM_API int rocesim_coll_options(rocesim *h, uint64_t chunk_bytes, int channels);

/* Runs the fabric until until_ps (>= now): every event at or before it
 * happens; now = until_ps. Completions wait for rocesim_poll. */
ROCESIM_API int rocesim_advance(rocesim *h, int64_t until_ps);
/* Takes the oldest completion not yet taken: 1 with *c, 0 when none. */
ROCESIM_API int rocesim_poll(rocesim *h, struct rocesim_completion *c);
/* Runs until a completion is available and takes it (1, now = its time),
 * or until limit_ps (>= now) without one (0, now = limit_ps); use
 * INT64_MAX for no limit. ROCESIM_E_IDLE (nothing run) when no posted
 * work is pending and no completion waits. */
ROCESIM_API int rocesim_next(rocesim *h, int64_t limit_ps, struct rocesim_completion *c);

/* What [job.NAME] (of the scenario opened in h) does each iteration when it
 * is data-parallel only (tp = pp = ep = 1, zero 0, no overlap): compute,
 * then one all-reduce per gradient bucket over the gpus, one after
 * another, then the optimizer step; the next iteration starts when the
 * step ends. For a driver that runs that job itself. Pointers stay valid
 * until rocesim_close. ROCESIM_E_NAME (no such job) or ROCESIM_E_ARG (not
 * such a program). */
struct rocesim_dp_plan {
	int iterations;
	int64_t start_ps;
	int64_t compute_ps;          /* forward + backward of every micro-batch */
	int64_t optimizer_ps;
	int n_buckets;
	const uint64_t *bucket_bytes;
	int n_gpus;
	const int *gpus;             /* GPU endpoints, rank order */
	const char *algorithm;       /* the job's all-reduce algorithm */
	uint64_t chunk_bytes;        /* [job] chunk */
	int channels;                /* [job] channels */
};
ROCESIM_API int rocesim_job_dp_plan(rocesim *h, const char *job, struct rocesim_dp_plan *out);

#ifdef __cplusplus
}
#endif

#endif
