/*
 * pool.c — chunk allocation behind the pool's free list (see pool.h).
 */
#include <stdlib.h>
#include "pool.h"
#include "xalloc.h"

void pool_init(struct pool *p, size_t obj_size, size_t per_chunk)
{
	*p = (struct pool){ 0 };
	/* Round up so every object is aligned for any field type. */
	p->obj_size = (obj_size < sizeof(struct pool_free) ? sizeof(struct pool_free) : obj_size);
	p->obj_size = (p->obj_size + 15) & ~(size_t)15;
	p->per_chunk = per_chunk ? per_chunk : 1024;
}

void pool_grow(struct pool *p)
{
	if (p->n_chunks == p->cap_chunks) {
		p->cap_chunks = p->cap_chunks ? 2 * p->cap_chunks : 16;
		p->chunks = xrealloc(p->chunks, p->cap_chunks * sizeof *p->chunks);
	}
	/* Cache-line aligned: a 64-byte object (a packet) then fills one line
	 * instead of straddling two. */
	char *chunk = xmalloc_lines(p->per_chunk, p->obj_size);
	p->chunks[p->n_chunks++] = chunk;
	/* Thread the chunk so objects are handed out in address order. */
	for (size_t i = p->per_chunk; i-- > 0;) {
		struct pool_free *o = (struct pool_free *)(chunk + i * p->obj_size);
		o->next = p->free;
		p->free = o;
	}
}

void pool_destroy(struct pool *p)
{
	for (size_t i = 0; i < p->n_chunks; i++)
		free(p->chunks[i]);
	free(p->chunks);
	*p = (struct pool){ 0 };
}
