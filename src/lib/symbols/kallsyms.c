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
#include <unistd.h>

#include "symbols/symtab.h"

/* A hex digit's value + 1; 0 for anything else. */
static const unsigned char hexval[256] = {
    ['0'] = 1,	['1'] = 2,  ['2'] = 3,	['3'] = 4,  ['4'] = 5,	['5'] = 6,
    ['6'] = 7,	['7'] = 8,  ['8'] = 9,	['9'] = 10, ['a'] = 11, ['b'] = 12,
    ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
    ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* The first tab or space in [p, end), or end. */
static const char *name_end(const char *p, const char *end)
{
	const char *tab = memchr(p, '\t', (size_t)(end - p));
	const char *sp = memchr(p, ' ', (size_t)((tab ? tab : end) - p));

	return sp ? sp : tab ? tab : end;
}

/* 8 lowercase hex digits (as the kernel prints addresses) at p, eight
 * bytes at a time; 0 when one of them is anything else. */
static int hex8(const char *p, uint32_t *out)
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
static int hex16(const char *p, uint64_t *addr)
{
	uint32_t hi, lo;

	if (!hex8(p, &hi) || !hex8(p + 8, &lo))
		return 0;
	*addr = (uint64_t)hi << 32 | lo;
	return 1;
}

size_t rec_kallsyms_parse(struct rec_symtab *st, const char *p, size_t n)
{
	const char *end = p + n;
	size_t added = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		const char *q = p;
		uint64_t addr = 0;
		int digits = 0, v;
		if (eol - p > 16 && hex16(p, &addr)) {
			q = p + 16;
			digits = 16;
		}
		while (!digits && q < eol && q - p < 16 &&
		       (v = hexval[(unsigned char)*q]) != 0) {
			addr = addr << 4 | (uint64_t)(v - 1);
			q++;
		}
		if (!digits)
			digits = (int)(q - p);
		if (!digits || q + 3 > eol || q[0] != ' ' || q[2] != ' ')
			goto next;
		char type = q[1];
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			goto next;
		const char *name = q + 3;
		const char *ne = name_end(name, eol);
		if (ne == name)
			goto next;
		int bind = type == 'T'	 ? STB_GLOBAL
			   : type == 't' ? STB_LOCAL
					 : STB_WEAK;
		rec_symtab_add(st, addr, 0, name, (size_t)(ne - name), bind, 1);
		st->syms[st->n - 1].module = ne < eol && ne[0] == '\t';
		added++;
	next:
		p = eol + 1;
	}
	return added;
}

/*
 * Read a piece at a time into one buffer and parsed as it comes: the file
 * is several megabytes of text, formatted by the kernel as it is read,
 * and a buffer the size of the whole would only add fresh pages to fault
 * in.
 */
int rec_kallsyms_load(struct rec_symtab *st, const char *path)
{
	return rec_kallsyms_load_until(st, path, NULL);
}

int rec_kallsyms_load_until(struct rec_symtab *st, const char *path,
			    const int *stop)
{
	enum { PIECE = 128 << 10 };
	int fd = open(path ? path : "/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	size_t before = st->n, len = 0;
	int err = 0, cut = 0;
	char *buf;

	if (fd < 0)
		return errno == ENOENT ? EMBER_ENOENT : EMBER_EPERM;
	buf = ember_xmalloc(PIECE);
	for (;;) {
		if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED)) {
			err = EMBER_EINTR;
			break;
		}
		ssize_t n = read(fd, buf + len, PIECE - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = EMBER_EIO;
			break;
		}
		if (n == 0) {
			if (!cut) /* a last line without its newline */
				rec_kallsyms_parse(st, buf, len);
			break;
		}
		len += (size_t)n;
		const char *nl = memrchr(buf, '\n', len);
		if (!nl) {
			if (len == PIECE) {
				/* no symbol line is that long: skipped */
				cut = 1;
				len = 0;
			}
			continue;
		}
		size_t whole = (size_t)(nl - buf) + 1, skip = 0;
		if (cut) {
			skip = (size_t)((const char *)memchr(buf, '\n', len) -
					buf) +
			       1;
			cut = 0;
		}
		rec_kallsyms_parse(st, buf + skip, whole - skip);
		memmove(buf, buf + whole, len - whole);
		len -= whole;
	}
	close(fd);
	free(buf);
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
