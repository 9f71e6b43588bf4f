/*
 * mkdirs.c — mkdir -p, remembering each folder created (see mkdirs.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mkdirs.h"

/* Appends a copy of dir to *made; ENOMEM (and rmdir) when it cannot. */
static int remember(const char *dir, char ***made, size_t *n_made)
{
	char **m = realloc(*made, (*n_made + 1) * sizeof *m);
	char *copy = strdup(dir);
	if (m)
		*made = m;
	if (!m || !copy) {
		free(copy);
		rmdir(dir);
		return ENOMEM;
	}
	m[(*n_made)++] = copy;
	return 0;
}

int mkdirs(const char *dir, char ***made, size_t *n_made, char **where)
{
	char *d = strdup(dir);
	if (!d)
		return ENOMEM;
	int e = 0;
	struct stat sb;
	for (char *p = d + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char saved = *p;
		*p = '\0';
		if (mkdir(d, 0777) == 0) {
			if ((e = remember(d, made, n_made)) != 0)
				break;
		} else if (!(stat(d, &sb) == 0 && S_ISDIR(sb.st_mode))) {
			/* An existing folder may also answer EACCES or EROFS; a
			 * file in the way answers EEXIST, which says less than
			 * ENOTDIR. */
			e = errno == EEXIST ? ENOTDIR : errno;
			*where = strdup(d);
			break;
		}
		*p = saved;
		if (!saved)
			break;
	}
	free(d);
	return e;
}
