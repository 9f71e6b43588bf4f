/*
 * idmap.c — ids to pointers (idmap.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include "idmap.h"
#include "xalloc.h"

/* Where id's search starts (Fibonacci hashing). */
static inline size_t home(uint64_t id, size_t cap)
{
	return (size_t)(id * 0x9E3779B97F4A7C15ull) & (cap - 1);
}

/* The slot holding id, or the empty one where it would go (cap > 0). */
static size_t probe(const struct idmap *m, uint64_t id)
{
	size_t k = home(id, m->cap);
	while (m->id[k] && m->id[k] != id)
		k = (k + 1) & (m->cap - 1);
	return k;
}

void *idmap_get(const struct idmap *m, uint64_t id)
{
	if (!m->cap)
		return NULL;
	size_t k = probe(m, id);
	return m->id[k] ? m->v[k] : NULL;
}

void idmap_put(struct idmap *m, uint64_t id, void *v)
{
	if (2 * (m->n + 1) > m->cap) {
		struct idmap g = { .cap = m->cap ? 2 * m->cap : 1024, .n = m->n };
		g.id = xcalloc(g.cap, sizeof *g.id);
		g.v = xcalloc(g.cap, sizeof *g.v);
		for (size_t i = 0; i < m->cap; i++)
			if (m->id[i]) {
				size_t k = probe(&g, m->id[i]);
				g.id[k] = m->id[i];
				g.v[k] = m->v[i];
			}
		free(m->id);
		free(m->v);
		*m = g;
	}
	size_t k = probe(m, id);
	if (!m->id[k]) {
		m->id[k] = id;
		m->n++;
	}
	m->v[k] = v;
}

void *idmap_take(struct idmap *m, uint64_t id)
{
	if (!m->cap)
		return NULL;
	size_t mask = m->cap - 1, hole = probe(m, id);
	if (!m->id[hole])
		return NULL;
	void *v = m->v[hole];
	for (size_t j = (hole + 1) & mask; m->id[j]; j = (j + 1) & mask) {
		size_t h = home(m->id[j], m->cap);
		/* entry j stays when its home lies cyclically in (hole, j] */
		bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
		if (stays)
			continue;
		m->id[hole] = m->id[j];
		m->v[hole] = m->v[j];
		hole = j;
	}
	m->id[hole] = 0;
	m->v[hole] = NULL;
	m->n--;
	return v;
}

void idmap_each(const struct idmap *m, void (*fn)(void *ctx, uint64_t id, void *v), void *ctx)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->id[i])
			fn(ctx, m->id[i], m->v[i]);
}

void idmap_free(struct idmap *m)
{
	free(m->id);
	free(m->v);
	*m = (struct idmap){ 0 };
}
