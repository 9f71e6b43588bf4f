/*
 * workload_pp.c — pipeline parallelism with the 1F1B schedule (see workload.h).
 *
 * Narayanan et al., SC'21 (PipeDream-Flush / Megatron-LM 1F1B): stage s of
 * p runs min(p − s − 1, m) warm-up forwards, then one forward and one
 * backward in turn, then the remaining backwards. Between adjacent stages
 * each micro-batch sends its activations (b·s·h × 2 B) forward and the
 * same size of gradients backward (docs/protocol.md "Training jobs"). Nothing here assumes the
 * bubble: it appears because stage s waits for what s−1 and s+1 send.
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
		out[n++] = (struct wl_pp_slot){ JOB_FWD, (int32_t)f };
	for (; f < m; f++, b++) {
		out[n++] = (struct wl_pp_slot){ JOB_FWD, (int32_t)f };
		out[n++] = (struct wl_pp_slot){ JOB_BWD, (int32_t)b };
	}
	for (; b < m; b++)
		out[n++] = (struct wl_pp_slot){ JOB_BWD, (int32_t)b };
}

/* Forward passes receive from stage − 1, backward ones from stage + 1. */
void wl_pp_recv(const struct job_spec *s, struct job_prog *p, int stage, int dir, int64_t mb)
{
	if (dir == JOB_FWD ? stage == 0 : stage == s->pp - 1)
		return;
	struct job_op *op = job_prog_add(p, JOP_RECV);
	op->dir = (uint8_t)dir;
	op->mb = (int32_t)mb;
}

void wl_pp_send(const struct job_spec *s, struct job_prog *p, int stage, int dir, int64_t mb)
{
	if (dir == JOB_FWD ? stage == s->pp - 1 : stage == 0)
		return;
	struct job_op *op = job_prog_add(p, JOP_SEND);
	op->dir = (uint8_t)dir;
	op->mb = (int32_t)mb;
	op->val = s->act_b;
}
