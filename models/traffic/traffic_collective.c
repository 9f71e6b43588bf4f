/*
 * traffic_collective.c — `[traffic.NAME] type = collective`: one bare
 * collective as nccl-tests runs it (docs/scenario.md).
 *
 * The group is `gpus` (names "host3.gpu5", in list order = rank order), or
 * every GPU of the `hosts` listed (host order, then GPU index), or every GPU
 * of the world. At `start` the collective begins; each time it completes,
 * the next repetition begins at once, `repeat` times in all (nccl-tests'
 * back-to-back iterations). Chunking and channels are [job]'s defaults
 * (512 KiB, 2 channels; a [traffic] section has no such keys). Broadcast's
 * root is rank 0; sendrecv needs exactly two GPUs (the first sends).
 * `algorithm = multicast` (broadcast, allgather, allreduce) runs over the
 * world's multicast groups (coll_mcast.c); the rules below refuse it when
 * [multicast] is disabled or unreliable.
 *
 * Rows: every message is a flow with source "traffic.NAME", parallelism
 * "micro", job NULL and iteration = the repetition (0-based), the same in
 * the `collective` row of each repetition.
 *
 * Errors, located at the key at fault (exit status 2): an unknown op or an
 * algorithm the op does not have ("algorithm"), an unknown or repeated GPU
 * ("gpus"), unknown hosts ("hosts"), a group the algorithm cannot run on
 * (fewer than two GPUs, halving_doubling on a group that is not a power of
 * two, sendrecv on other than two GPUs: the group's key).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "collective.h"
#include "config.h"
#include "nic.h"
#include "traffic_internal.h"
#include "xalloc.h"

struct collective_cfg {
	char **hosts; size_t n_hosts;  /* [all]: n_hosts = 0 */
	char **gpus; size_t n_gpus;    /* [all] */
	simtime_t start;               /* [0] */
	uint64_t size_b;               /* required */
	char *op;                      /* a collective op, required */
	char *algorithm;               /* [the op's first algorithm] */
	int repeat;                    /* [1] */
};

#define COLL_DEFAULT_CHUNK_B (512u * 1024u) /* [job] chunk default (NCCL Simple slot) */
#define COLL_DEFAULT_CHANNELS 2             /* [job] channels default */

struct coll_src {
	struct traffic_src base;       /* first: the source is cast to it */
	struct coll_spec spec;
	int *gpus;                     /* [spec.n] */
	int repeat, done;              /* repetitions asked and finished */
};

static void coll_src_launch(struct coll_src *s)
{
	s->spec.iteration = s->done;
	coll_start(s->base.colls, &s->spec);
}

static void coll_src_done(struct sim *sim, struct coll *c, void *ctx)
{
	(void)sim; (void)c;
	struct coll_src *s = ctx;
	if (++s->done < s->repeat)
		coll_src_launch(s);
	else
		world_source_end(s->base.w);
}

static void coll_src_fire(struct sim *sim, void *obj, uintptr_t arg)
{
	(void)sim; (void)arg;
	coll_src_launch(obj);
}

static void coll_src_start(struct traffic_src *base)
{
	struct coll_src *s = (struct coll_src *)base;
	s->spec.source = base->source;
	sched_at(base->w->sim, ((const struct collective_cfg *)base->own)->start, &base->elem, coll_src_fire, s, 0);
}

static void coll_src_destroy(struct traffic_src *base)
{
	struct coll_src *s = (struct coll_src *)base;
	free(s->gpus);
	free(s);
}

static const struct traffic_src_ops coll_src_ops = {
	.start = coll_src_start,
	.destroy = coll_src_destroy,
};

#define CO(f) offsetof(struct collective_cfg, f)

static const struct cfg_key keys[] = {
	{ "hosts", KT_LIST, .def_doc = "all", .off = CO(hosts), .off2 = CO(n_hosts), .help = "hosts taking part" },
	{ "gpus", KT_LIST, .def_doc = "all", .off = CO(gpus), .off2 = CO(n_gpus), .help = "GPUs taking part" },
	{ "start", KT_TIME, "0s", .off = CO(start), .help = "start time" },
	{ "size", KT_SIZE, .required = true, CFG_POS, .off = CO(size_b), .help = "bytes of the collective buffer" },
	{ "op", KT_WORD, .required = true, .vocab_fn = coll_op_name_at, .off = CO(op), .help = "collective operation" },
	{ "algorithm", KT_WORD, .def_doc = "the first algorithm of the op in the registry (ring; direct for alltoall)",
	  .vocab_fn = coll_any_alg_name_at,
	  .off = CO(algorithm), .help = "collective algorithm" },
	{ "repeat", KT_INT, "1", CFG_GE(1), .off = CO(repeat), .help = "times the collective runs" },
};

static int rules(struct cfg_check *c)
{
	struct collective_cfg *t = c->type_data;
	if (t->n_gpus && t->n_hosts)
		return cfg_fail(c, "gpus", "either gpus or hosts, not both");
	enum coll_op op = (enum coll_op)coll_op_by_name(t->op);
	if (!t->algorithm)
		t->algorithm = xstrdup(coll_alg_name_at(&op, 0));
	bool ok = false;
	for (size_t i = 0; coll_alg_name_at(&op, i) && !ok; i++)
		ok = strcmp(coll_alg_name_at(&op, i), t->algorithm) == 0;
	if (!ok) {
		char list[CFG_EXPECTED_MAX / 2];
		coll_alg_list(op, list, sizeof list);
		return cfg_fail(c, "algorithm", "%s for op %s", list, t->op);
	}
	return coll_rule_multicast(c, "algorithm", t->algorithm);
}

/* The group's GPU ids, or -1 with *err. *key is the key that chose it. */
static int group_of(struct world *w, const struct collective_cfg *ct, const char *section,
		    int **gpus, const char **key, char **err)
{
	int gph = w->gpus_per_host;
	*gpus = NULL;
	if (ct->n_gpus && !(ct->n_gpus == 1 && strcmp(ct->gpus[0], "all") == 0)) {
		*key = "gpus";
		int *v = xmalloc(ct->n_gpus * sizeof *v);
		for (size_t i = 0; i < ct->n_gpus; i++) {
			v[i] = world_gpu_id(w, ct->gpus[i]);
			if (v[i] < 0) {
				*err = cfg_error_at(w->cfg, section, "gpus", 0,
						    "unknown GPU '%s' (GPUs are named hostH.gpuI, I below gpus_per_host = %d)",
						    ct->gpus[i], gph);
				free(v);
				return -1;
			}
			for (size_t j = 0; j < i; j++)
				if (v[j] == v[i]) {
					*err = cfg_error_at(w->cfg, section, "gpus", 0, "GPU '%s' is listed twice",
							    ct->gpus[i]);
					free(v);
					return -1;
				}
		}
		*gpus = v;
		return (int)ct->n_gpus;
	}
	*key = ct->n_hosts ? "hosts" : "gpus";
	int *hosts;
	int nh = world_host_list(w, section, "hosts", ct->hosts, ct->n_hosts, &hosts, err);
	if (nh < 0)
		return -1;
	int *v = xmalloc(((size_t)nh * (size_t)gph + 1) * sizeof *v);
	for (int i = 0; i < nh; i++)
		for (int g = 0; g < gph; g++)
			v[i * gph + g] = hosts[i] * gph + g;
	free(hosts);
	*gpus = v;
	return nh * gph;
}

static struct traffic_src *create(struct world *w, const void *own, size_t index, const char *section,
				  char **err)
{
	const struct collective_cfg *ct = own;
	(void)index;
	const struct config *cfg = w->cfg;
	/* The op, its algorithm and the size were checked by the loader and
	 * the rules; the group only the world can. */
	enum coll_op op = (enum coll_op)coll_op_by_name(ct->op);
	const char *alg = ct->algorithm;
	int *gpus;
	const char *key;
	int n = group_of(w, ct, section, &gpus, &key, err);
	if (n < 0)
		return NULL;
	const char *why = n < 2 ? "a group of at least 2 GPUs" : coll_check(op, alg, n);
	if (why) {
		*err = cfg_error_at(cfg, section, key, 0, "expected %s; the group has %d GPU%s", why, n,
				    n == 1 ? "" : "s");
		free(gpus);
		return NULL;
	}
	struct coll_src *s = xcalloc(1, sizeof *s);
	s->gpus = gpus;
	s->repeat = ct->repeat;
	s->spec = (struct coll_spec){
		.op = op, .algorithm = alg, .gpus = gpus, .n = n, .size_b = ct->size_b,
		.root = 0, .chunk_b = COLL_DEFAULT_CHUNK_B, .channels = COLL_DEFAULT_CHANNELS,
		.parallelism = "micro", .job = NULL, .iteration = 0,
		.on_done = coll_src_done, .ctx = s,
	};
	uint64_t bytes, messages;
	coll_plan(&s->spec, &bytes, &messages);
	s->base.flows_expected = messages * (uint64_t)s->repeat;
	s->base.ops = &coll_src_ops;
	return &s->base;
}

const struct traffic_kind traffic_collective = {
	.cfg = { .name = "collective", .help = "one bare collective, as nccl-tests runs it", CFG_KEYS(keys),
		 .size = sizeof(struct collective_cfg), .rules = rules },
	.create = create,
	.closed_loop = true,
};
