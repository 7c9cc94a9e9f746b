/*
 * Kernel symbols from /proc/kallsyms, or perf's copy of it in its build-id
 * cache ("ffffffff81000000 T _stext", module symbols with a "\t[module]"
 * suffix).  Text symbols (t, T, w, W) only, as perf keeps them; their
 * sizes come from the next symbol.
 */
#include <elf.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hugemem.h"
#include "symbols/symtab.h"

/* A hex digit's value + 1; 0 for anything else. */
static const unsigned char hexval[256] = {
    ['0'] = 1,	['1'] = 2,  ['2'] = 3,	['3'] = 4,  ['4'] = 5,	['5'] = 6,
    ['6'] = 7,	['7'] = 8,  ['8'] = 9,	['9'] = 10, ['a'] = 11, ['b'] = 12,
    ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
    ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/*
 * The first tab, space or newline in [p, end), or end: sixteen bytes at
 * a time (SSE2), then eight, a byte below '!' flagged (the lowest flag is
 * exact) and looked at, since a name may hold other control bytes.
 */
static const char *name_stop(const char *p, const char *end)
{
	const uint64_t ones = 0x0101010101010101ull, high = ones * 0x80;

#ifdef __SSE2__
	/* sixteen bytes at a time, the three compared exactly */
	while (end - p >= 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i m = _mm_or_si128(
		    _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\t')),
				 _mm_cmpeq_epi8(x, _mm_set1_epi8(' '))),
		    _mm_cmpeq_epi8(x, _mm_set1_epi8('\n')));
		int bits = _mm_movemask_epi8(m);
		if (bits)
			return p + __builtin_ctz((unsigned)bits);
		p += 16;
	}
#endif
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

/* A 64-bit kernel's address: 16 digits (SSE2: at once). */
static inline int hex16(const char *p, uint64_t *addr)
{
#ifdef __SSE2__
	const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	/* signed: a byte from 0x80 is in neither range */
	__m128i dig = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
				    _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
	__m128i alp = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('a' - 1)),
				    _mm_cmplt_epi8(x, _mm_set1_epi8('f' + 1)));
	if (_mm_movemask_epi8(_mm_or_si128(dig, alp)) != 0xffff)
		return 0;
	/* each byte's value: its low nibble, + 9 for a letter; then pairs
	 * of them (the first the high nibble) into bytes */
	__m128i v = _mm_add_epi8(_mm_and_si128(x, _mm_set1_epi8(0x0f)),
				 _mm_and_si128(alp, _mm_set1_epi8(9)));
	__m128i pair = _mm_or_si128(
	    _mm_slli_epi16(_mm_and_si128(v, _mm_set1_epi16(0xff)), 4),
	    _mm_srli_epi16(v, 8));
	__m128i bytes = _mm_packus_epi16(pair, _mm_setzero_si128());
	*addr = __builtin_bswap64((uint64_t)_mm_cvtsi128_si64(bytes));
	return 1;
#else
	uint32_t hi, lo;

	if (!hex8(p, &hi) || !hex8(p + 8, &lo))
		return 0;
	*addr = (uint64_t)hi << 32 | lo;
	return 1;
#endif
}

/* No symbol line is this long: longer ones are skipped. */
enum { LINE_MAX_LEN = 128 << 10 };

/* The line at p as a text symbol's: its address and type, and where its
 * name starts (not looked at yet); NULL when it is no text symbol's. */
static inline __attribute__((always_inline)) char *
sym_head(char *p, const char *end, uint64_t *out, char *type)
{
	const char *q = p;
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
		return NULL;
	*type = q[1];
	if (*type != 't' && *type != 'T' && *type != 'w' && *type != 'W')
		return NULL;
	*out = addr;
	return (char *)q + 3;
}

static inline int sym_bind(char type)
{
	return type == 'T' ? STB_GLOBAL : type == 't' ? STB_LOCAL : STB_WEAK;
}

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
		const char *eol = NULL;
		uint64_t addr;
		char type;
		char *name = sym_head(p, end, &addr, &type);
		if (!name)
			goto next;
		char *ne = (char *)name_stop(name, end);
		eol = ne < end && *ne == '\n' ? ne : NULL;
		if (!eol) {
			eol = memchr(ne, '\n', (size_t)(end - ne));
			if (!eol)
				eol = end;
		}
		if (ne == name || eol - p >= LINE_MAX_LEN)
			goto next;
		int bind = sym_bind(type);
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
 * Only the symbols lookups of some addresses need (parse_for).  The text
 * symbols' starts and names are listed first (an entry each, in huge
 * pages), sorted by start and order in the file if they are not already
 * (the kernel's are, its modules' may not be).  In that order the table
 * rec_symtab_finish makes keeps the last of each start, each reaching the
 * next start (by the rules of the module gap and of the last symbol);
 * rec_symtab_find takes the last start at or below an address if the
 * address is below its end.  So for each address, the symbol at that last
 * start and the next one are kept: the first's end comes out the same,
 * and so what rec_symtab_find finds.  (Past its end it looks back at the
 * symbols before, but finds none: an end is the next start, or a page or
 * two past the symbol's own start, never past a later symbol's end.)
 */
struct kent {
	uint64_t start;
	uint32_t name; /* its offset in the text */
	uint32_t want;
};

static int kent_cmp(const void *a, const void *b)
{
	const struct kent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static struct kent *kents(size_t n, size_t *bytes)
{
	*bytes = n * sizeof(struct kent);
	return ember_huge_map(*bytes);
}

/* The entries the lookups of address a need, marked: see above. */
static void want_for(struct kent *v, size_t k, uint64_t a)
{
	size_t lo = 0, hi = k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return;
	size_t p = lo - 1, q = lo;
	while (q + 1 < k && v[q + 1].start == v[lo].start)
		q++;
	v[p].want = 1;
	if (lo < k)
		v[q].want = 1;
}

/* The newlines of a text in order, found 64 bytes at a time: bits has
 * those of the block at blk not handed out yet. */
struct nl {
	const char *blk, *end;
	uint64_t bits;
};

static inline uint64_t nl_bits(const char *p, const char *end)
{
	uint64_t bits = 0;

#ifdef __SSE2__
	if (end - p >= 64) {
		const __m128i n = _mm_set1_epi8('\n');
		for (int i = 0; i < 4; i++)
			bits |=
			    (uint64_t)(uint32_t)_mm_movemask_epi8(
				_mm_cmpeq_epi8(
				    _mm_loadu_si128((
					const __m128i *)(const void *)(p +
								       16 * i)),
				    n))
			    << (16 * i);
		return bits;
	}
#endif
	for (int i = 0; i < 64 && p + i < end; i++)
		bits |= (uint64_t)(p[i] == '\n') << i;
	return bits;
}

/* The next newline, or end. */
static inline const char *nl_next(struct nl *s)
{
	while (!s->bits) {
		s->blk += 64;
		if (s->blk >= s->end)
			return s->end;
		s->bits = nl_bits(s->blk, s->end);
	}
	const char *at = s->blk + __builtin_ctzll(s->bits);
	s->bits &= s->bits - 1;
	return at;
}

/* The text symbols of [p, p + n) that lookups of want[0, nwant) need,
 * as parse adds them; in *total how many text symbols there are, and in
 * *visible whether one has an address.  (size_t)-1 when there is no
 * memory for the list. */
static size_t parse_for(struct rec_symtab *st, char *p, size_t n, int in_place,
			const uint64_t *want, size_t nwant, size_t *total,
			int *visible)
{
	char *base = p;
	const char *end = p + n;
	size_t cap = n / 6 + 1, k = 0, bytes, bytes2 = 0, added = 0;
	struct kent *v, *w = NULL;

	*visible = 0;
	if (n >= UINT32_MAX || !(v = kents(cap, &bytes)))
		return (size_t)-1;
	struct nl nl = {base, end, 0};
	nl.bits = nl_bits(base, end);
	while (p < end) {
		uint64_t addr;
		char type;
		char *name = sym_head(p, end, &addr, &type);
		const char *eol = nl_next(&nl);
		/* the lines parse takes: a name, not too long a line */
		if (name && name < end && *name != '\t' && *name != ' ' &&
		    *name != '\n' && eol - p < LINE_MAX_LEN && k < cap) {
			v[k++] =
			    (struct kent){addr, (uint32_t)(name - base), 0};
			*visible |= addr != 0;
		}
		p = (char *)eol + 1;
	}
	*total = k;
	size_t sorted = 1;
	while (sorted < k && v[sorted - 1].start <= v[sorted].start)
		sorted++;
	if (sorted < k) {
		/* the rest sorted, and merged with the sorted part */
		qsort(v + sorted, k - sorted, sizeof(*v), kent_cmp);
		if (!(w = kents(k, &bytes2))) {
			ember_huge_unmap(v, bytes);
			return (size_t)-1;
		}
		size_t x = 0, y = sorted, o = 0;
		while (x < sorted && y < k)
			w[o++] = kent_cmp(&v[y], &v[x]) < 0 ? v[y++] : v[x++];
		while (x < sorted)
			w[o++] = v[x++];
		while (y < k)
			w[o++] = v[y++];
		ember_huge_unmap(v, bytes);
		v = w;
		bytes = bytes2;
	}
	for (size_t i = 0; i < nwant; i++)
		want_for(v, k, want[i]);
	for (size_t i = 0; i < k; i++) {
		if (!v[i].want)
			continue;
		char *name = base + v[i].name;
		char *ne = (char *)name_stop(name, end);
		int module = ne < end && *ne == '\t';
		if (in_place)
			*ne = '\0';
		rec_symtab_add(st, v[i].start, 0, name, (size_t)(ne - name),
			       sym_bind(name[-2]), !in_place);
		st->syms[st->n - 1].module = (uint8_t)module;
		added++;
	}
	ember_huge_unmap(v, bytes);
	return added;
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
static int read_fd(struct rec_ktext *t, int fd, const int *stop, int whole)
{
	size_t len = 0, size = 64 << 20;
	int err = 0;
	char *buf;

	t->buf = NULL;
	t->len = t->size = 0;
	/* a few huge pages rather than a fault for each 4 KiB read into */
	if (!(buf = ember_huge_map(size)))
		return EMBER_ENOMEM;
	for (;;) {
		if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED)) {
			err = EMBER_EINTR;
			break;
		}
		if (size - len < (256 << 10)) {
			char *nb = ember_huge_remap(buf, size, 2 * size);
			if (!nb) {
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
	if (err) {
		ember_huge_unmap(buf, size);
		return err;
	}
	t->buf = buf;
	t->len = len;
	t->size = size;
	return 0;
}

void rec_ktext_release(struct rec_ktext *t)
{
	if (t->buf)
		ember_huge_unmap(t->buf, t->size);
	t->buf = NULL;
	t->len = t->size = 0;
}

int rec_kallsyms_take(struct rec_symtab *st, struct rec_ktext *t,
		      const uint64_t *want, size_t nwant)
{
	size_t before = st->n, total = (size_t)-1;
	int err = 0, visible = 0;

	if (want)
		parse_for(st, t->buf, t->len, !st->text, want, nwant, &total,
			  &visible);
	if (total == (size_t)-1) {
		/* a line is at least 20 bytes ("0 t x\n" is shorter, and
		 * rare): the table grows once at most */
		reserve(st, t->len / 20 + 16);
		/* a second file into the table: its names copied */
		total = parse(st, t->buf, t->len, !st->text);
		/* kernel.kptr_restrict shows every address as 0 */
		for (size_t i = before; i < st->n && !visible; i++)
			visible = st->syms[i].start != 0;
	}
	if (st->n > before && !st->text) {
		st->text = t->buf;
		st->text_size = t->size;
		t->buf = NULL;
	}
	rec_ktext_release(t);
	if (total && !visible)
		err = EMBER_EPERM;
	else if (!total)
		err = EMBER_EFORMAT;
	if (err)
		st->n = before;
	return err;
}

static int load_fd(struct rec_symtab *st, int fd, const int *stop, int whole)
{
	struct rec_ktext t;
	int err = read_fd(&t, fd, stop, whole);

	return err ? err : rec_kallsyms_take(st, &t, NULL, 0);
}

int rec_kallsyms_load(struct rec_symtab *st, const char *path)
{
	return rec_kallsyms_load_until(st, path, NULL);
}

/* path (NULL: /proc/kallsyms) opened: its descriptor, or an error (<
 * 0, as ember's are) */
static int kopen(const char *path)
{
	int fd = open(path ? path : "/proc/kallsyms", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? EMBER_ENOENT : EMBER_EPERM;
	return fd;
}

int rec_kallsyms_read(struct rec_ktext *t, const char *path, const int *stop)
{
	int fd = kopen(path), err;

	t->buf = NULL;
	if (fd < 0)
		return fd;
	err = read_fd(t, fd, stop, 0);
	close(fd);
	return err;
}

int rec_kallsyms_load_until(struct rec_symtab *st, const char *path,
			    const int *stop)
{
	int fd = kopen(path), err;

	if (fd < 0)
		return fd;
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
int rec_kallsyms_read_cache(struct rec_ktext *t, const char *path,
			    const int *stop)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	uid_t me = geteuid();
	struct stat sb;
	int err;

	t->buf = NULL;
	if (fd < 0)
		return errno == ENOENT ? EMBER_ENOENT : EMBER_EPERM;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode))
		err = EMBER_EFORMAT;
	else if ((sb.st_uid != me && sb.st_uid != 0) ||
		 (sb.st_mode & S_IWOTH) || (me == 0 && (sb.st_mode & S_IWGRP)))
		err = EMBER_EPERM;
	else if (!sb.st_size)
		err = EMBER_EEMPTY;
	else
		err = read_fd(t, fd, stop, 1);
	close(fd);
	return err;
}

int rec_kallsyms_load_cache(struct rec_symtab *st, const char *path,
			    const int *stop)
{
	struct rec_ktext t;
	int err = rec_kallsyms_read_cache(&t, path, stop);

	if (!err && (err = rec_kallsyms_take(st, &t, NULL, 0)) == EMBER_EPERM)
		err = EMBER_EFORMAT; /* a copy of hidden addresses */
	return err;
}
