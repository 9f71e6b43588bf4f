/*
 * chakra_load.c — a Chakra-trace job from its `trace` key (chakra.h):
 * the files of its ranks, the process groups and their collectives, the
 * messages, the checks that need every rank's trace; the --check plan and
 * the estimate.
 *
 * Files: `trace` is a pattern with one %d (the rank: traces/rank.%d.et),
 * a folder holding PREFIX.0.et, PREFIX.1.et, ... for one PREFIX, or a
 * PREFIX naming PREFIX.0.et, ... (ASTRA-sim's --workload-configuration
 * convention). Ranks are 0, 1, ... up to the first missing file; rank r
 * runs on the r-th GPU of the job's hosts.
 *
 * Parallelism tag of a collective (flow.parallelism, the exposed_*_ps
 * columns): its pg_name when that is one of tp, pp, dp, ep, cp; else ep
 * for an all-to-all, tp for a group within one host, dp otherwise. Every
 * message (COMM_SEND/COMM_RECV) is pp.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "chakra_job.h"
#include "collective.h"
#include "config.h"
#include "job.h"
#include "job_exec.h"
#include "nic.h"
#include "xalloc.h"

/* pattern with its one "%d" replaced by r (malloc'd). */
static char *subst_rank(const char *pattern, int r)
{
	const char *at = strstr(pattern, "%d");
	char num[16];
	int k = snprintf(num, sizeof num, "%d", r);
	size_t pre = (size_t)(at - pattern), len = strlen(pattern);
	char *s = xmalloc(len - 2 + (size_t)k + 1);
	memcpy(s, pattern, pre);
	memcpy(s + pre, num, (size_t)k);
	memcpy(s + pre + (size_t)k, at + 2, len - pre - 2 + 1);
	return s;
}

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The %d pattern of `trace` (malloc'd), or NULL with *why. */
static char *trace_pattern(const char *trace, char **why)
{
	struct stat st;
	if (strstr(trace, "%d"))
		return xstrdup(trace);
	if (stat(trace, &st) != 0 || !S_ISDIR(st.st_mode))
		return str_printf("%s.%%d.et", trace);
	DIR *d = opendir(trace);
	if (!d) {
		*why = str_printf("cannot list the folder %s", trace);
		return NULL;
	}
	char *prefix = NULL, *other = NULL;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n <= 5 || strcmp(e->d_name + n - 5, ".0.et") != 0)
			continue;
		char *p = xstrdup(e->d_name);
		p[n - 5] = '\0';
		if (!prefix) {
			prefix = p;
		} else if (!other && strcmp(p, prefix) != 0) {
			other = p;
		} else {
			free(p);
		}
	}
	closedir(d);
	char *pat = NULL;
	if (!prefix)
		*why = str_printf("the folder %s holds no trace PREFIX.0.et", trace);
	else if (other)
		*why = str_printf("the folder %s holds traces of more than one job (%s.0.et and %s.0.et): name one "
			    "as FOLDER/PREFIX", trace, strcmp(prefix, other) < 0 ? prefix : other,
			    strcmp(prefix, other) < 0 ? other : prefix);
	else
		pat = str_printf("%s/%s.%%d.et", trace, prefix);
	free(prefix);
	free(other);
	return pat;
}

/* ---- Groups and messages ---- */

static int group_of(struct chakra_job *ck, const char *name)
{
	for (int g = 0; g < ck->n_groups; g++)
		if (strcmp(ck->grp[g].name, name) == 0)
			return g;
	ck->grp = xrealloc(ck->grp, (size_t)(ck->n_groups + 1) * sizeof *ck->grp);
	memset(&ck->grp[ck->n_groups], 0, sizeof *ck->grp);
	ck->grp[ck->n_groups].name = xstrdup(name);
	ck->grp[ck->n_groups].ck = ck;
	return ck->n_groups++;
}

static void group_add(struct chakra_group *g, int r)
{
	if (g->n && g->rank[g->n - 1] == r)
		return;
	g->rank = xrealloc(g->rank, (size_t)(g->n + 1) * sizeof *g->rank);
	g->rank[g->n++] = r;
}

static const char *op_text(uint8_t op)
{
	return op == CHAKRA_OP_BARRIER ? "barrier" : coll_op_name(op);
}

static int par_of(const struct world *w, const struct chakra_group *g, uint8_t op)
{
	for (int p = 0; p < JOB_NPAR; p++)
		if (strcmp(g->name, job_par_name[p]) == 0)
			return p;
	if (op == COLL_ALLTOALL)
		return JOB_PAR_EP;
	for (int i = 1; i < g->n; i++)
		if (world_gpu_host(w, g->gpu[i]) != world_gpu_host(w, g->gpu[0]))
			return JOB_PAR_DP;
	return JOB_PAR_TP;
}

/* Groups: members, instances matched in file order. 0 or -1 with *why. */
static int match_groups(struct chakra_job *ck, const struct world *w, char **why)
{
	for (int r = 0; r < ck->n_ranks; r++) {
		struct chakra_rank *rk = &ck->rk[r];
		int *map = xmalloc((rk->tr.n_pg + 1) * sizeof *map);
		for (size_t p = 0; p < rk->tr.n_pg; p++)
			map[p] = group_of(ck, rk->tr.pg[p]);
		bool all = false;
		for (size_t i = 0; i < rk->tr.n; i++)
			if (rk->tr.node[i].kind == CHAKRA_COLL) {
				if (rk->tr.node[i].pg < 0)
					all = true;
				rk->group[i] = rk->tr.node[i].pg < 0 ? -1 : map[rk->tr.node[i].pg];
			}
		if (all) { /* the group of every rank */
			int g = group_of(ck, "");
			for (size_t i = 0; i < rk->tr.n; i++)
				if (rk->tr.node[i].kind == CHAKRA_COLL && rk->tr.node[i].pg < 0)
					rk->group[i] = g;
		}
		for (size_t p = 0; p < rk->tr.n_pg; p++)
			group_add(&ck->grp[map[p]], r);
		free(map);
	}
	for (int gi = 0; gi < ck->n_groups; gi++) {
		struct chakra_group *g = &ck->grp[gi];
		if (!*g->name) {
			free(g->rank);
			g->rank = NULL;
			g->n = 0;
			for (int r = 0; r < ck->n_ranks; r++)
				group_add(g, r);
		}
		g->gpu = xmalloc((size_t)g->n * sizeof *g->gpu);
		uint32_t count0 = 0;
		for (int m = 0; m < g->n; m++) {
			const struct chakra_rank *rk = &ck->rk[g->rank[m]];
			g->gpu[m] = rk->gpu;
			g->ref |= g->rank[m] == 0;
			uint32_t count = 0;
			for (size_t i = 0; i < rk->tr.n; i++)
				count += rk->group[i] == gi;
			if (m == 0)
				count0 = count;
			else if (count != count0) {
				*why = str_printf("process group %s%s%s: rank %d (%s) has %u collectives in it, rank %d (%s) "
					    "has %u: the collectives of a group are matched one to one across its ranks",
					    *g->name ? "'" : "", *g->name ? g->name : "of every rank (no pg_name)",
					    *g->name ? "'" : "", g->rank[0], ck->rk[g->rank[0]].tr.path, count0,
					    g->rank[m], rk->tr.path, count);
				return -1;
			}
		}
		g->n_inst = count0;
		g->inst = xcalloc(count0 ? count0 : 1, sizeof *g->inst);
		for (uint32_t k = 0; k < count0; k++) {
			g->inst[k].g = g;
			g->inst[k].node = xmalloc((size_t)g->n * sizeof *g->inst[k].node);
		}
		for (int m = 0; m < g->n; m++) {
			struct chakra_rank *rk = &ck->rk[g->rank[m]];
			uint32_t k = 0;
			for (size_t i = 0; i < rk->tr.n; i++) {
				if (rk->group[i] != gi)
					continue;
				struct chakra_inst *in = &g->inst[k];
				const struct chakra_node *n = &rk->tr.node[i];
				in->node[m] = (uint32_t)i;
				rk->link[i] = k++;
				if (m == 0) {
					in->op = n->op;
					in->size_b = n->size_b;
					continue;
				}
				if (n->op != in->op || n->size_b != in->size_b) {
					const struct chakra_node *n0 = &ck->rk[g->rank[0]].tr.node[in->node[0]];
					*why = str_printf("%s: node %zu (id %" PRIu64 ") at byte %" PRIu64 ": collective %u of "
						    "process group '%s' is a %s of %" PRIu64 " bytes here, a %s of %" PRIu64
						    " bytes on rank %d (%s, node id %" PRIu64 ")", rk->tr.path, i, n->id,
						    n->offset, k - 1, *g->name ? g->name : "(all ranks)", op_text(n->op),
						    n->size_b, op_text(in->op), in->size_b, g->rank[0],
						    ck->rk[g->rank[0]].tr.path, n0->id);
					return -1;
				}
			}
		}
		for (uint32_t k = 0; k < count0; k++)
			g->inst[k].par = (uint8_t)par_of(w, g, g->inst[k].op);
	}
	return 0;
}

/* An end of a message: a SEND or RECV node, keyed (src, dst, tag), then
 * its order in its file. */
struct p2p_end { int src, dst; int64_t tag; uint32_t node; };

static int cmp_end(const void *a, const void *b)
{
	const struct p2p_end *x = a, *y = b;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return x->node < y->node ? -1 : (int)(x->node > y->node);
}

/* The order of (src, dst, tag) alone. */
static int cmp_key(const struct p2p_end *x, const struct p2p_end *y)
{
	struct p2p_end a = *x, b = *y;
	a.node = b.node = 0;
	return cmp_end(&a, &b);
}

static int match_messages(struct chakra_job *ck, char **why)
{
	size_t ns = 0, nr = 0;
	for (int r = 0; r < ck->n_ranks; r++) {
		ns += ck->rk[r].tr.count[CHAKRA_SEND];
		nr += ck->rk[r].tr.count[CHAKRA_RECV];
	}
	struct p2p_end *s = xmalloc((ns + 1) * sizeof *s), *v = xmalloc((nr + 1) * sizeof *v);
	size_t a = 0, b = 0;
	int rc = -1;
	for (int r = 0; r < ck->n_ranks; r++) {
		const struct chakra_trace *t = &ck->rk[r].tr;
		for (size_t i = 0; i < t->n; i++) {
			const struct chakra_node *n = &t->node[i];
			if (n->kind != CHAKRA_SEND && n->kind != CHAKRA_RECV)
				continue;
			if (n->peer >= ck->n_ranks || n->peer == r) {
				*why = str_printf("%s: node %zu (id %" PRIu64 ") at byte %" PRIu64 ": %s %d is %s (the job has "
					    "ranks 0 to %d)", t->path, i, n->id, n->offset,
					    n->kind == CHAKRA_SEND ? "comm_dst" : "comm_src", n->peer,
					    n->peer == r ? "the node's own rank" : "not a rank of the job", ck->n_ranks - 1);
				goto out;
			}
			if (n->kind == CHAKRA_SEND)
				s[a++] = (struct p2p_end){ r, n->peer, n->tag, (uint32_t)i };
			else
				v[b++] = (struct p2p_end){ n->peer, r, n->tag, (uint32_t)i };
		}
	}
	qsort(s, ns, sizeof *s, cmp_end);
	qsort(v, nr, sizeof *v, cmp_end);
	ck->n_msgs = ns;
	ck->msg = xcalloc(ns + 1, sizeof *ck->msg);
	a = b = 0;
	while (a < ns || b < nr) {
		/* The next key: counts of sends and receives under it must agree. */
		struct p2p_end key = a < ns && (b >= nr || cmp_key(&s[a], &v[b]) <= 0) ? s[a] : v[b];
		size_t a0 = a, b0 = b;
		while (a < ns && s[a].src == key.src && s[a].dst == key.dst && s[a].tag == key.tag)
			a++;
		while (b < nr && v[b].src == key.src && v[b].dst == key.dst && v[b].tag == key.tag)
			b++;
		if (a - a0 != b - b0) {
			*why = str_printf("rank %d (%s) sends %zu message%s to rank %d with comm_tag %" PRId64 ", rank %d (%s) "
				    "receives %zu: every COMM_SEND_NODE needs its COMM_RECV_NODE", key.src,
				    ck->rk[key.src].tr.path, a - a0, a - a0 == 1 ? "" : "s", key.dst, key.tag, key.dst,
				    ck->rk[key.dst].tr.path, b - b0);
			goto out;
		}
		for (size_t m = 0; m < a - a0; m++) {
			struct chakra_msg *mg = &ck->msg[a0 + m];
			const struct chakra_node *sn = &ck->rk[key.src].tr.node[s[a0 + m].node];
			const struct chakra_node *rn = &ck->rk[key.dst].tr.node[v[b0 + m].node];
			if (rn->size_b && rn->size_b != sn->size_b) {
				*why = str_printf("%s: node id %" PRIu64 " at byte %" PRIu64 ": receives %" PRIu64 " bytes, but "
					    "its send (%s, node id %" PRIu64 ") sends %" PRIu64, ck->rk[key.dst].tr.path,
					    rn->id, rn->offset, rn->size_b, ck->rk[key.src].tr.path, sn->id, sn->size_b);
				goto out;
			}
			*mg = (struct chakra_msg){ .ck = ck, .src = key.src, .dst = key.dst, .send = s[a0 + m].node,
						   .recv = v[b0 + m].node, .size_b = sn->size_b,
						   .gpu = { ck->rk[key.src].gpu, ck->rk[key.dst].gpu } };
			ck->rk[key.src].link[mg->send] = (uint32_t)(a0 + m);
			ck->rk[key.dst].link[mg->recv] = (uint32_t)(a0 + m);
		}
	}
	rc = 0;
out:
	free(s);
	free(v);
	return rc;
}

int chakra_ranks(const char *trace)
{
	char *why = NULL, *pattern = trace_pattern(trace, &why);
	if (!pattern) {
		free(why);
		return -1;
	}
	int n = 0;
	for (; n < CHAKRA_MAX_RANKS; n++) {
		char *p = subst_rank(pattern, n);
		bool ok = is_file(p);
		free(p);
		if (!ok)
			break;
	}
	free(pattern);
	return n ? n : -1;
}

int chakra_job_create(struct world *w, struct job *j, const struct job_cfg *c, const char *trace,
		      const int *hosts, int n_hosts, char **err)
{
	const char *sec = j->source;
	char *why = NULL;
	char *pattern = trace_pattern(trace, &why);
	if (!pattern) {
		*err = cfg_error_at(w->cfg, sec, "trace", 0, "%s", why);
		free(why);
		return -1;
	}
	int n_gpus = n_hosts * w->gpus_per_host;
	int n = 0;
	for (;; n++) {
		char *p = subst_rank(pattern, n);
		bool ok = is_file(p);
		free(p);
		if (!ok || n > n_gpus)
			break;
	}
	if (n == 0 || n > n_gpus) {
		char *p0 = subst_rank(pattern, 0);
		*err = n == 0 ? cfg_error_at(w->cfg, sec, "trace", 0, "no trace for rank 0: %s is not a file", p0)
			: cfg_error_at(w->cfg, sec, "trace", 0, "more traces (ranks) than the %d GPUs of the job's hosts",
				       n_gpus);
		free(p0);
		free(pattern);
		return -1;
	}
	struct chakra_job *ck = xcalloc(1, sizeof *ck);
	j->ck = ck;
	ck->job = j;
	ck->n_ranks = n;
	ck->rk = xcalloc((size_t)n, sizeof *ck->rk);
	ck->iterations = c->iterations;
	ck->chunk_b = c->chunk_b;
	ck->channels = c->channels;
	ck->alg[COLL_ALLREDUCE] = c->allreduce;
	ck->alg[COLL_ALLGATHER] = c->allgather;
	ck->alg[COLL_REDUCE_SCATTER] = c->reduce_scatter;
	ck->alg[COLL_BROADCAST] = c->broadcast;
	ck->alg[COLL_ALLTOALL] = c->alltoall;
	j->gpu = xcalloc((size_t)n, sizeof *j->gpu);
	for (int r = 0; r < n; r++) {
		struct chakra_rank *rk = &ck->rk[r];
		rk->ck = ck;
		rk->rank = r;
		rk->gpu = j->gpu[r] = hosts[r / w->gpus_per_host] * w->gpus_per_host + r % w->gpus_per_host;
		char *p = subst_rank(pattern, r);
		int rc = chakra_trace_read(p, &rk->tr, &why);
		free(p);
		if (rc < 0)
			goto fail;
		size_t tn = rk->tr.n ? rk->tr.n : 1;
		rk->link = xcalloc(tn, sizeof *rk->link);
		rk->group = xmalloc(tn * sizeof *rk->group);
		for (size_t i = 0; i < rk->tr.n; i++)
			rk->group[i] = -1;
		rk->left = xcalloc(tn, sizeof *rk->left);
		rk->state = xcalloc(tn, sizeof *rk->state);
		rk->path = xcalloc(tn, sizeof *rk->path);
		rk->cq = xcalloc(tn, sizeof *rk->cq);
		ck->total += rk->tr.n;
	}
	ck->work = xcalloc(ck->total + 1, sizeof *ck->work);
	if (match_groups(ck, w, &why) < 0 || match_messages(ck, &why) < 0)
		goto fail;
	for (int g = 0; g < ck->n_groups; g++)
		for (uint32_t k = 0; k < ck->grp[g].n_inst; k++) {
			const struct chakra_inst *in = &ck->grp[g].inst[k];
			if (in->op == CHAKRA_OP_BARRIER || ck->grp[g].n < 2)
				continue;
			const char *bad = coll_check(in->op, ck->alg[in->op], ck->grp[g].n);
			if (bad) {
				const char *key = in->op == COLL_SENDRECV ? "trace" : job_alg_key(in->op);
				*err = cfg_error_at(w->cfg, sec, key, 0, "%s %s over %d GPUs (process group "
						    "'%s' of the trace): %s", coll_op_name(in->op), ck->alg[in->op],
						    ck->grp[g].n, ck->grp[g].name, bad);
				free(pattern);
				return -1; /* job_destroy frees ck */
			}
		}
	free(pattern);
	return 0;
fail:
	*err = cfg_error_at(w->cfg, sec, "trace", 0, "%s", why);
	free(why);
	free(pattern);
	return -1;
}

void chakra_job_free(struct job *j)
{
	struct chakra_job *ck = j->ck;
	if (!ck)
		return;
	for (int r = 0; r < ck->n_ranks; r++) {
		struct chakra_rank *rk = &ck->rk[r];
		chakra_trace_free(&rk->tr);
		free(rk->link);
		free(rk->group);
		free(rk->left);
		free(rk->state);
		free(rk->path);
		free(rk->cq);
	}
	free(ck->rk);
	for (int g = 0; g < ck->n_groups; g++) {
		for (uint32_t k = 0; k < ck->grp[g].n_inst; k++)
			free(ck->grp[g].inst[k].node);
		free(ck->grp[g].inst);
		free(ck->grp[g].name);
		free(ck->grp[g].rank);
		free(ck->grp[g].gpu);
	}
	free(ck->grp);
	free(ck->msg);
	free(ck->work);
	free(ck);
	j->ck = NULL;
}

/* ---- Plan and estimate ---- */

/* The plan of one collective or message (coll_plan), over gpus (n). */
static void plan_one(const struct chakra_job *ck, const struct world *w, int op, const int *gpus, int n,
		     uint64_t size_b, uint64_t *bytes, uint64_t *msgs)
{
	*bytes = *msgs = 0;
	if (op == CHAKRA_OP_BARRIER || n < 2 || size_b == 0)
		return;
	struct coll_spec s = { .op = (enum coll_op)op, .algorithm = op == COLL_SENDRECV ? NULL : ck->alg[op],
			       .gpus = gpus, .n = n, .size_b = size_b, .gpus_per_host = w->gpus_per_host,
			       .chunk_b = ck->chunk_b, .channels = ck->channels, .iteration = -1 };
	coll_plan(&s, bytes, msgs);
}

void chakra_job_print_plan(const struct job *j, FILE *out)
{
	const struct chakra_job *ck = j->ck;
	uint64_t bytes[JOB_NPAR] = { 0 }, msgs[JOB_NPAR] = { 0 };
	/* Per op (enum coll_op, then barrier): collectives and comm_size. */
	uint64_t count[8] = { 0 }, size[8] = { 0 };
	for (int g = 0; g < ck->n_groups; g++)
		for (uint32_t k = 0; k < ck->grp[g].n_inst; k++) {
			const struct chakra_inst *in = &ck->grp[g].inst[k];
			uint64_t b, m;
			plan_one(ck, j->w, in->op, ck->grp[g].gpu, ck->grp[g].n, in->size_b, &b, &m);
			bytes[in->par] += b;
			msgs[in->par] += m;
			int o = in->op == CHAKRA_OP_BARRIER ? 7 : in->op;
			count[o]++;
			size[o] += in->size_b;
		}
	for (size_t i = 0; i < ck->n_msgs; i++) {
		uint64_t b, m;
		plan_one(ck, j->w, COLL_SENDRECV, ck->msg[i].gpu, 2, ck->msg[i].size_b, &b, &m);
		bytes[JOB_PAR_PP] += b;
		msgs[JOB_PAR_PP] += m;
		count[COLL_SENDRECV]++;
		size[COLL_SENDRECV] += ck->msg[i].size_b;
	}
	for (int p = 0; p < JOB_NPAR; p++)
		fprintf(out, "plan: job=%s parallelism=%s bytes=%llu messages=%llu\n", j->spec.name, job_par_name[p],
			(unsigned long long)bytes[p], (unsigned long long)msgs[p]);
	size_t kinds[CHAKRA_NKIND] = { 0 };
	for (int r = 0; r < ck->n_ranks; r++)
		for (int k = 0; k < CHAKRA_NKIND; k++)
			kinds[k] += ck->rk[r].tr.count[k];
	fprintf(out, "chakra: job=%s ranks=%d groups=%d nodes=%zu", j->spec.name, ck->n_ranks, ck->n_groups,
		ck->total);
	for (int k = 0; k < CHAKRA_NKIND; k++)
		fprintf(out, " %s=%zu", chakra_kind_name[k], kinds[k]);
	fputc('\n', out);
	for (int o = 0; o < 8; o++)
		if (count[o])
			fprintf(out, "chakra: job=%s kind=%s count=%llu size_bytes=%llu\n", j->spec.name,
				o == 7 ? "barrier" : coll_op_name((enum coll_op)o), (unsigned long long)count[o],
				(unsigned long long)size[o]);
}

void chakra_job_estimate(const struct job *j, struct jobs_estimate *e)
{
	const struct chakra_job *ck = j->ck;
	const struct world *w = j->w;
	double bytes = 0, msgs = 0;
	for (int g = 0; g < ck->n_groups; g++) {
		bool cross = false;
		for (int m = 1; m < ck->grp[g].n; m++)
			cross |= world_gpu_host(w, ck->grp[g].gpu[m]) != world_gpu_host(w, ck->grp[g].gpu[0]);
		for (uint32_t k = 0; cross && k < ck->grp[g].n_inst; k++) {
			uint64_t b, m;
			plan_one(ck, w, ck->grp[g].inst[k].op, ck->grp[g].gpu, ck->grp[g].n, ck->grp[g].inst[k].size_b,
				 &b, &m);
			bytes += (double)b;
			msgs += (double)m;
		}
	}
	for (size_t i = 0; i < ck->n_msgs; i++)
		if (world_gpu_host(w, ck->msg[i].gpu[0]) != world_gpu_host(w, ck->msg[i].gpu[1])) {
			bytes += (double)ck->msg[i].size_b;
			msgs += 1;
		}
	/* The busiest rank's compute, as if communication were free. */
	double busiest = 0;
	for (int r = 0; r < ck->n_ranks; r++) {
		double t = 0;
		for (size_t i = 0; i < ck->rk[r].tr.n; i++)
			if (ck->rk[r].tr.node[i].kind == CHAKRA_COMP)
				t += (double)ck->rk[r].tr.node[i].dur_ps;
		busiest = t > busiest ? t : busiest;
	}
	e->net_bytes += bytes * ck->iterations;
	e->net_messages += msgs * ck->iterations;
	double end = (double)j->spec.cfg->start + busiest * ck->iterations;
	if (end > e->end_ps)
		e->end_ps = end;
}
