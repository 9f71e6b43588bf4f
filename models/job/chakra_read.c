/*
 * chakra_read.c — one Chakra execution-trace file to a struct
 * chakra_trace (chakra.h).
 *
 * Format (Chakra's protolib encodeMessage/decodeMessage): a GlobalMetadata
 * message, then Node messages to the end of the file, each preceded by
 * its length as a base-128 varint; the messages are decoded with the
 * protobuf-c code generated from chakra_et_def.proto.
 *
 * What is read of a node: id, type, ctrl_deps and data_deps (both are
 * dependencies: the node waits for them), duration_micros, and the
 * attributes comm_type, comm_size, comm_src, comm_dst, comm_tag and
 * pg_name (integers of any of the proto's integer kinds; pg_name a
 * string, or an integer written as its decimal text). Everything else
 * (name, start_time_micros, inputs, outputs, other attributes such as
 * is_cpu_op) is ignored. The file is held in memory whole, once; the
 * decoded messages are freed node by node, so a trace costs its
 * struct chakra_node array plus the dependency lists.
 *
 * Every failure is located ("PATH: node N (id I) at byte B: ...") and
 * leaves nothing allocated; bytes are never read past len.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chakra.h"
#include "chakra_et_def.pb-c.h"
#include "collective.h"
#include "xalloc.h"

const char *const chakra_kind_name[CHAKRA_NKIND] = {
	[CHAKRA_COMP] = "comp", [CHAKRA_COLL] = "coll", [CHAKRA_SEND] = "send",
	[CHAKRA_RECV] = "recv", [CHAKRA_MEM] = "mem", [CHAKRA_OTHER] = "other",
};

/* A trace can hold at most this many nodes (uint32 indexes). */
#define CHAKRA_MAX_NODES 0x7fffffffu

/* Reads the varint at data[*pos]; 0, 1 when len ends inside it, 2 when
 * it runs past 10 bytes or 64 bits. */
static int read_varint(const uint8_t *data, size_t len, size_t *pos, uint64_t *out)
{
	uint64_t v = 0;
	for (int i = 0; i < 10; i++) {
		if (*pos >= len)
			return 1;
		uint8_t b = data[(*pos)++];
		if (i == 9 && b > 1)
			return 2;
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return 2;
}

/* The next length-delimited message: its bytes at *msg, *msg_len; 0 or
 * -1 with *err ("PATH: WHERE: ..."), where names the message. */
static int next_message(const char *path, const char *where, const uint8_t *data, size_t len, size_t *pos,
			const uint8_t **msg, size_t *msg_len, char **err)
{
	size_t at = *pos;
	uint64_t n;
	int rc = read_varint(data, len, pos, &n);
	if (rc == 1) {
		*err = str_printf("%s: %s at byte %zu: the file ends inside the message's length prefix (truncated?)",
			    path, where, at);
		return -1;
	}
	if (rc == 2) {
		*err = str_printf("%s: %s at byte %zu: a length prefix longer than 64 bits (not a Chakra trace?)",
			    path, where, at);
		return -1;
	}
	if (n > len - *pos) {
		*err = str_printf("%s: %s at byte %zu: a message of %" PRIu64 " bytes, but the file has only %zu left "
			    "(truncated?)", path, where, at, n, len - *pos);
		return -1;
	}
	*msg = data + *pos;
	*msg_len = (size_t)n;
	*pos += (size_t)n;
	return 0;
}

static const ChakraProtoMsg__AttributeProto *attr_find(const ChakraProtoMsg__Node *nd, const char *name)
{
	for (size_t i = 0; i < nd->n_attr; i++)
		if (nd->attr[i] && nd->attr[i]->name && strcmp(nd->attr[i]->name, name) == 0)
			return nd->attr[i];
	return NULL;
}

/* An integer attribute: 1 when found (*v set), 0 when absent, -1 when
 * present but not a single integer (or negative). */
static int attr_int(const ChakraProtoMsg__Node *nd, const char *name, uint64_t *v)
{
	const ChakraProtoMsg__AttributeProto *a = attr_find(nd, name);
	if (!a)
		return 0;
	int64_t s;
	switch (a->value_case) {
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL: *v = a->uint64_val; return 1;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED64_VAL: *v = a->fixed64_val; return 1;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL: *v = a->uint32_val; return 1;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED32_VAL: *v = a->fixed32_val; return 1;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL: s = a->int64_val; break;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT64_VAL: s = a->sint64_val; break;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED64_VAL: s = a->sfixed64_val; break;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL: s = a->int32_val; break;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT32_VAL: s = a->sint32_val; break;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED32_VAL: s = a->sfixed32_val; break;
	default: return -1;
	}
	if (s < 0)
		return -1;
	*v = (uint64_t)s;
	return 1;
}

static void trace_clear(struct chakra_trace *t)
{
	free(t->path);
	free(t->node);
	free(t->dep);
	free(t->kid);
	for (size_t i = 0; i < t->n_pg; i++)
		free(t->pg[i]);
	free(t->pg);
	free(t->version);
	memset(t, 0, sizeof *t);
}

void chakra_trace_free(struct chakra_trace *t)
{
	if (t)
		trace_clear(t);
}

/* The index of pg_name s in t (added when new). */
static int32_t pg_index(struct chakra_trace *t, const char *s)
{
	for (size_t i = 0; i < t->n_pg; i++)
		if (strcmp(t->pg[i], s) == 0)
			return (int32_t)i;
	t->pg = xrealloc(t->pg, (t->n_pg + 1) * sizeof *t->pg);
	t->pg[t->n_pg] = xstrdup(s);
	return (int32_t)t->n_pg++;
}

/* Chakra's CollectiveCommType to rocesim's op; -1 for the ones rocesim
 * has no collective for. */
static int coll_op_of(uint64_t ct)
{
	switch (ct) {
	case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE: return COLL_ALLREDUCE;
	case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_GATHER: return COLL_ALLGATHER;
	case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__BROADCAST: return COLL_BROADCAST;
	case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_TO_ALL: return COLL_ALLTOALL;
	case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE_SCATTER:
	case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE_SCATTER_BLOCK: return COLL_REDUCE_SCATTER;
	case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__BARRIER: return CHAKRA_OP_BARRIER;
	}
	return -1;
}

/* Fills n from the decoded node nd; NULL, or the reason it is refused
 * (static text or *why, malloc'd). */
static char *node_fill(struct chakra_trace *t, const ChakraProtoMsg__Node *nd, struct chakra_node *n)
{
	memset(n, 0, sizeof *n);
	n->id = nd->id;
	n->peer = -1;
	n->pg = -1;
	if (nd->duration_micros > (uint64_t)INT64_MAX / 1000000)
		return str_printf("duration_micros %" PRIu64 " is too large (at most %" PRId64 ")", nd->duration_micros,
			    (int64_t)(INT64_MAX / 1000000));
	n->dur_ps = (simtime_t)nd->duration_micros * 1000000;
	switch (nd->type) {
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE: n->kind = CHAKRA_COMP; break;
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE: n->kind = CHAKRA_COLL; break;
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE: n->kind = CHAKRA_SEND; break;
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE: n->kind = CHAKRA_RECV; break;
	case CHAKRA_PROTO_MSG__NODE_TYPE__MEM_LOAD_NODE:
	case CHAKRA_PROTO_MSG__NODE_TYPE__MEM_STORE_NODE: n->kind = CHAKRA_MEM; break;
	default: n->kind = CHAKRA_OTHER; break;
	}
	uint64_t v;
	int rc;
	if (n->kind == CHAKRA_COLL) {
		if ((rc = attr_int(nd, "comm_type", &v)) <= 0)
			return str_printf("a COMM_COLL_NODE needs the attribute comm_type, a non-negative integer (%s)",
				    rc ? "it is not one" : "it has none");
		int op = coll_op_of(v);
		if (op < 0)
			return str_printf("comm_type %" PRIu64 " (%s) has no rocesim collective: expected ALL_REDUCE (0), "
				    "ALL_GATHER (2), BROADCAST (5), ALL_TO_ALL (6), REDUCE_SCATTER (7), "
				    "REDUCE_SCATTER_BLOCK (8) or BARRIER (9)", v,
				    v == 1 ? "REDUCE" : v == 3 ? "GATHER" : v == 4 ? "SCATTER" : "unknown");
		n->op = (uint8_t)op;
		n->comm_type = (uint8_t)v;
		const ChakraProtoMsg__AttributeProto *pg = attr_find(nd, "pg_name");
		if (pg) {
			char num[24];
			const char *s = NULL;
			if (pg->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL)
				s = pg->string_val;
			else if (attr_int(nd, "pg_name", &v) == 1)
				s = (snprintf(num, sizeof num, "%" PRIu64, v), num);
			if (!s || !*s)
				return str_printf("pg_name must be a non-empty string (or an integer)");
			n->pg = pg_index(t, s);
		}
	}
	if (n->kind == CHAKRA_COLL || n->kind == CHAKRA_SEND || n->kind == CHAKRA_RECV) {
		rc = attr_int(nd, "comm_size", &v);
		if (rc < 0 || (rc == 0 && n->kind == CHAKRA_SEND) ||
		    (rc == 0 && n->kind == CHAKRA_COLL && n->op != CHAKRA_OP_BARRIER))
			return str_printf("a %s needs the attribute comm_size, bytes as a non-negative integer (%s)",
				    n->kind == CHAKRA_SEND ? "COMM_SEND_NODE" : n->kind == CHAKRA_RECV ? "COMM_RECV_NODE"
				    : "COMM_COLL_NODE", rc ? "it is not one" : "it has none");
		n->size_b = rc ? v : 0;
	}
	if (n->kind == CHAKRA_SEND || n->kind == CHAKRA_RECV) {
		const char *peer = n->kind == CHAKRA_SEND ? "comm_dst" : "comm_src";
		rc = attr_int(nd, peer, &v);
		if (rc <= 0 || v > INT32_MAX)
			return str_printf("a %s needs the attribute %s, the peer's rank (%s)",
				    n->kind == CHAKRA_SEND ? "COMM_SEND_NODE" : "COMM_RECV_NODE", peer,
				    rc < 0 || rc > 0 ? "it is not a rank" : "it has none");
		n->peer = (int32_t)v;
		rc = attr_int(nd, "comm_tag", &v);
		if (rc < 0 || v > INT64_MAX)
			return str_printf("comm_tag must be a non-negative integer");
		n->tag = rc ? (int64_t)v : 0;
	}
	return NULL;
}

struct id_index { uint64_t id; uint32_t i; };

static int cmp_id(const void *a, const void *b)
{
	const struct id_index *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->i < y->i ? -1 : (int)(x->i > y->i);
}

static int64_t find_id(const struct id_index *ix, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ix[lo].id == id ? (int64_t)ix[lo].i : -1;
}

#define AT(k) t->path, (size_t)(k), t->node[k].id, t->node[k].offset

/* Resolves the dependency ids (ids[dep0 ..]) to indexes, builds the
 * reverse lists and checks the graph is acyclic; 0 or -1 with *err. */
static int link_nodes(struct chakra_trace *t, const uint64_t *ids, char **err)
{
	int rc = -1;
	struct id_index *ix = xmalloc((t->n ? t->n : 1) * sizeof *ix);
	uint32_t *indeg = NULL, *queue = NULL, *fill = NULL;
	for (size_t k = 0; k < t->n; k++)
		ix[k] = (struct id_index){ t->node[k].id, (uint32_t)k };
	qsort(ix, t->n, sizeof *ix, cmp_id);
	for (size_t k = 1; k < t->n; k++)
		if (ix[k].id == ix[k - 1].id) {
			*err = str_printf("%s: node %zu (id %" PRIu64 ") at byte %" PRIu64 ": id already used by node %u",
				    AT(ix[k].i), ix[k - 1].i);
			goto out;
		}
	t->dep = xmalloc((t->n_dep ? t->n_dep : 1) * sizeof *t->dep);
	for (size_t k = 0; k < t->n; k++)
		for (uint32_t d = 0; d < t->node[k].n_deps; d++) {
			size_t at = t->node[k].dep0 + d;
			int64_t i = find_id(ix, t->n, ids[at]);
			if (i < 0) {
				*err = str_printf("%s: node %zu (id %" PRIu64 ") at byte %" PRIu64 ": depends on id %" PRIu64
					    ", which no node of the file has", AT(k), ids[at]);
				goto out;
			}
			t->dep[at] = (uint32_t)i;
		}
	/* Reverse lists, then Kahn's algorithm: a node never reached has a
	 * dependency on a cycle (or is on one). */
	indeg = xcalloc(t->n + 1, sizeof *indeg);
	fill = xcalloc(t->n + 1, sizeof *fill);
	for (size_t a = 0; a < t->n_dep; a++)
		t->node[t->dep[a]].n_kids++;
	uint32_t acc = 0;
	for (size_t k = 0; k < t->n; k++) {
		t->node[k].kid0 = acc;
		acc += t->node[k].n_kids;
	}
	t->n_kid = acc;
	t->kid = xmalloc((acc ? acc : 1) * sizeof *t->kid);
	for (size_t k = 0; k < t->n; k++)
		for (uint32_t d = 0; d < t->node[k].n_deps; d++) {
			uint32_t p = t->dep[t->node[k].dep0 + d];
			t->kid[t->node[p].kid0 + fill[p]++] = (uint32_t)k;
		}
	queue = xmalloc((t->n + 1) * sizeof *queue);
	size_t head = 0, tail = 0;
	for (size_t k = 0; k < t->n; k++) {
		indeg[k] = t->node[k].n_deps;
		if (!indeg[k])
			queue[tail++] = (uint32_t)k;
	}
	while (head < tail) {
		const struct chakra_node *n = &t->node[queue[head++]];
		for (uint32_t c = 0; c < n->n_kids; c++)
			if (--indeg[t->kid[n->kid0 + c]] == 0)
				queue[tail++] = t->kid[n->kid0 + c];
	}
	if (tail < t->n) {
		size_t k = 0;
		while (indeg[k] == 0)
			k++;
		*err = str_printf("%s: node %zu (id %" PRIu64 ") at byte %" PRIu64 ": its dependencies form a cycle "
			    "(or it depends on a node in one): the trace cannot run", AT(k));
		goto out;
	}
	rc = 0;
out:
	free(ix);
	free(indeg);
	free(fill);
	free(queue);
	return rc;
}

int chakra_trace_parse(const char *path, const uint8_t *data, size_t len, struct chakra_trace *t, char **err)
{
	memset(t, 0, sizeof *t);
	t->path = xstrdup(path);
	*err = NULL;
	size_t pos = 0, cap = 0, id_cap = 0;
	uint64_t *ids = NULL;
	const uint8_t *msg;
	size_t msg_len;
	if (len == 0) {
		*err = str_printf("%s: the file is empty: expected a Chakra trace (a GlobalMetadata message, then nodes)",
			    path);
		goto fail;
	}
	if (next_message(path, "the GlobalMetadata message", data, len, &pos, &msg, &msg_len, err) < 0)
		goto fail;
	ChakraProtoMsg__GlobalMetadata *gm = chakra_proto_msg__global_metadata__unpack(NULL, msg_len, msg);
	if (!gm) {
		*err = str_printf("%s: byte 0: not a Chakra GlobalMetadata message (%zu bytes): a trace begins with one",
			    path, msg_len);
		goto fail;
	}
	t->version = xstrdup(gm->version ? gm->version : "");
	chakra_proto_msg__global_metadata__free_unpacked(gm, NULL);
	while (pos < len) {
		size_t at = pos, k = t->n;
		char where[64];
		snprintf(where, sizeof where, "node %zu", k);
		if (next_message(path, where, data, len, &pos, &msg, &msg_len, err) < 0)
			goto fail;
		if (k >= CHAKRA_MAX_NODES) {
			*err = str_printf("%s: node %zu at byte %zu: more nodes than rocesim reads in one trace (%u)", path, k,
				    at, CHAKRA_MAX_NODES);
			goto fail;
		}
		ChakraProtoMsg__Node *nd = msg_len ? chakra_proto_msg__node__unpack(NULL, msg_len, msg) : NULL;
		if (!nd) {
			*err = str_printf("%s: node %zu at byte %zu: not a valid Chakra Node message (%zu bytes)", path, k, at,
				    msg_len);
			goto fail;
		}
		if (k == cap) {
			cap = cap ? 2 * cap : 64;
			t->node = xrealloc(t->node, cap * sizeof *t->node);
		}
		struct chakra_node *n = &t->node[k];
		char *why = node_fill(t, nd, n);
		if (why) {
			*err = str_printf("%s: node %zu (id %" PRIu64 ") at byte %zu: %s", path, k, nd->id, at, why);
			free(why);
			chakra_proto_msg__node__free_unpacked(nd, NULL);
			goto fail;
		}
		n->offset = at;
		size_t nd_deps = nd->n_ctrl_deps + nd->n_data_deps;
		if (nd_deps > UINT32_MAX - t->n_dep) {
			*err = str_printf("%s: node %zu at byte %zu: too many dependencies in the file", path, k, at);
			chakra_proto_msg__node__free_unpacked(nd, NULL);
			goto fail;
		}
		if (t->n_dep + nd_deps > id_cap) {
			while (t->n_dep + nd_deps > id_cap)
				id_cap = id_cap ? 2 * id_cap : 256;
			ids = xrealloc(ids, id_cap * sizeof *ids);
		}
		n->dep0 = (uint32_t)t->n_dep;
		n->n_deps = (uint32_t)nd_deps;
		if (nd->n_ctrl_deps)
			memcpy(ids + t->n_dep, nd->ctrl_deps, nd->n_ctrl_deps * sizeof *ids);
		if (nd->n_data_deps)
			memcpy(ids + t->n_dep + nd->n_ctrl_deps, nd->data_deps, nd->n_data_deps * sizeof *ids);
		t->n_dep += nd_deps;
		t->count[n->kind]++;
		t->n++;
		chakra_proto_msg__node__free_unpacked(nd, NULL);
	}
	if (link_nodes(t, ids, err) < 0)
		goto fail;
	free(ids);
	return 0;
fail:
	free(ids);
	trace_clear(t);
	return -1;
}

int chakra_trace_read(const char *path, struct chakra_trace *t, char **err)
{
	memset(t, 0, sizeof *t);
	FILE *f = fopen(path, "rb");
	if (!f) {
		*err = str_printf("%s: cannot open the trace: %s", path, strerror(errno));
		return -1;
	}
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = xmalloc(cap);
	size_t got;
	while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap)
			buf = xrealloc(buf, cap *= 2);
	}
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		*err = str_printf("%s: cannot read the trace", path);
		free(buf);
		return -1;
	}
	int rc = chakra_trace_parse(path, buf, len, t, err);
	free(buf);
	return rc;
}
