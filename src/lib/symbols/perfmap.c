/*
 * Perf map files, /tmp/perf-PID.map: one "START SIZE NAME" line (hex, with
 * or without 0x; the name may hold spaces) per piece of JIT code, written
 * by Python 3.12+ (-X perf), Node (--perf-basic-prof), Java's
 * perf-map-agent and others.  Anyone can create a file under /tmp, so a
 * map is used only when it is a regular file (not a symlink) owned by the
 * process's user or root, and written while that process ran: a map left
 * by an earlier process with the same PID is stale.  A process in a
 * container writes it to its own /tmp under the pid of its own namespace:
 * the same checks apply to the file found there (the owner as the host
 * sees it).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/symtab.h"

#define MAP_MAX_BYTES (1ull << 30)
#define CLOCK_SLACK   1.0 /* seconds: file times are coarse */

static const char *parse_hex(const char *p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; p < end; p++) {
		int c = (unsigned char)*p, d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			break;
		if (++digits > 16)
			return NULL;
		v = v << 4 | (uint64_t)d;
	}
	if (!digits)
		return NULL;
	*out = v;
	return p;
}

size_t rec_perfmap_parse(struct rec_symtab *st, const char *p, size_t n,
			 size_t *bad)
{
	const char *end = p + n;
	size_t added = 0;

	*bad = 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *next = eol ? eol + 1 : end;
		uint64_t start, size;
		const char *q;

		if (!eol)
			eol = end;
		while (eol > p &&
		       (eol[-1] == '\r' || eol[-1] == ' ' || eol[-1] == '\t'))
			eol--;
		if (eol == p)
			goto next; /* blank */
		q = parse_hex(p, eol, &start);
		if (!q || q == eol || (*q != ' ' && *q != '\t'))
			goto bad;
		while (q < eol && (*q == ' ' || *q == '\t'))
			q++;
		q = parse_hex(q, eol, &size);
		if (!q || q == eol || (*q != ' ' && *q != '\t'))
			goto bad;
		while (q < eol && (*q == ' ' || *q == '\t'))
			q++;
		if (q == eol || start + size < start)
			goto bad;
		rec_symtab_add(st, start, size, q, (size_t)(eol - q), 0, 1);
		added++;
		goto next;
	bad:
		if (next != end || end[-1] == '\n')
			(*bad)++; /* else a last line still being written */
	next:
		p = next;
	}
	return added;
}

static double ts_seconds(const struct timespec *ts)
{
	return (double)ts->tv_sec + (double)ts->tv_nsec / 1e9;
}

int rec_perfmap_load_at(struct rec_symtab *st, int dirfd, const char *dir,
			int nspid, const struct rec_perfmap_owner *owner,
			struct ember_buf *why)
{
	char name[64], path[4200];
	struct stat ls, fs;
	int fd, verdict = REC_PERFMAP_OK;

	snprintf(name, sizeof(name), "perf-%d.map", nspid);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (fstatat(dirfd, name, &ls, AT_SYMLINK_NOFOLLOW))
		return REC_PERFMAP_MISSING;
	if (!S_ISREG(ls.st_mode)) {
		ember_buf_addf(why, "ignoring '%s': not a regular file%s", path,
			       S_ISLNK(ls.st_mode) ? " but a symbolic link"
						   : "");
		return REC_PERFMAP_NOT_REGULAR;
	}
	uid_t want = owner->uid_known ? owner->uid : geteuid();
	if (ls.st_uid != 0 && ls.st_uid != want) {
		ember_buf_addf(why,
			       "ignoring '%s': owned by uid %u, not by the "
			       "profiled process's user (%u) or root",
			       path, (unsigned)ls.st_uid, (unsigned)want);
		return REC_PERFMAP_FOREIGN;
	}
	if (ls.st_mode & S_IWOTH) {
		/* anyone could have named the frames: perf refuses such
		 * files too */
		ember_buf_addf(why,
			       "ignoring '%s': anyone may write it (mode %04o)",
			       path, (unsigned)(ls.st_mode & 07777));
		return REC_PERFMAP_FOREIGN;
	}
	double mtime = ts_seconds(&ls.st_mtim);
	if (owner->start > 0 && mtime < owner->start - CLOCK_SLACK) {
		ember_buf_addf(why,
			       "ignoring '%s': last written before process %d "
			       "started (left by an earlier process with the "
			       "same PID)",
			       path, owner->pid);
		return REC_PERFMAP_STALE;
	}
	if (owner->end > 0 && mtime > owner->end + CLOCK_SLACK) {
		ember_buf_addf(why,
			       "ignoring '%s': written after process %d ended "
			       "(by a later process with the same PID)",
			       path, owner->pid);
		return REC_PERFMAP_NEWER;
	}
	fd =
	    openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return REC_PERFMAP_MISSING;
	/* the same file as checked, not one swapped in since */
	if (fstat(fd, &fs) || fs.st_dev != ls.st_dev ||
	    fs.st_ino != ls.st_ino || (uint64_t)fs.st_size > MAP_MAX_BYTES) {
		close(fd);
		ember_buf_addf(why,
			       "ignoring '%s': it changed while read, or "
			       "is too large",
			       path);
		return REC_PERFMAP_NOT_REGULAR;
	}
	struct ember_buf b = EMBER_BUF_INIT;
	ember_buf_grow(&b, (size_t)fs.st_size + 1);
	for (;;) {
		if (b.alloc - b.len < 4096)
			ember_buf_grow(&b, 1 << 16);
		if (b.len > MAP_MAX_BYTES)
			break;
		ssize_t n = read(fd, b.buf + b.len, b.alloc - b.len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		ember_buf_setlen(&b, b.len + (size_t)n);
	}
	close(fd);
	size_t bad;
	rec_perfmap_parse(st, b.buf, b.len, &bad);
	if (bad)
		ember_buf_addf(why, "'%s': skipped %zu malformed line%s", path,
			       bad, bad == 1 ? "" : "s");
	ember_buf_release(&b);
	return verdict;
}

int rec_perfmap_load(struct rec_symtab *st, const char *dir,
		     const struct rec_perfmap_owner *owner,
		     struct ember_buf *why)
{
	if (!dir)
		dir = "/tmp";
	int dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return REC_PERFMAP_MISSING;
	int v = rec_perfmap_load_at(st, dirfd, dir, owner->pid, owner, why);
	close(dirfd);
	return v;
}
