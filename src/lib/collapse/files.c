/*
 * Disk usage by directory, as files.pl gathers it: every file, folder and
 * link under the folders named (lstat's size, links not followed), each
 * a line "top;dir;name size" in the order of a depth-first walk, names
 * sorted by bytes in each folder (files.pl's is the folder's own order);
 * the path's '/' become ';' and every byte but [;.a-zA-Z0-9-] a '_'.
 * With --xdev, folders on another file system than the first top are
 * left out.  The input is not a stream: `path` walks the tree.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collapse.h"

#define MAX_DEPTH 4096

struct files_state {
	struct collapse_sink *k;
	int xdev;
	int have_dev;
	dev_t dev;
	struct ember_buf path, line;
};

static void print(struct files_state *st, off_t size)
{
	struct ember_buf *o = &st->k->out;
	const char *p = st->path.buf;
	size_t n = st->path.len, start = o->len;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c == '/')
			c = ';';
		else if (!(c == ';' || c == '.' || c == '-' || cl_digit(c) ||
			   (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			c = '_';
		if (!(o->len == start && c == ';' && i == 0))
			ember_buf_addch(o, (char)c);
	}
	ember_buf_addch(o, ' ');
	ember_buf_addf(o, "%lld", (long long)size);
	ember_buf_addch(o, '\n');
	st->k->n.records++;
	st->k->n.lines++;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entry at st->path (lstat'ed as sb), and what is under it. */
static void walk(struct files_state *st, const struct stat *sb, int depth)
{
	if (st->xdev) {
		if (!st->have_dev) {
			st->dev = sb->st_dev;
			st->have_dev = 1;
		} else if (st->dev != sb->st_dev) {
			return; /* pruned */
		}
	}
	print(st, sb->st_size);
	if (!S_ISDIR(sb->st_mode))
		return;
	if (depth >= MAX_DEPTH) {
		cl_bad(st->k, st->path.buf, st->path.len);
		return;
	}
	DIR *d = opendir(st->path.buf);
	if (!d) {
		cl_bad(st->k, st->path.buf, st->path.len); /* unreadable */
		return;
	}
	char **names = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		EMBER_GROW(names, n + 1, alloc);
		names[n++] = ember_xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	size_t base = st->path.len;
	for (size_t i = 0; i < n; i++) {
		struct stat cs;
		if (!base || st->path.buf[base - 1] != '/')
			ember_buf_addch(&st->path, '/');
		ember_buf_adds(&st->path, names[i]);
		if (!lstat(st->path.buf, &cs))
			walk(st, &cs, depth + 1);
		ember_buf_setlen(&st->path, base);
		free(names[i]);
	}
	free(names);
}

static int files_path(void *arg, const char *top)
{
	struct files_state *st = arg;
	struct stat sb;

	if (lstat(top, &sb))
		return errno == ENOENT	 ? EMBER_ENOENT
		       : errno == EACCES ? EMBER_EPERM
					 : EMBER_EIO;
	ember_buf_reset(&st->path);
	ember_buf_adds(&st->path, top);
	walk(st, &sb, 0);
	return 0;
}

static void *files_new(const struct ember_collapse_options *o,
		       struct collapse_sink *k)
{
	struct files_state *st = ember_xcalloc(1, sizeof(*st));

	st->k = k;
	st->xdev = o->files_xdev;
	ember_buf_init(&st->path, 0);
	return st;
}

static void files_free(void *arg)
{
	struct files_state *st = arg;

	if (!st)
		return;
	ember_buf_release(&st->path);
	free(st);
}

/* A stream given as files' input: nothing to walk. */
static void files_parse(void *arg, const char *p, size_t len)
{
	struct files_state *st = arg;

	(void)p;
	if (len && !st->k->n.bad)
		cl_bad(st->k, "not a folder", 12);
}

const struct ember_collapser ember_collapser_files = {
    .name = "files",
    .summary = "disk usage of folders, for a flame graph of it (files.pl)",
    .order = CL_INPUT,
    .detect = NULL,
    .state_new = files_new,
    .state_free = files_free,
    .parse = files_parse,
    .path = files_path,
};
