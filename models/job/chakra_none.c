/*
 * chakra_none.c — a build configured --without-chakra (no protobuf-c):
 * a `workload = chakra` job is refused with a located error saying so;
 * the other entry points of chakra.h are never reached (no job has ck).
 */
#include "chakra.h"
#include "config.h"
#include "job.h"
#include "job_exec.h"
#include "nic.h"

const char *const chakra_kind_name[CHAKRA_NKIND] = { "comp", "coll", "send", "recv", "mem", "other" };

int chakra_job_create(struct world *w, struct job *j, const struct job_cfg *c, const char *trace,
		      const int *hosts, int n_hosts, char **err)
{
	(void)c; (void)trace; (void)hosts; (void)n_hosts;
	*err = cfg_error_at(w->cfg, j->source, "workload", 0,
			    "this rocesim was built without Chakra traces (configured --without-chakra); "
			    "install libprotobuf-c-dev and protobuf-c-compiler (Debian) and configure without it");
	return -1;
}

int chakra_ranks(const char *trace) { (void)trace; return -1; }
void chakra_job_start(struct job *j) { (void)j; }
void chakra_job_print_plan(const struct job *j, FILE *out) { (void)j; (void)out; }
void chakra_job_estimate(const struct job *j, struct jobs_estimate *e) { (void)j; (void)e; }
bool chakra_job_write_unfinished(struct job *j) { (void)j; return false; }
void chakra_job_free(struct job *j) { (void)j; }
