/*
 * xalloc.h — allocation that cannot fail quietly, and formatted strings.
 *
 * Running out of memory is an internal failure (exit 1, docs/architecture.md "Kernel contracts"): the
 * x* allocators report it and exit, so callers never test for NULL. Error
 * messages handed back to callers are malloc'd strings made by str_printf;
 * err_printf sets *err and returns -1, the usual failure return.
 */
#ifndef ROCESIM_XALLOC_H
#define ROCESIM_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);   /* n may be 0: returns a valid block */
/* n objects of size bytes aligned to a cache line (XALLOC_LINE bytes), for
 * what the hot path walks (ports, switch buffers, packet and event pools),
 * the size rounded up to whole lines; freed with free(). xcalloc_lines
 * zeroes them. */
#define XALLOC_LINE 64
void *xmalloc_lines(size_t n, size_t size);
void *xcalloc_lines(size_t n, size_t size);
/* n zeroed objects of size bytes, page-aligned, taken from the system as
 * needed: a page never written costs no memory, so an array of which a
 * process uses a part (a rank's ports of the whole fabric) holds only that
 * part. Freed with xfree_pages(p, n, size). */
void *xcalloc_pages(size_t n, size_t size);
void xfree_pages(void *p, size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int err_printf(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
