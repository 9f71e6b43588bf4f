/* nvlink.c — placeholder until the NVLink model lands (see nvlink.h). */
#include "log.h"
#include "nvlink.h"
#include "world.h"

struct flow *nvlink_post(struct world *w, int src_gpu, int dst_gpu, uint64_t size_b,
			 const char *source, const char *parallelism)
{
	(void)size_b; (void)source; (void)parallelism;
	die_internal("NVLink message from GPU %d to GPU %d: the NVLink model is not built yet", src_gpu, dst_gpu);
	(void)w;
	return NULL;
}
