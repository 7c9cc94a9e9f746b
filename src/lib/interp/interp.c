/*
 * The runtimes' readers behind one interface (interp.h): finding which
 * one a process runs from the files it maps, reading its memory, and the
 * cache of frame names.  A name is cached by (code address, first line):
 * the BPF program reads the first line of the code object at each sample,
 * so an address reused by another function does not keep the old name
 * (unless that one starts on the same line).  The code's line table is
 * cached with its name; a frame's line is looked up in it at each sample.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "interp/interp.h"
#include "symbols/elf.h"
#include "symbols/procfs.h"

static const struct rec_interp_ops *const runtimes[] = {
    &rec_interp_cpython,
};

struct rec_interp_name {
	uint64_t code;
	int32_t line;
	uint32_t len; /* UINT32_MAX: empty slot */
	char *s;
	struct rec_interp_line *lines; /* by unit; NULL: none read */
	uint32_t nlines;
};

struct rec_interp_names {
	struct rec_interp_name *v;
	size_t n, mask;
	struct ember_buf buf;
};

int rec_interp_read(int pid, uint64_t addr, void *dst, size_t n)
{
	struct iovec l = {dst, n}, r = {(void *)(uintptr_t)addr, n};

	if (!addr)
		return -1;
	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)n ? 0 : -1;
}

int rec_interp_maybe(const char *base)
{
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(*runtimes); i++)
		if (runtimes[i]->maybe(base))
			return 1;
	return 0;
}

/* The load bias of a file mapped at start from file offset pgoff. */
static int load_bias(const struct rec_elf *e, uint64_t start, uint64_t pgoff,
		     uint64_t *bias)
{
	for (size_t i = 0; i < e->nloads; i++) {
		const struct rec_load *l = &e->loads[i];
		if (pgoff < (l->off & ~(uint64_t)0xfff) ||
		    pgoff >= l->off + l->filesz)
			continue;
		*bias = start - (l->vaddr + pgoff - l->off);
		return 0;
	}
	return -1;
}

/* Tries the file mapped at [start, end) from pgoff with each reader. */
static int try_file(struct rec_interp_proc *ip, int procfd, const char *path,
		    uint64_t start, uint64_t end, uint64_t pgoff,
		    struct ember_buf *why)
{
	const char *base = strrchr(path, '/');
	struct rec_elf e;
	uint64_t bias;
	int err = EMBER_ENOENT;

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(*runtimes); i++) {
		if (!runtimes[i]->maybe(base))
			continue;
		int fd = rec_procfs_open_mapped(procfd, path, start, end, 0, 0);
		if (fd < 0 || rec_elf_open_fd(&e, fd))
			return EMBER_ENOENT;
		if (!load_bias(&e, start, pgoff, &bias)) {
			ip->ops = runtimes[i];
			err = runtimes[i]->detect(ip, &e, bias, why);
		}
		if (!err) {
			struct stat st;
			ip->eval.path = ember_xstrdup(path);
			if (!fstat(e.fd, &st)) {
				ip->eval.dev = st.st_dev;
				ip->eval.ino = st.st_ino;
			}
		}
		rec_elf_close(&e);
		if (err != EMBER_ENOENT)
			return err;
	}
	return err;
}

int rec_interp_detect(int pid, int procfd, struct rec_interp_proc **out,
		      struct ember_buf *why)
{
	struct rec_interp_proc *ip = ember_xcalloc(1, sizeof(*ip));
	char line[4096], last[4096] = "";
	int err = EMBER_ENOENT;
	int fd = openat(procfd, "maps", O_RDONLY | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;

	*out = NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		free(ip);
		return EMBER_ENOENT;
	}
	ip->pid = pid;
	while (err == EMBER_ENOENT && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		int pos = 0;
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &s, &e, &off,
			   &pos) < 3 ||
		    !pos || line[pos] != '/')
			continue;
		char *path = line + pos;
		path[strcspn(path, "\n")] = '\0';
		/* each file once: its first mapping */
		if (!strcmp(path, last))
			continue;
		snprintf(last, sizeof(last), "%s", path);
		err = try_file(ip, procfd, path, s, e, off, why);
	}
	fclose(f);
	if (err) {
		rec_interp_proc_free(ip);
		return err;
	}
	*out = ip;
	return 0;
}

void rec_interp_proc_free(struct rec_interp_proc *ip)
{
	if (!ip)
		return;
	if (ip->names) {
		for (size_t i = 0; i <= ip->names->mask && ip->names->v; i++) {
			free(ip->names->v[i].s);
			free(ip->names->v[i].lines);
		}
		free(ip->names->v);
		ember_buf_release(&ip->names->buf);
		free(ip->names);
	}
	free(ip->eval.path);
	free(ip);
}

static struct rec_interp_name *name_slot(struct rec_interp_names *t,
					 uint64_t code, int32_t line)
{
	uint64_t h =
	    (code ^ ((uint64_t)(uint32_t)line << 47)) * 0x9e3779b97f4a7c15ull;

	for (size_t i = (size_t)(h >> 32) & t->mask;; i = (i + 1) & t->mask) {
		struct rec_interp_name *e = &t->v[i];
		if (e->len == UINT32_MAX ||
		    (e->code == code && e->line == line))
			return e;
	}
}

static void names_grow(struct rec_interp_names *t)
{
	struct rec_interp_name *old = t->v;
	size_t omask = t->mask;

	t->mask = old ? omask * 2 + 1 : 255;
	t->v = ember_xcalloc(t->mask + 1, sizeof(*t->v));
	for (size_t i = 0; i <= t->mask; i++)
		t->v[i].len = UINT32_MAX;
	for (size_t i = 0; old && i <= omask; i++)
		if (old[i].len != UINT32_MAX)
			*name_slot(t, old[i].code, old[i].line) = old[i];
	free(old);
}

/* The line of code unit u in e's table: the last run starting at or
 * before it. */
static uint32_t line_at(const struct rec_interp_name *e, uint64_t u)
{
	size_t lo = 0, hi = e->nlines;

	if (u == UINT64_MAX || !hi || u < e->lines[0].unit)
		return 0;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (e->lines[mid].unit <= u)
			lo = mid;
		else
			hi = mid;
	}
	return e->lines[lo].line;
}

const char *rec_interp_frame_name(struct rec_interp_proc *ip,
				  const struct ember_interp_frame *f,
				  size_t *len, uint32_t *line)
{
	struct rec_interp_names *t = ip->names;

	*line = 0;
	if (!t) {
		t = ip->names = ember_xcalloc(1, sizeof(*t));
		ember_buf_init(&t->buf, 256);
		names_grow(t);
	}
	struct rec_interp_name *e = name_slot(t, f->code, f->firstlineno);
	if (e->len != UINT32_MAX) {
		*len = e->len;
		*line = line_at(e, ip->ops->unit(ip, f));
		return e->s;
	}
	ember_buf_reset(&t->buf);
	ip->name_reads++;
	if (ip->ops->name(ip, f, &t->buf)) {
		/* not cached: the code may be readable at the next sample */
		ip->name_fails++;
		return NULL;
	}
	e->code = f->code;
	e->line = f->firstlineno;
	e->len = (uint32_t)t->buf.len;
	e->s = ember_xmalloc(t->buf.len + 1);
	memcpy(e->s, t->buf.buf, t->buf.len + 1);
	/* the line table, read once with the name: code objects do not
	 * change */
	ember_buf_reset(&t->buf);
	e->lines = NULL;
	e->nlines = 0;
	if (ip->ops->lines && !ip->ops->lines(ip, f, &t->buf) &&
	    t->buf.len >= sizeof(*e->lines)) {
		e->nlines = (uint32_t)(t->buf.len / sizeof(*e->lines));
		e->lines = ember_xmalloc(t->buf.len);
		memcpy(e->lines, t->buf.buf, e->nlines * sizeof(*e->lines));
	}
	*len = e->len;
	*line = line_at(e, ip->ops->unit(ip, f));
	const char *s = e->s;
	if (++t->n * 2 > t->mask)
		names_grow(t);
	return s;
}
