/*
 * idmap.h — a map from nonzero 64-bit ids (message ids) to pointers:
 * open addressing, linear probing, at most half full, deletion by moving
 * back the entries a hole would hide (no tombstones). A zeroed struct is
 * an empty map.
 */
#ifndef ROCESIM_IDMAP_H
#define ROCESIM_IDMAP_H

#include <stddef.h>
#include <stdint.h>

struct idmap {
	uint64_t *id;              /* [cap], 0: empty */
	void **v;                  /* [cap] */
	size_t n, cap;             /* entries; slots (0 or a power of 2) */
};

/* id's value, or NULL when id is not in m. */
void *idmap_get(const struct idmap *m, uint64_t id);
/* Sets id's value (id != 0), adding id if absent. */
void idmap_put(struct idmap *m, uint64_t id, void *v);
/* Removes id; returns its value, or NULL when it was not in m. */
void *idmap_take(struct idmap *m, uint64_t id);
/* Calls fn on every value, in slot order. */
void idmap_each(const struct idmap *m, void (*fn)(void *ctx, uint64_t id, void *v), void *ctx);
void idmap_free(struct idmap *m);

#endif
