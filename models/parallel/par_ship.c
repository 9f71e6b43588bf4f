/*
 * par_ship.c — the other ranks' files reaching rank 0, and the ranks
 * agreeing on an error while they open them (parallel.h).
 *
 * A rank r > 0 writes its part of the database, its part of fct.txt and
 * the captures of its ports. Where ([parallel] parts):
 *   folder    beside the output (OUTPUT.rankN, the output's capture
 *             folder), where rank 0 reads them: a folder every rank sees
 *             (one machine, or a file system the machines share);
 *   messages  in a private folder of its own machine's temporary
 *             directory ($TMPDIR, else /tmp); once the run is over it sends
 *             them to rank 0 as MPI messages, and rank 0 writes them where
 *             the folder would have had them, so the merge that follows is
 *             the same;
 *   auto      folder when every rank is on rank 0's machine and sees the
 *             output's folder there (the same device and inode: not a
 *             container with a folder of its own at that path), else
 *             messages.
 * A sweep under mpirun sends its points' files the same way (sweep_ranks.c).
 *
 * A file travels as its size (int64; -1: there is none) and then pieces of
 * at most SHIP_PIECE bytes, then whether the sender read it whole; a
 * folder as its count of files, each as its name then the file. Rank 0
 * takes the ranks in order.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fabric.h"
#include "log.h"
#include "mkdirs.h"
#include "nic.h"
#include "par_internal.h"
#include "xalloc.h"

#ifdef HAVE_MPI

#define SHIP_PIECE ((size_t)8 << 20)
#define SHIP_TAG 0x5e9

/* The capture folder inside a rank's private folder. */
#define SHIP_CAPTURES "pcap"

/* The folder that holds path, or its nearest ancestor that exists yet
 * (the run makes the rest): its device and inode into id[0..2). */
static void folder_id(const char *path, uint64_t id[2])
{
	char *dir = xstrdup(path);
	struct stat sb;
	for (;;) {
		char *slash = strrchr(dir, '/');
		if (!slash) {
			strcpy(dir, ".");
		} else if (slash == dir) {
			dir[1] = '\0';
		} else {
			*slash = '\0';
		}
		if (stat(dir, &sb) == 0 || !strcmp(dir, ".") || !strcmp(dir, "/"))
			break;
	}
	if (stat(dir, &sb) != 0)
		memset(&sb, 0, sizeof sb);
	id[0] = (uint64_t)sb.st_dev;
	id[1] = (uint64_t)sb.st_ino;
	free(dir);
}

/* Every rank, on every rank: whether they all see rank 0's folder of path
 * (the same device and inode: ranks of one machine in one mount namespace;
 * only meaningful when every rank is on rank 0's machine). */
static bool all_see_folder(const char *path)
{
	uint64_t mine[2], zero[2];
	folder_id(path, mine);
	memcpy(zero, mine, sizeof zero);
	MPI_Bcast(zero, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	int same = !memcmp(zero, mine, sizeof mine), all = 0;
	MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
	return all;
}

/* Every rank, on every rank: whether they all run on rank 0's machine. */
static bool all_with_rank0(void)
{
	MPI_Comm node;
	int zero = par_rank() == 0, with_zero = 0;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	MPI_Allreduce(&zero, &with_zero, 1, MPI_INT, MPI_MAX, node); /* rank 0 on this machine */
	MPI_Comm_free(&node);
	int apart = !with_zero, any = 0;
	MPI_Allreduce(&apart, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return !any;
}

char *par_private_folder(char **err)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	char *dir = str_printf("%s/rocesim-XXXXXX", tmp);
	if (mkdtemp(dir))
		return dir;
	*err = str_printf("[parallel] parts: cannot make a folder for this rank's part of the results in %s: "
			  "%s (set TMPDIR to a folder every rank can write)", tmp, strerror(errno));
	free(dir);
	return NULL;
}

bool par_all_share_folder(const char *path)
{
	return all_with_rank0() && all_see_folder(path);
}

/* Rank 0: removes what sits where the other ranks' parts of base will be
 * (an old run's), so that a part found at the merge is this run's. */
static void parts_clear(const struct par *p, const char *base)
{
	for (int r = 1; base && p->me == 0 && r < p->n; r++) {
		char *part = par_part_path(base, r);
		unlink(part);
		free(part);
	}
}

int par_ship_open(struct par *p, const char *output, const char *fct, char **err)
{
	if (p->solo)
		return 0;
	parts_clear(p, output);
	parts_clear(p, fct);
	MPI_Barrier(p->comm); /* before any rank opens its part (fct.txt's are not renamed into place) */
	const struct parallel_cfg *pc = cfg_get(p->w->cfg, &parallel_section);
	int parts = pc ? pc->parts : PAR_PARTS_AUTO;
	if (parts == PAR_PARTS_FOLDER && all_with_rank0() && !all_see_folder(output)) {
		*err = cfg_error_at(p->w->cfg, "parallel", "parts", 0, "a rank does not see the folder of %s that "
				    "rank 0 sees (a container or mount namespace of its own?): use messages (or auto)",
				    output);
		return -1;
	}
	p->ship = parts == PAR_PARTS_MESSAGES || (parts == PAR_PARTS_AUTO && !par_all_share_folder(output));
	if (!p->ship || p->me == 0)
		return 0;
	p->ship_dir = par_private_folder(err);
	return p->ship_dir ? 0 : -1;
}

char *par_part_here(const struct par *p, const char *base, const char *what)
{
	if (p->ship_dir)
		return str_printf("%s/%s", p->ship_dir, what);
	return par_part_path(base, p->me);
}

char *par_captures_here(const struct par *p)
{
	return p->ship_dir ? str_printf("%s/%s", p->ship_dir, SHIP_CAPTURES) : NULL;
}

/* The bytes of the piece of a file of size bytes that starts at off. */
static size_t piece(int64_t size, int64_t off)
{
	return (uint64_t)(size - off) < SHIP_PIECE ? (size_t)(size - off) : SHIP_PIECE;
}

void par_send_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat sb;
	int64_t size = f && fstat(fileno(f), &sb) == 0 ? (int64_t)sb.st_size : -1;
	MPI_Send(&size, 1, MPI_INT64_T, 0, SHIP_TAG, MPI_COMM_WORLD);
	int whole = 1;
	if (size > 0) {
		char *buf = xmalloc(piece(size, 0));
		for (int64_t off = 0; off < size;) {
			size_t n = piece(size, off);
			if (whole && fread(buf, 1, n, f) != n)
				whole = 0; /* the size was announced: send the pieces anyway */
			MPI_Send(buf, (int)n, MPI_BYTE, 0, SHIP_TAG, MPI_COMM_WORLD);
			off += (int64_t)n;
		}
		free(buf);
	}
	if (size >= 0)
		MPI_Send(&whole, 1, MPI_INT, 0, SHIP_TAG, MPI_COMM_WORLD);
	if (f)
		fclose(f);
	if (size >= 0 && !whole)
		warnx_sim("rank %d could not read %s to send it to rank 0", par_rank(), path);
	unlink(path);
}

int par_recv_file(int from, const char *path)
{
	int64_t size;
	MPI_Recv(&size, 1, MPI_INT64_T, from, SHIP_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (size < 0)
		return 1;
	FILE *f = fopen(path, "wb");
	int e = f ? 0 : errno, whole = 1;
	char *buf = xmalloc(size ? piece(size, 0) : 1);
	for (int64_t off = 0; off < size;) {
		size_t n = piece(size, off);
		MPI_Recv(buf, (int)n, MPI_BYTE, from, SHIP_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (f && !e && fwrite(buf, 1, n, f) != n)
			e = errno ? errno : EIO;
		off += (int64_t)n;
	}
	free(buf);
	MPI_Recv(&whole, 1, MPI_INT, from, SHIP_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (f && fclose(f) != 0 && !e)
		e = errno ? errno : EIO;
	if (!e && whole)
		return 0;
	if (e)
		warnx_sim("could not write rank %d's %s: %s", from, path, strerror(e));
	else
		warnx_sim("rank %d could not send %s whole", from, path);
	unlink(path);
	return -1;
}

int par_ship_part(struct par *p, const char *base, const char *what)
{
	if (!p->ship || !base)
		return 0;
	if (p->me) {
		char *mine = par_part_here(p, base, what);
		par_send_file(mine);
		free(mine);
		return 0;
	}
	int rc = 0;
	for (int r = 1; r < p->n; r++) {
		char *at = par_part_path(base, r);
		if (par_recv_file(r, at) < 0)
			rc = -1;
		free(at);
	}
	return rc;
}

/* Removes every file of dir, then dir. */
static void remove_folder(const char *dir)
{
	DIR *d = opendir(dir);
	for (struct dirent *de; d && (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		char *path = str_printf("%s/%s", dir, de->d_name);
		unlink(path);
		free(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

void par_send_folder(const char *dir)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	int n = 0, cap = 0;
	for (struct dirent *de; d && (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap)
			names = xrealloc(names, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *names);
		names[n++] = xstrdup(de->d_name);
	}
	if (d)
		closedir(d);
	MPI_Send(&n, 1, MPI_INT, 0, SHIP_TAG, MPI_COMM_WORLD);
	for (int i = 0; i < n; i++) {
		int len = (int)strlen(names[i]) + 1;
		MPI_Send(&len, 1, MPI_INT, 0, SHIP_TAG, MPI_COMM_WORLD);
		MPI_Send(names[i], len, MPI_CHAR, 0, SHIP_TAG, MPI_COMM_WORLD);
		char *path = str_printf("%s/%s", dir, names[i]);
		par_send_file(path);
		free(path);
		free(names[i]);
	}
	free(names);
	remove_folder(dir);
}

int par_recv_folder(int from, const char *dir)
{
	int n, rc = 0;
	MPI_Recv(&n, 1, MPI_INT, from, SHIP_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	char **made = NULL, *where = NULL;
	size_t n_made = 0;
	int e = n ? mkdirs(dir, &made, &n_made, &where) : 0;
	if (e) {
		warnx_sim("could not receive rank %d's files: cannot create folder %s: %s", from, where,
			  strerror(e));
		free(where);
		rc = -1;
	}
	for (size_t i = 0; i < n_made; i++)
		free(made[i]);
	free(made);
	for (int i = 0; i < n; i++) {
		int len;
		MPI_Recv(&len, 1, MPI_INT, from, SHIP_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		char *name = xmalloc((size_t)len);
		MPI_Recv(name, len, MPI_CHAR, from, SHIP_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		/* a file's name, never a path (the sender listed its own folder) */
		if (len < 2 || name[len - 1] || strchr(name, '/'))
			die_internal("rank %d sent a file named '%.*s'", from, len, name);
		char *path = str_printf("%s/%s", dir, name);
		if (par_recv_file(from, path) < 0)
			rc = -1;
		free(path);
		free(name);
	}
	return rc;
}

int par_ship_captures(struct par *p, const char *dir)
{
	if (!p->ship)
		return 0;
	if (p->me) {
		char *mine = par_captures_here(p);
		par_send_folder(mine);
		free(mine);
		return 0;
	}
	int rc = 0;
	for (int r = 1; r < p->n; r++)
		if (par_recv_folder(r, dir) < 0)
			rc = -1;
	return rc;
}

void par_ship_close(struct par *p)
{
	if (!p->ship_dir)
		return;
	/* Whatever was not sent (the run ended before its files were): its
	 * part, fct.txt and captures. */
	char *cap = par_captures_here(p);
	remove_folder(cap);
	free(cap);
	remove_folder(p->ship_dir);
	free(p->ship_dir);
	p->ship_dir = NULL;
}

char *par_first_error(struct par *p, const char *mine)
{
	int me = mine ? p->me : p->n, first = p->n;
	MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, p->comm);
	if (first == p->n)
		return NULL;
	int len = first == p->me ? (int)strlen(mine) + 1 : 0;
	MPI_Bcast(&len, 1, MPI_INT, first, p->comm);
	char *text = xmalloc((size_t)len);
	if (first == p->me)
		memcpy(text, mine, (size_t)len);
	MPI_Bcast(text, len, MPI_CHAR, first, p->comm);
	if (first == 0)
		return text;
	char *said = str_printf("rank %d: %s", first, text);
	free(text);
	return said;
}

#else /* no MPI: no partitioned run, nothing to send */

int par_ship_open(struct par *p, const char *output, const char *fct, char **err)
{
	(void)p;
	(void)output;
	(void)fct;
	(void)err;
	return 0;
}
bool par_all_share_folder(const char *path)
{
	(void)path;
	return true;
}
char *par_part_here(const struct par *p, const char *base, const char *what)
{
	(void)what;
	return par_part_path(base, p->me);
}
char *par_captures_here(const struct par *p) { (void)p; return NULL; }

int par_ship_part(struct par *p, const char *base, const char *what)
{
	(void)p;
	(void)base;
	(void)what;
	return 0;
}
int par_ship_captures(struct par *p, const char *dir) { (void)p; (void)dir; return 0; }
char *par_private_folder(char **err)
{
	*err = xstrdup("[parallel] parts: this sim was built without MPI");
	return NULL;
}
void par_send_file(const char *path) { (void)path; }
int par_recv_file(int from, const char *path)
{
	(void)from;
	(void)path;
	return 1;
}
void par_send_folder(const char *dir) { (void)dir; }
int par_recv_folder(int from, const char *dir)
{
	(void)from;
	(void)dir;
	return 0;
}
void par_ship_close(struct par *p) { (void)p; }
char *par_first_error(struct par *p, const char *mine)
{
	(void)p;
	return mine ? xstrdup(mine) : NULL;
}

#endif
