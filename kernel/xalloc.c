/*
 * xalloc.c — see xalloc.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "log.h"
#include "xalloc.h"

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die_internal("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die_internal("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

/* n x size bytes rounded up to whole cache lines (at least one). */
static size_t line_bytes(size_t n, size_t size)
{
	size_t bytes = (n ? n : 1) * (size ? size : 1);
	if (size && bytes / size != (n ? n : 1))
		die_internal("out of memory (%zu x %zu bytes)", n, size);
	return (bytes + XALLOC_LINE - 1) & ~(size_t)(XALLOC_LINE - 1);
}

void *xmalloc_lines(size_t n, size_t size)
{
	void *p = aligned_alloc(XALLOC_LINE, line_bytes(n, size));
	if (!p)
		die_internal("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *xcalloc_lines(size_t n, size_t size)
{
	return memset(xmalloc_lines(n, size), 0, line_bytes(n, size));
}

void *xcalloc_pages(size_t n, size_t size)
{
	void *p = mmap(NULL, line_bytes(n, size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die_internal("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void xfree_pages(void *p, size_t n, size_t size)
{
	if (p)
		munmap(p, line_bytes(n, size));
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		die_internal("out of memory (%zu bytes)", n);
	return q;
}

char *xstrdup(const char *s)
{
	return strcpy(xmalloc(strlen(s) + 1), s);
}

static char *str_vprintf(const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		die_internal("bad message format '%s'", fmt);
	char *s = xmalloc((size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

char *str_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = str_vprintf(fmt, ap);
	va_end(ap);
	return s;
}

int err_printf(char **err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = str_vprintf(fmt, ap);
	va_end(ap);
	if (err)
		*err = s;
	else
		free(s);
	return -1;
}
