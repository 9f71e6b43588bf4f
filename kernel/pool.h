/*
 * pool.h — fixed-size object pool with a free list.
 *
 * Objects come from chunks that are never returned to malloc until the pool
 * is destroyed, so get/put are a few instructions and the hot path never
 * allocates. Used for packets and flows.
 */
#ifndef ROCESIM_POOL_H
#define ROCESIM_POOL_H

#include <stddef.h>
#include <stdint.h>

struct pool_free { struct pool_free *next; };

struct pool {
	size_t obj_size;         /* bytes per object (>= sizeof(void *)) */
	size_t per_chunk;        /* objects per chunk */
	struct pool_free *free;  /* free list */
	void **chunks;           /* chunks to release */
	size_t n_chunks, cap_chunks;
	size_t live;             /* objects handed out and not returned */
	size_t peak;             /* most objects live at once */
};

void pool_init(struct pool *p, size_t obj_size, size_t per_chunk);
void pool_destroy(struct pool *p);
void pool_grow(struct pool *p);

static inline void *pool_get(struct pool *p)
{
	if (!p->free)
		pool_grow(p);
	struct pool_free *o = p->free;
	p->free = o->next;
	if (++p->live > p->peak)
		p->peak = p->live;
	return o;
}

static inline void pool_put(struct pool *p, void *obj)
{
	struct pool_free *o = obj;
	o->next = p->free;
	p->free = o;
	p->live--;
}

#endif
