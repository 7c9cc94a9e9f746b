/*
 * Kernel symbols from /proc/kallsyms ("ffffffff81000000 T _stext", module
 * symbols with a "\t[module]" suffix).  Text symbols (t, T, w, W) only, as
 * perf keeps them; their sizes come from the next symbol.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/symtab.h"

/* A hex digit's value + 1; 0 for anything else. */
static const unsigned char hexval[256] = {
    ['0'] = 1,	['1'] = 2,  ['2'] = 3,	['3'] = 4,  ['4'] = 5,	['5'] = 6,
    ['6'] = 7,	['7'] = 8,  ['8'] = 9,	['9'] = 10, ['a'] = 11, ['b'] = 12,
    ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
    ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/*
 * The first tab, space or newline in [p, end), or end: eight bytes at a
 * time, a byte below '!' flagged (the lowest flag is exact) and looked
 * at, since a name may hold other control bytes.
 */
static const char *name_stop(const char *p, const char *end)
{
	const uint64_t ones = 0x0101010101010101ull, high = ones * 0x80;

	while (end - p >= 8) {
		uint64_t x, t;
		memcpy(&x, p, 8);
		t = (x - ones * '!') & ~x & high;
		while (t) {
			const char *c = p + __builtin_ctzll(t) / 8;
			if (*c == '\t' || *c == ' ' || *c == '\n')
				return c;
			t &= t - 1;
			/* a flag above a false one may be a borrow's: the
			 * rest of the word byte by byte */
			for (c++; c < p + 8; c++)
				if (*c == '\t' || *c == ' ' || *c == '\n')
					return c;
			t = 0;
		}
		p += 8;
	}
	for (; p < end; p++)
		if (*p == '\t' || *p == ' ' || *p == '\n')
			return p;
	return end;
}

/* 8 lowercase hex digits (as the kernel prints addresses) at p, eight
 * bytes at a time; 0 when one of them is anything else. */
static inline int hex8(const char *p, uint32_t *out)
{
	const uint64_t ones = 0x0101010101010101ull, high = ones * 0x80;
	uint64_t x;

	memcpy(&x, p, 8);
	if (x & high)
		return 0;
	/* a byte's high bit set when it is in '0'..'9', or in 'a'..'f' */
	uint64_t digit = (x + ones * (0x80 - '0')) & ~(x + ones * (0x7f - '9'));
	uint64_t alpha = (x + ones * (0x80 - 'a')) & ~(x + ones * (0x7f - 'f'));
	if (((digit | alpha) & high) != high)
		return 0;
	/* each byte's value: its low nibble, + 9 for a letter */
	uint64_t v = (x & ones * 0x0f) + 9 * ((x >> 6) & ones);
	v = __builtin_bswap64(v); /* the first digit the highest */
	v = (v | v >> 4) & 0x00ff00ff00ff00ffull;
	v = (v | v >> 8) & 0x0000ffff0000ffffull;
	*out = (uint32_t)(v | v >> 16);
	return 1;
}

/* A 64-bit kernel's address: 16 digits. */
static inline int hex16(const char *p, uint64_t *addr)
{
	uint32_t hi, lo;

	if (!hex8(p, &hi) || !hex8(p + 8, &lo))
		return 0;
	*addr = (uint64_t)hi << 32 | lo;
	return 1;
}

/* No symbol line is this long: longer ones are skipped. */
enum { LINE_MAX_LEN = 128 << 10 };

/*
 * The lines of [p, p + n), the last one without its newline perhaps.  In
 * place (the text stays with the table), each name is ended with a NUL
 * written over the byte after it, and kept where it is.
 */
static size_t parse(struct rec_symtab *st, char *p, size_t n, int in_place)
{
	const char *end = p + n;
	size_t added = 0;

	while (p < end) {
		const char *q = p, *eol = NULL;
		uint64_t addr = 0;
		int digits = 0, v;
		if (end - p > 16 && hex16(p, &addr)) {
			q = p + 16;
			digits = 16;
		}
		while (!digits && q < end && *q != '\n' && q - p < 16 &&
		       (v = hexval[(unsigned char)*q]) != 0) {
			addr = addr << 4 | (uint64_t)(v - 1);
			q++;
		}
		if (!digits)
			digits = (int)(q - p);
		if (!digits || end - q < 3 || q[0] != ' ' || q[2] != ' ' ||
		    q[1] == '\n')
			goto next;
		char type = q[1];
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			goto next;
		char *name = (char *)q + 3;
		char *ne = (char *)name_stop(name, end);
		eol = ne < end && *ne == '\n' ? ne : NULL;
		if (!eol) {
			eol = memchr(ne, '\n', (size_t)(end - ne));
			if (!eol)
				eol = end;
		}
		if (ne == name || eol - p >= LINE_MAX_LEN)
			goto next;
		int bind = type == 'T'	 ? STB_GLOBAL
			   : type == 't' ? STB_LOCAL
					 : STB_WEAK;
		int module = ne < eol && ne[0] == '\t';
		if (in_place && st->n < st->alloc) {
			/* what rec_symtab_add makes of it, in place */
			*ne = '\0';
			st->syms[st->n] = (struct rec_sym){
			    .start = addr,
			    .end = addr,
			    .name = name,
			    .seq = (uint32_t)st->n,
			    .bind = (uint8_t)bind,
			    .module = (uint8_t)module,
			};
			st->n++;
		} else {
			rec_symtab_add(st, addr, 0, name, (size_t)(ne - name),
				       bind, 1);
			st->syms[st->n - 1].module = (uint8_t)module;
		}
		added++;
	next:
		if (!eol) {
			eol = memchr(p, '\n', (size_t)(end - p));
			if (!eol)
				eol = end;
		}
		p = (char *)eol + 1;
	}
	return added;
}

size_t rec_kallsyms_parse(struct rec_symtab *st, const char *p, size_t n)
{
	return parse(st, (char *)p, n, 0);
}

/*
 * Room for more symbols.  A first table is some 120,000 symbols, 6 MB
 * written: in huge pages rather than a fault for each 4 KiB (each a few
 * microseconds, dearer in a VM), so aligned to them.  It is still
 * memory of malloc's, for the table to grow and free.
 */
static void reserve(struct rec_symtab *st, size_t more)
{
	const size_t huge = 2 << 20;
	void *p;

	if (st->syms || more > UINT32_MAX / sizeof(*st->syms)) {
		rec_symtab_reserve(st, more);
		return;
	}
	size_t bytes = (more * sizeof(*st->syms) + 4095) & ~(size_t)4095;
	if (posix_memalign(&p, huge, bytes)) {
		rec_symtab_reserve(st, more);
		return;
	}
	madvise(p, bytes, MADV_HUGEPAGE);
	st->syms = p;
	st->alloc = more;
}

/*
 * The whole file is read into one mapping first, then parsed in place:
 * the file is several megabytes of text, formatted by the kernel as it
 * is read, and its size is only known at its end.  The mapping is
 * reserved large and grows by mremap, so no byte is copied and only the
 * pages written are faulted in; its names stay with the table.  whole:
 * a copy of the file (perf's), which ends with a newline unless cut
 * short.
 */
static int load_fd(struct rec_symtab *st, int fd, const int *stop, int whole)
{
	size_t before = st->n, len = 0, size = 64 << 20;
	int err = 0;
	char *buf;

	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (buf == MAP_FAILED)
		return EMBER_ENOMEM;
	/* a few huge pages rather than a fault for each 4 KiB read into */
	madvise(buf, size, MADV_HUGEPAGE);
	for (;;) {
		if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED)) {
			err = EMBER_EINTR;
			break;
		}
		if (size - len < (256 << 10)) {
			char *nb = mremap(buf, size, 2 * size, MREMAP_MAYMOVE);
			if (nb == MAP_FAILED) {
				err = EMBER_ENOMEM;
				break;
			}
			buf = nb;
			size *= 2;
		}
		/* a byte kept for the NUL after a last line's name */
		ssize_t n = read(fd, buf + len, size - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = EMBER_EIO;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (!err && whole && len && buf[len - 1] != '\n')
		err = EMBER_ETRUNC;
	if (!err) {
		/* a line is at least 20 bytes ("0 t x\n" is shorter, and
		 * rare): the table grows once at most */
		reserve(st, len / 20 + 16);
		/* a second file into the table: its names copied */
		parse(st, buf, len, !st->text);
	}
	if (!err && st->n > before && !st->text) {
		st->text = buf;
		st->text_size = size;
	} else {
		munmap(buf, size);
	}

	if (!err) {
		/* kernel.kptr_restrict shows every address as 0 */
		int visible = 0;
		for (size_t i = before; i < st->n && !visible; i++)
			visible = st->syms[i].start != 0;
		if (st->n > before && !visible)
			err = EMBER_EPERM;
		else if (st->n == before)
			err = EMBER_EFORMAT;
	}
	if (err)
		st->n = before;
	return err;
}

int rec_kallsyms_load(struct rec_symtab *st, const char *path)
{
	return rec_kallsyms_load_until(st, path, NULL);
}

int rec_kallsyms_load_until(struct rec_symtab *st, const char *path,
			    const int *stop)
{
	int fd = open(path ? path : "/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	int err;

	if (fd < 0)
		return errno == ENOENT ? EMBER_ENOENT : EMBER_EPERM;
	err = load_fd(st, fd, stop, 0);
	close(fd);
	return err;
}

/* ---- perf's build-id cache -------------------------------------------- */

void rec_kallsyms_cache_path(struct ember_buf *out, const uint8_t *id,
			     size_t len)
{
	const char *dir = getenv("PERF_BUILDID_DIR");
	const char *home = getenv("HOME");

	ember_buf_reset(out);
	if (dir && *dir)
		ember_buf_adds(out, dir);
	else if (home && *home)
		ember_buf_addf(out, "%s/.debug", home);
	else
		return;
	ember_buf_adds(out, "/[kernel.kallsyms]/");
	for (size_t i = 0; i < len; i++)
		ember_buf_addf(out, "%02x", id[i]);
	ember_buf_adds(out, "/kallsyms");
}

/*
 * A copy is trusted as a file of its reader's or root's, which no one
 * else may write (root reads no user's file), and used only whole: a
 * file cut short would leave the last symbol before the cut sized up to
 * the end of the address space.
 */
int rec_kallsyms_load_cache(struct rec_symtab *st, const char *path,
			    const int *stop)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	uid_t me = geteuid();
	struct stat sb;
	int err;

	if (fd < 0)
		return errno == ENOENT ? EMBER_ENOENT : EMBER_EPERM;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode))
		err = EMBER_EFORMAT;
	else if ((sb.st_uid != me && sb.st_uid != 0) ||
		 (sb.st_mode & S_IWOTH) || (me == 0 && (sb.st_mode & S_IWGRP)))
		err = EMBER_EPERM;
	else if (!sb.st_size)
		err = EMBER_EEMPTY;
	else if ((err = load_fd(st, fd, stop, 1)) == EMBER_EPERM)
		err = EMBER_EFORMAT; /* a copy of hidden addresses */
	close(fd);
	return err;
}
