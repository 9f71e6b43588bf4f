/*
 * chakra_build.h — writing Chakra execution traces for the tests, with the
 * protobuf-c code of models/job/chakra_et_def.proto and Chakra's framing
 * (protolib encodeMessage: each message preceded by its length as a
 * varint; a GlobalMetadata first). One trace file open at a time (ck_out).
 * Header-only, like testutil.h; used by chakra_gen.c and test_chakra.c.
 */
#ifndef ROCESIM_TEST_CHAKRA_BUILD_H
#define ROCESIM_TEST_CHAKRA_BUILD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chakra_et_def.pb-c.h"

static FILE *ck_out; /* the trace file being written */

static inline void put_varint(uint64_t v)
{
	do {
		uint8_t b = v & 0x7f;
		v >>= 7;
		fputc(b | (v ? 0x80 : 0), ck_out);
	} while (v);
}

static inline void put_message(const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	uint8_t *buf = malloc(n ? n : 1);
	protobuf_c_message_pack(m, buf);
	put_varint(n);
	fwrite(buf, 1, n, ck_out);
	free(buf);
}

static inline void close_rank(void)
{
	fclose(ck_out);
	ck_out = NULL;
}

static inline void open_rank(const char *prefix, int r)
{
	char path[4096];
	snprintf(path, sizeof path, "%s.%d.et", prefix, r);
	ck_out = fopen(path, "wb");
	if (!ck_out) {
		perror(path);
		exit(1);
	}
	ChakraProtoMsg__GlobalMetadata gm = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
	gm.version = "0.0.4";
	put_message(&gm.base);
}

/* A node under construction: up to 8 attributes and 4 dependencies. */
struct gnode {
	ChakraProtoMsg__Node n;                 /* the message */
	ChakraProtoMsg__AttributeProto a[8];    /* its attributes */
	ChakraProtoMsg__AttributeProto *ap[8];  /* n.attr: pointers to a */
	uint64_t ctrl[4], data[4];              /* n.ctrl_deps, n.data_deps */
};

static inline void node_init(struct gnode *g, uint64_t id, ChakraProtoMsg__NodeType type, const char *name)
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

static inline ChakraProtoMsg__AttributeProto *attr_new(struct gnode *g, const char *name)
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
static inline void attr_i64(struct gnode *g, const char *name, int64_t v)
{
	ChakraProtoMsg__AttributeProto *a = attr_new(g, name);
	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
	a->int64_val = v;
}

static inline void attr_i32(struct gnode *g, const char *name, int32_t v)
{
	ChakraProtoMsg__AttributeProto *a = attr_new(g, name);
	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL;
	a->int32_val = v;
}

static inline void attr_str(struct gnode *g, const char *name, const char *v)
{
	ChakraProtoMsg__AttributeProto *a = attr_new(g, name);
	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
	a->string_val = (char *)v;
}

static inline void attr_bool(struct gnode *g, const char *name, int v)
{
	ChakraProtoMsg__AttributeProto *a = attr_new(g, name);
	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
	a->bool_val = v;
}

static inline void dep_data(struct gnode *g, uint64_t id) { g->data[g->n.n_data_deps++] = id; }
static inline void dep_ctrl(struct gnode *g, uint64_t id) { g->ctrl[g->n.n_ctrl_deps++] = id; }

static inline void comp(struct gnode *g, uint64_t id, uint64_t us)
{
	node_init(g, id, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, "aten::mm");
	g->n.duration_micros = us;
	attr_bool(g, "is_cpu_op", 0);
}

static inline void coll(struct gnode *g, uint64_t id, int64_t type, int64_t size, const char *pg)
{
	node_init(g, id, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, "nccl:all_reduce");
	attr_i64(g, "comm_type", type);
	attr_i64(g, "comm_size", size);
	if (pg)
		attr_str(g, "pg_name", pg);
}

static inline void emit(struct gnode *g) { put_message(&g->n.base); }

#endif
