/*
 * moe_layout.c — where the experts' ranks are: Megatron-Core's "MoE
 * parallel folding" (see workload.h).
 *
 * Attention and dense layers use tp × dp GPUs per pipeline stage; the
 * experts fold the same GPUs into etp × ep × edp, with etp =
 * expert_tensor_parallel_size (default tp) and edp = tp·dp/(etp·ep) the
 * expert-data-parallel size. A stage's GPUs are numbered q = t + tp·d (TP
 * index t, data-parallel index d), and the expert coordinates of GPU q are
 *   et = q mod etp,   e = (q / etp) mod ep,   x = q / (etp·ep)
 * (Megatron-Core's expert rank order etp-ep-edp over the same ranks). With
 * etp = tp this is the layout of job_layout.h: et = t, e = d mod ep,
 * x = d / ep. rocesim supports etp dividing tp, so an expert-TP group (one
 * EP rank) lies inside one TP group (one worker, which holds tp/etp of
 * them).
 *
 * The all-to-alls of one x (its etp EP groups, one per et) involve the
 * workers holding GPUs q in [x·etp·ep, (x+1)·etp·ep); an EP rendezvous is
 * the smallest run of workers made of whole such blocks:
 * lcm(tp, etp·ep)/tp workers, holding tp·W/(etp·ep) values of x.
 */
#include "workload.h"

static int gcd(int a, int b)
{
	while (b) {
		int r = a % b;
		a = b;
		b = r;
	}
	return a;
}

int wl_ep_unit(const struct job_spec *s)
{
	int a = s->tp / s->etp; /* expert-TP groups per worker */
	return s->ep / gcd(a, s->ep);
}

void wl_ep_gpu(const struct job_spec *s, int x, int e, int et, int *t, int *d)
{
	int q = et + s->etp * (e + s->ep * x);
	*t = q % s->tp;
	*d = q / s->tp;
}

int wl_ep_unit_a2as(const struct job_spec *s)
{
	return s->tp * wl_ep_unit(s) / s->ep;
}

void wl_ep_unit_a2a(const struct job_spec *s, int u, int i, int *x, int *et)
{
	int per_unit = s->tp * wl_ep_unit(s) / (s->etp * s->ep);
	*x = u * per_unit + i / s->etp;
	*et = i % s->etp;
}

void wl_ep_worker_group(const struct job_spec *s, int d, int i, int *x, int *e)
{
	int g = d * (s->tp / s->etp) + i; /* q / etp of the group's first GPU */
	*e = g % s->ep;
	*x = g / s->ep;
}
