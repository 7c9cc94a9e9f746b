/*
 * Separate debug files, where Debian's -dbg and -dbgsym packages put them:
 * first by build-id (<root>/.build-id/ab/cdef....debug, the file's build-id
 * must match), then by the .gnu_debuglink name next to the binary, in its
 * .debug/ directory and under <root>/<dir>/, checked by CRC-32.  This is
 * the order of perf, gdb and elfutils.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/elf.h"

#define DEBUG_ROOT "/usr/lib/debug"

int rec_file_crc32(int fd, uint32_t *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0L, Z_NULL, 0);
	off_t off = 0;

	for (;;) {
		ssize_t n = pread(fd, buf, sizeof(buf), off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return EMBER_EIO;
		}
		if (n == 0)
			break;
		c = crc32(c, buf, (uInt)n);
		off += n;
	}
	*crc = (uint32_t)c;
	return 0;
}

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

static int try_build_id(const struct rec_elf *e, const char *root,
			struct rec_elf *out, struct ember_buf *p)
{
	ember_buf_reset(p);
	ember_buf_addf(p, "%s/.build-id/%02x/", root, e->build_id[0]);
	for (size_t i = 1; i < e->build_id_len; i++)
		ember_buf_addf(p, "%02x", e->build_id[i]);
	ember_buf_adds(p, ".debug");
	if (rec_elf_open(out, p->buf))
		return -1;
	if (out->build_id_len != e->build_id_len ||
	    memcmp(out->build_id, e->build_id, e->build_id_len)) {
		rec_elf_close(out);
		return -1;
	}
	return 0;
}

static int try_link(const struct rec_elf *e, const char *path,
		    struct rec_elf *out, const char *cand)
{
	uint32_t crc;

	if (same_file(path, cand) || rec_elf_open(out, cand))
		return -1;
	if (out->fd < 0 || rec_file_crc32(out->fd, &crc) ||
	    crc != e->debuglink_crc) {
		rec_elf_close(out);
		return -1;
	}
	return 0;
}

int rec_debuginfo_open(const struct rec_elf *e, const char *path,
		       const char *root, struct rec_elf *out, char **found)
{
	struct ember_buf p = EMBER_BUF_INIT;
	int err = EMBER_ENOENT;

	if (!root)
		root = DEBUG_ROOT;
	if (found)
		*found = NULL;
	if (e->build_id_len && !try_build_id(e, root, out, &p)) {
		err = 0;
		goto out;
	}
	if (e->debuglink && path) {
		const char *slash = strrchr(path, '/');
		size_t dlen = slash ? (size_t)(slash - path) : 0;
		/* next to it, in its .debug/, under the debug root */
		for (int i = 0; i < 3; i++) {
			ember_buf_reset(&p);
			if (i == 2)
				ember_buf_adds(&p, root);
			ember_buf_add(&p, path, dlen);
			ember_buf_adds(&p, i == 1 ? "/.debug/" : "/");
			ember_buf_adds(&p, e->debuglink);
			if (!try_link(e, path, out, p.buf)) {
				err = 0;
				goto out;
			}
		}
	}
out:
	if (!err && found)
		*found = ember_buf_detach(&p, NULL);
	ember_buf_release(&p);
	return err;
}
