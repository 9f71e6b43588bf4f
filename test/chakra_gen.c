/*
 * chakra_gen.c — writes small Chakra execution traces for the tests, with
 * the protobuf-c code of models/job/chakra_et_def.proto and Chakra's
 * framing (protolib encodeMessage: each message preceded by its length
 * as a varint; a GlobalMetadata first).
 *
 *   chakra_gen dp PREFIX RANKS COMP_US SIZE_B [PG]
 *       per rank: COMP (COMP_US) -> ALL_REDUCE of SIZE_B (pg_name PG when
 *       given) -> COMP (COMP_US) -> ALL_REDUCE of SIZE_B -> COMP (COMP_US):
 *       two compute/all-reduce rounds and a tail compute; the second
 *       compute has a ctrl dependency on the first all-reduce, the rest
 *       data dependencies.
 *   chakra_gen pp PREFIX STAGES MICRO COMP_US SIZE_B
 *       rank s, for each micro-batch m: RECV from s-1 (tag m; not on stage
 *       0), COMP (COMP_US) after it and after the stage's previous COMP,
 *       SEND of SIZE_B to s+1 (tag m; not on the last stage) after it: a
 *       forward pipeline.
 *   chakra_gen astra PREFIX RANKS SIZE_B
 *       one ALL_REDUCE node per rank laid out as Chakra's et_generator
 *       writes ASTRA-sim's microbenchmarks (generate_comm_coll_node: node
 *       id 0 named ALL_REDUCE, attributes is_cpu_op (bool), comm_type and
 *       comm_size (int64), GlobalMetadata version 0.0.4), with the
 *       involved_dim bool list of its older variant, which rocesim ignores.
 *   chakra_gen bad PREFIX WHAT
 *       one rank with a defect: WHAT = dep (a dependency on an unknown
 *       id), cycle, dup (a repeated id), type (COMM_COLL without
 *       comm_type), reduce (comm_type REDUCE), garbage (a node that is not
 *       a Node message), unmatched (a send without its receive: 2 ranks),
 *       deadlock (2 ranks, each receives from the other before sending
 *       to it: the traces load and the run cannot finish).
 *
 * Files: PREFIX.R.et for each rank R. Exit 0, or 1 with a message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chakra_et_def.pb-c.h"

static FILE *out;

static void put_varint(uint64_t v)
{
	do {
		uint8_t b = v & 0x7f;
		v >>= 7;
		fputc(b | (v ? 0x80 : 0), out);
	} while (v);
}

static void put_message(const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	uint8_t *buf = malloc(n ? n : 1);
	protobuf_c_message_pack(m, buf);
	put_varint(n);
	fwrite(buf, 1, n, out);
	free(buf);
}

static void open_rank(const char *prefix, int r)
{
	char path[4096];
	snprintf(path, sizeof path, "%s.%d.et", prefix, r);
	out = fopen(path, "wb");
	if (!out) {
		perror(path);
		exit(1);
	}
	ChakraProtoMsg__GlobalMetadata gm = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
	gm.version = "0.0.4";
	put_message(&gm.base);
}

/* A node under construction: up to 8 attributes and 4 dependencies. */
struct gnode {
	ChakraProtoMsg__Node n;
	ChakraProtoMsg__AttributeProto a[8];
	ChakraProtoMsg__AttributeProto *ap[8];
	uint64_t ctrl[4], data[4];
};

static void node_init(struct gnode *g, uint64_t id, ChakraProtoMsg__NodeType type, const char *name)
{
	memset(g, 0, sizeof *g);
	ChakraProtoMsg__Node init = CHAKRA_PROTO_MSG__NODE__INIT;
	g->n = init;
	g->n.id = id;
	g->n.type = type;
	g->n.name = (char *)name;
	g->n.attr = g->ap;
	g->n.ctrl_deps = g->ctrl;
	g->n.data_deps = g->data;
}

static ChakraProtoMsg__AttributeProto *attr_new(struct gnode *g, const char *name)
{
	ChakraProtoMsg__AttributeProto init = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
	ChakraProtoMsg__AttributeProto *a = &g->a[g->n.n_attr];
	*a = init;
	a->name = (char *)name;
	g->ap[g->n.n_attr++] = a;
	return a;
}

/* Integer attributes as Chakra's converters write them: comm_type and
 * comm_size int64, the ranks and tag int32 (the reader takes any). */
static void attr_i64(struct gnode *g, const char *name, int64_t v)
{
	ChakraProtoMsg__AttributeProto *a = attr_new(g, name);
	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
	a->int64_val = v;
}

static void attr_i32(struct gnode *g, const char *name, int32_t v)
{
	ChakraProtoMsg__AttributeProto *a = attr_new(g, name);
	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL;
	a->int32_val = v;
}

static void attr_str(struct gnode *g, const char *name, const char *v)
{
	ChakraProtoMsg__AttributeProto *a = attr_new(g, name);
	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
	a->string_val = (char *)v;
}

static void attr_bool(struct gnode *g, const char *name, int v)
{
	ChakraProtoMsg__AttributeProto *a = attr_new(g, name);
	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
	a->bool_val = v;
}

static void dep_data(struct gnode *g, uint64_t id) { g->data[g->n.n_data_deps++] = id; }
static void dep_ctrl(struct gnode *g, uint64_t id) { g->ctrl[g->n.n_ctrl_deps++] = id; }

static void comp(struct gnode *g, uint64_t id, uint64_t us)
{
	node_init(g, id, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, "aten::mm");
	g->n.duration_micros = us;
	attr_bool(g, "is_cpu_op", 0);
}

static void coll(struct gnode *g, uint64_t id, int64_t type, int64_t size, const char *pg)
{
	node_init(g, id, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, "nccl:all_reduce");
	attr_i64(g, "comm_type", type);
	attr_i64(g, "comm_size", size);
	if (pg)
		attr_str(g, "pg_name", pg);
}

static void emit(struct gnode *g) { put_message(&g->n.base); }

static void gen_dp(const char *prefix, int ranks, uint64_t us, int64_t size, const char *pg)
{
	for (int r = 0; r < ranks; r++) {
		struct gnode g;
		open_rank(prefix, r);
		/* Written out of id order: the reader must follow the
		 * dependencies, not the file order. */
		comp(&g, 10, us); emit(&g);
		coll(&g, 11, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE, size, pg); dep_data(&g, 10); emit(&g);
		comp(&g, 12, us); dep_ctrl(&g, 11); emit(&g);
		coll(&g, 13, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE, size, pg); dep_data(&g, 12); emit(&g);
		comp(&g, 14, us); dep_data(&g, 13); emit(&g);
		fclose(out);
	}
}

static void gen_pp(const char *prefix, int stages, int micro, uint64_t us, int64_t size)
{
	for (int s = 0; s < stages; s++) {
		struct gnode g;
		open_rank(prefix, s);
		uint64_t prev_comp = 0;
		for (int m = 0; m < micro; m++) {
			uint64_t base = 100 + 10 * (uint64_t)m;
			if (s > 0) {
				node_init(&g, base, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE, "recv");
				attr_i32(&g, "comm_src", s - 1);
				attr_i32(&g, "comm_tag", m);
				attr_i64(&g, "comm_size", size);
				emit(&g);
			}
			comp(&g, base + 1, us);
			if (s > 0)
				dep_data(&g, base);
			if (prev_comp)
				dep_ctrl(&g, prev_comp);
			emit(&g);
			prev_comp = base + 1;
			if (s < stages - 1) {
				node_init(&g, base + 2, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, "send");
				attr_i32(&g, "comm_dst", s + 1);
				attr_i32(&g, "comm_tag", m);
				attr_i64(&g, "comm_size", size);
				dep_data(&g, base + 1);
				emit(&g);
			}
		}
		fclose(out);
	}
}

static void gen_astra(const char *prefix, int ranks, int64_t size)
{
	for (int r = 0; r < ranks; r++) {
		struct gnode g;
		open_rank(prefix, r);
		node_init(&g, 0, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, "ALL_REDUCE");
		attr_bool(&g, "is_cpu_op", 0);
		attr_i64(&g, "comm_type", CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE);
		attr_i64(&g, "comm_size", size);
		ChakraProtoMsg__BoolList dims = CHAKRA_PROTO_MSG__BOOL_LIST__INIT;
		protobuf_c_boolean v[2] = { 1, 1 };
		dims.n_values = 2;
		dims.values = v;
		ChakraProtoMsg__AttributeProto *a = attr_new(&g, "involved_dim");
		a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_LIST;
		a->bool_list = &dims;
		emit(&g);
		fclose(out);
	}
}

static int gen_bad(const char *prefix, const char *what)
{
	struct gnode g;
	open_rank(prefix, 0);
	comp(&g, 1, 5); emit(&g);
	if (strcmp(what, "dep") == 0) {
		comp(&g, 2, 5); dep_data(&g, 1); dep_data(&g, 77); emit(&g);
	} else if (strcmp(what, "cycle") == 0) {
		comp(&g, 2, 5); dep_data(&g, 3); emit(&g);
		comp(&g, 3, 5); dep_data(&g, 2); emit(&g);
	} else if (strcmp(what, "dup") == 0) {
		comp(&g, 1, 5); emit(&g);
	} else if (strcmp(what, "type") == 0) {
		node_init(&g, 2, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, "c");
		attr_i64(&g, "comm_size", 64);
		emit(&g);
	} else if (strcmp(what, "reduce") == 0) {
		coll(&g, 2, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE, 64, NULL); emit(&g);
	} else if (strcmp(what, "garbage") == 0) {
		static const uint8_t junk[] = { 0xff, 0xff, 0xff, 0x07, 0x01 };
		put_varint(sizeof junk);
		fwrite(junk, 1, sizeof junk, out);
	} else if (strcmp(what, "unmatched") == 0) {
		node_init(&g, 2, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, "send");
		attr_i32(&g, "comm_dst", 1);
		attr_i64(&g, "comm_size", 64);
		emit(&g);
		fclose(out);
		open_rank(prefix, 1);
		comp(&g, 1, 5); emit(&g);
	} else if (strcmp(what, "deadlock") == 0) {
		for (int r = 0; r < 2; r++) {
			if (r) {
				fclose(out);
				open_rank(prefix, 1);
				comp(&g, 1, 5); emit(&g);
			}
			node_init(&g, 2, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE, "recv");
			attr_i32(&g, "comm_src", 1 - r);
			attr_i64(&g, "comm_size", 64);
			emit(&g);
			node_init(&g, 3, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, "send");
			attr_i32(&g, "comm_dst", 1 - r);
			attr_i64(&g, "comm_size", 64);
			dep_data(&g, 2);
			emit(&g);
		}
	} else {
		fprintf(stderr, "chakra_gen: bad: unknown defect %s\n", what);
		return 1;
	}
	fclose(out);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 6 && strcmp(argv[1], "dp") == 0) {
		gen_dp(argv[2], atoi(argv[3]), strtoull(argv[4], NULL, 10), strtoll(argv[5], NULL, 10),
		       argc > 6 ? argv[6] : NULL);
		return 0;
	}
	if (argc == 7 && strcmp(argv[1], "pp") == 0) {
		gen_pp(argv[2], atoi(argv[3]), atoi(argv[4]), strtoull(argv[5], NULL, 10), strtoll(argv[6], NULL, 10));
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "astra") == 0) {
		gen_astra(argv[2], atoi(argv[3]), strtoll(argv[4], NULL, 10));
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "bad") == 0)
		return gen_bad(argv[2], argv[3]);
	fprintf(stderr, "usage: chakra_gen dp PREFIX RANKS COMP_US SIZE_B [PG] | pp PREFIX STAGES MICRO COMP_US SIZE_B"
		" | astra PREFIX RANKS SIZE_B | bad PREFIX dep|cycle|dup|type|reduce|garbage|unmatched|deadlock\n");
	return 1;
}
