/*
 * workload_pp.c — pipeline parallelism with the 1F1B schedules (see workload.h).
 *
 * Narayanan et al., SC'21 (PipeDream-Flush / Megatron-LM 1F1B): stage s of
 * p runs min(p − s − 1, m) warm-up forwards, then one forward and one
 * backward in turn, then the remaining backwards. Between adjacent stages
 * each micro-batch sends its activations (b·s·h × 2 B) forward and the
 * same size of gradients backward (docs/protocol.md "Training jobs").
 * Nothing here assumes the bubble: it appears because stage s waits for
 * what s−1 and s+1 send.
 *
 * Interleaved 1F1B (Megatron-LM's virtual pipeline, SC'21 section 2.2.2):
 * each stage holds v model chunks; chunk c of stage s holds the layers of
 * virtual stage c·p + s, so a micro-batch goes p·v hops, from the last
 * stage back to the first between chunks. Megatron's
 * forward_backward_pipelining_with_interleaving orders a stage's 2·v·m
 * passes as: the k-th forward runs chunk (k mod p·v) / p on micro-batch
 * (k / (p·v))·p + k mod p, the k-th backward the same with chunk
 * v − 1 − that; (p − s − 1)·2 + (v − 1)·p warm-up forwards (all of them
 * when m = p), then 1F1B, then the remaining backwards. The bubble shrinks
 * to (p − 1)/(v·m) of the ideal time.
 */
#include "workload.h"

void wl_pp_schedule(int p, int stage, int64_t m, struct wl_pp_slot *out)
{
	int64_t warm = p - stage - 1;
	if (warm > m)
		warm = m;
	int n = 0;
	int64_t f = 0, b = 0;
	for (; f < warm; f++)
		out[n++] = (struct wl_pp_slot){ JOB_FWD, (int32_t)f, 0 };
	for (; f < m; f++, b++) {
		out[n++] = (struct wl_pp_slot){ JOB_FWD, (int32_t)f, 0 };
		out[n++] = (struct wl_pp_slot){ JOB_BWD, (int32_t)b, 0 };
	}
	for (; b < m; b++)
		out[n++] = (struct wl_pp_slot){ JOB_BWD, (int32_t)b, 0 };
}

/* The k-th forward or backward pass of the interleaved order. */
static struct wl_pp_slot vslot(int p, int v, int dir, int64_t k)
{
	int64_t group = (int64_t)p * v, in = k % group;
	int chunk = (int)(in / p);
	if (dir == JOB_BWD)
		chunk = v - 1 - chunk;
	return (struct wl_pp_slot){ (uint8_t)dir, (int32_t)(k / group * p + k % p), chunk };
}

void wl_pp_schedule_interleaved(int p, int stage, int64_t m, int v, struct wl_pp_slot *out)
{
	if (v == 1) {
		wl_pp_schedule(p, stage, m, out);
		return;
	}
	int64_t total = m * v, warm;
	if (m == p)
		warm = total;
	else
		warm = (int64_t)(p - stage - 1) * 2 + (int64_t)(v - 1) * p;
	if (warm > total)
		warm = total;
	int64_t n = 0, f = 0, b = 0;
	for (; f < warm; f++)
		out[n++] = vslot(p, v, JOB_FWD, f);
	for (; f < total; f++, b++) {
		out[n++] = vslot(p, v, JOB_FWD, f);
		out[n++] = vslot(p, v, JOB_BWD, b);
	}
	for (; b < total; b++)
		out[n++] = vslot(p, v, JOB_BWD, b);
}

/* The tag of a pass: what the receiving worker's RECV waits for. */
static int32_t tag(const struct job_spec *s, int chunk, int64_t mb)
{
	return (int32_t)(chunk * s->m + mb);
}

/* Forward passes receive from stage − 1 (chunk − 1 of the last stage for
 * the first stage), backward ones from stage + 1 (chunk + 1 of the first
 * stage for the last stage). With the SC'21 scatter/gather (tp > 1, no
 * sequence parallelism) the receiver all-gathers the tp pieces over TP. */
void wl_pp_recv(const struct job_spec *s, struct job_prog *p, int stage, int chunk, int dir, int64_t mb)
{
	if (dir == JOB_FWD ? stage == 0 && chunk == 0 : stage == s->pp - 1 && chunk == s->vpp - 1)
		return;
	struct job_op *op = job_prog_add(p, JOP_RECV);
	op->dir = (uint8_t)dir;
	op->mb = tag(s, chunk, mb);
	if (s->tp > 1 && !s->sp && s->cfg->pp_scatter_gather)
		job_prog_coll(p, JOP_TP, COLL_ALLGATHER, s->act_b);
}

void wl_pp_send(const struct job_spec *s, struct job_prog *p, int stage, int chunk, int dir, int64_t mb)
{
	int to_chunk = chunk;
	if (dir == JOB_FWD) {
		if (stage == s->pp - 1 && chunk == s->vpp - 1)
			return;
		if (stage == s->pp - 1)
			to_chunk++;
	} else {
		if (stage == 0 && chunk == 0)
			return;
		if (stage == 0)
			to_chunk--;
	}
	struct job_op *op = job_prog_add(p, JOP_SEND);
	op->dir = (uint8_t)dir;
	op->mb = tag(s, to_chunk, mb);
	/* Megatron-Core: with sequence parallelism each tp rank holds and
	 * sends its 1/tp of the sequence; without it every tp rank sends the
	 * whole tensor, unless the SC'21 scatter/gather is asked for. Each of
	 * the cp ranks sends its own s/cp tokens (act_b). */
	bool split = s->sp || s->cfg->pp_scatter_gather;
	op->val = s->act_b * (uint64_t)s->cp * (split ? 1 : (uint64_t)s->tp);
}
