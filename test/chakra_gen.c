/*
 * chakra_gen.c — writes small Chakra execution traces for the tests
 * (chakra_build.h: the schema's protobuf-c code, Chakra's framing).
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
#include "chakra_build.h"

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
		close_rank();
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
		close_rank();
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
		close_rank();
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
		fwrite(junk, 1, sizeof junk, ck_out);
	} else if (strcmp(what, "unmatched") == 0) {
		node_init(&g, 2, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, "send");
		attr_i32(&g, "comm_dst", 1);
		attr_i64(&g, "comm_size", 64);
		emit(&g);
		close_rank();
		open_rank(prefix, 1);
		comp(&g, 1, 5); emit(&g);
	} else if (strcmp(what, "deadlock") == 0) {
		for (int r = 0; r < 2; r++) {
			if (r) {
				close_rank();
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
	close_rank();
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
