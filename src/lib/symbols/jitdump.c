/*
 * jitdump reader.  The file is a 40-byte (or longer, see total_size)
 * header and records {u32 id, u32 total_size, u64 timestamp, payload}.
 * It is parsed in whole records from `parsed` on; a record still being
 * written stays for the next update.  Entries, names, line tables and
 * unwinding info live in an arena (stable pointers); code bytes stay in
 * the file and are read on demand.  A sorted index by address is rebuilt
 * lazily after updates.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/jitdump.h"

#define JIT_MAGIC	  0x4A695444u
#define JIT_MAGIC_SWAPPED 0x4454694Au
#define HDR_SIZE	  40
#define REC_SIZE	  16

enum {
	JIT_LOAD = 0,
	JIT_MOVE = 1,
	JIT_DEBUG = 2,
	JIT_CLOSE = 3,
	JIT_UNWIND = 4
};

#define CHUNK (4u << 20)

struct ember_jitdump {
	int fd;	      /* -1 for a dump in memory */
	uint8_t *mem; /* the dump in memory */
	size_t mem_len;
	int have_hdr, dead; /* dead: a corrupt record; stop there */
	uint64_t parsed;    /* file offset of the next record */
	struct ember_jitdump_info info;
	struct ember_arena arena;
	struct ember_jit_code **codes; /* in load order */
	size_t n, alloc;
	struct jd_slot {
		uint64_t addr;
		size_t i;
	} * sorted; /* codes sorted by address, then load order */
	size_t nsorted, sorted_alloc;
	uint64_t max_size; /* the longest code, bounds the index scan */
	/* records that apply to the next LOAD */
	struct ember_jit_line *pend_lines;
	size_t pend_nlines;
	const uint8_t *pend_eh, *pend_hdr;
	size_t pend_eh_len, pend_hdr_len;
	uint8_t *buf; /* read buffer */
	size_t buf_alloc;
};

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static struct ember_jitdump *jd_new(void)
{
	struct ember_jitdump *jd = ember_xcalloc(1, sizeof(*jd));
	jd->fd = -1;
	ember_arena_init(&jd->arena);
	return jd;
}

void ember_jitdump_free(struct ember_jitdump *jd)
{
	if (!jd)
		return;
	if (jd->fd >= 0)
		close(jd->fd);
	free(jd->mem);
	free(jd->codes);
	free(jd->sorted);
	free(jd->buf);
	ember_arena_release(&jd->arena);
	free(jd);
}

static void *arena_dup(struct ember_jitdump *jd, const void *p, size_t n)
{
	void *q = ember_arena_alloc(&jd->arena, n ? n : 1);
	if (n)
		memcpy(q, p, n);
	return q;
}

static struct ember_jit_code *add_code(struct ember_jitdump *jd)
{
	struct ember_jit_code *c = ember_arena_alloc(&jd->arena, sizeof(*c));

	memset(c, 0, sizeof(*c));
	c->end_time = UINT64_MAX;
	c->code_off = UINT64_MAX;
	EMBER_GROW(jd->codes, jd->n + 1, jd->alloc);
	jd->codes[jd->n++] = c;
	return c;
}

/* Places the unwinding info the way perf's jitted ELF images do. */
static void place_eh(struct ember_jit_code *c)
{
	if (!c->eh_frame)
		return;
	c->eh_frame_addr = c->addr + ((c->size + 7) & ~(uint64_t)7);
	c->eh_frame_hdr_addr = c->eh_frame_addr + c->eh_frame_len;
}

static void on_code_load(struct ember_jitdump *jd, const uint8_t *p, size_t n,
			 uint64_t ts, uint64_t file_off)
{
	struct ember_jit_code *c;
	size_t namelen;

	if (n < 40) {
		jd->info.bad_records++;
		return;
	}
	c = add_code(jd);
	c->pid = get32(p);
	c->tid = get32(p + 4);
	c->vma = get64(p + 8);
	c->addr = get64(p + 16);
	c->size = get64(p + 24);
	c->index = get64(p + 32);
	c->time = ts;
	if (c->addr + c->size < c->addr)
		c->size = 0;
	namelen = strnlen((const char *)p + 40, n - 40);
	c->name =
	    ember_arena_strndup(&jd->arena, (const char *)p + 40, namelen);
	if (namelen < n - 40 && c->size <= n - 40 - namelen - 1)
		c->code_off = file_off + REC_SIZE + 40 + namelen + 1;
	if (c->size > jd->max_size)
		jd->max_size = c->size;
	c->lines = jd->pend_lines;
	c->nlines = jd->pend_nlines;
	c->eh_frame = jd->pend_eh;
	c->eh_frame_len = jd->pend_eh_len;
	c->eh_frame_hdr = jd->pend_hdr;
	c->eh_frame_hdr_len = jd->pend_hdr_len;
	place_eh(c);
	jd->pend_lines = NULL;
	jd->pend_nlines = 0;
	jd->pend_eh = jd->pend_hdr = NULL;
	jd->pend_eh_len = jd->pend_hdr_len = 0;
}

static void on_code_move(struct ember_jitdump *jd, const uint8_t *p, size_t n,
			 uint64_t ts)
{
	struct ember_jit_code *old = NULL, *c;
	uint64_t index;

	if (n < 48) {
		jd->info.bad_records++;
		return;
	}
	index = get64(p + 40);
	for (size_t i = jd->n; i-- > 0;) {
		if (jd->codes[i]->index == index &&
		    jd->codes[i]->end_time == UINT64_MAX) {
			old = jd->codes[i];
			break;
		}
	}
	c = add_code(jd);
	if (old) {
		*c = *old;
		old->end_time = ts;
	} else {
		c->name = "";
	}
	c->pid = get32(p);
	c->tid = get32(p + 4);
	c->vma = get64(p + 8);
	c->addr = get64(p + 24);
	c->size = get64(p + 32);
	c->index = index;
	c->time = ts;
	c->end_time = UINT64_MAX;
	if (c->addr + c->size < c->addr)
		c->size = 0;
	if (!old || c->size != old->size)
		c->code_off = UINT64_MAX;
	if (c->size > jd->max_size)
		jd->max_size = c->size;
	place_eh(c);
}

static void on_debug_info(struct ember_jitdump *jd, const uint8_t *p, size_t n)
{
	uint64_t nr;
	size_t off = 16, k = 0;
	const char *prev = "";
	struct ember_jit_line *v;

	if (n < 16) {
		jd->info.bad_records++;
		return;
	}
	nr = get64(p + 8);
	/* each entry takes at least 17 bytes: bound nr by the record */
	if (nr > (n - 16) / 17)
		nr = (n - 16) / 17;
	v = ember_arena_alloc(&jd->arena, (size_t)(nr ? nr : 1) * sizeof(*v));
	while (k < nr && n - off >= 17) {
		const char *name = (const char *)p + off + 16;
		size_t len = strnlen(name, n - off - 16);
		v[k].addr = get64(p + off);
		v[k].line = (int32_t)get32(p + off + 8);
		v[k].discrim = (int32_t)get32(p + off + 12);
		if (len == 1 && (uint8_t)name[0] == 0xff)
			v[k].file = prev;
		else
			v[k].file = prev =
			    ember_arena_strndup(&jd->arena, name, len);
		k++;
		off += 16 + len + (len < n - off - 16);
	}
	jd->pend_lines = v;
	jd->pend_nlines = k;
}

static void on_unwind_info(struct ember_jitdump *jd, const uint8_t *p, size_t n)
{
	uint64_t usize, hsize;

	if (n < 24) {
		jd->info.bad_records++;
		return;
	}
	usize = get64(p);
	hsize = get64(p + 8);
	if (usize > n - 24 || hsize > usize) {
		jd->info.bad_records++;
		return;
	}
	jd->pend_eh = jd->pend_hdr = NULL;
	jd->pend_eh_len = jd->pend_hdr_len = 0;
	if (usize == hsize) /* no .eh_frame (V8 writes these) */
		return;
	jd->pend_eh_len = (size_t)(usize - hsize);
	jd->pend_hdr_len = (size_t)hsize;
	jd->pend_eh = arena_dup(jd, p + 24, jd->pend_eh_len);
	jd->pend_hdr =
	    hsize ? arena_dup(jd, p + 24 + jd->pend_eh_len, jd->pend_hdr_len)
		  : NULL;
}

static int parse_header(struct ember_jitdump *jd, const uint8_t *p)
{
	uint32_t magic = get32(p);

	if (magic == JIT_MAGIC_SWAPPED)
		return EMBER_ENOTSUP; /* written on the other byte order */
	if (magic != JIT_MAGIC)
		return EMBER_EFORMAT;
	jd->info.version = get32(p + 4);
	uint32_t total = get32(p + 8);
	jd->info.elf_mach = get32(p + 12);
	jd->info.pid = get32(p + 20);
	jd->info.timestamp = get64(p + 24);
	jd->info.flags = get64(p + 32);
	if (total < HDR_SIZE)
		return EMBER_EFORMAT;
	jd->parsed = total;
	jd->have_hdr = 1;
	return 0;
}

/* Parses whole records of p[0..n) (file offset base); returns the bytes
 * consumed. */
static size_t parse_records(struct ember_jitdump *jd, const uint8_t *p,
			    size_t n, uint64_t base)
{
	size_t off = 0;

	while (!jd->dead && n - off >= REC_SIZE) {
		uint32_t id = get32(p + off);
		uint32_t size = get32(p + off + 4);
		uint64_t ts = get64(p + off + 8);
		if (size < REC_SIZE) {
			jd->dead = 1; /* no way to find the next record */
			jd->info.bad_records++;
			break;
		}
		if (size > n - off)
			break; /* still being written */
		const uint8_t *q = p + off + REC_SIZE;
		size_t qn = size - REC_SIZE;
		switch (id) {
		case JIT_LOAD:
			on_code_load(jd, q, qn, ts, base + off);
			break;
		case JIT_MOVE:
			on_code_move(jd, q, qn, ts);
			break;
		case JIT_DEBUG:
			on_debug_info(jd, q, qn);
			break;
		case JIT_CLOSE:
			jd->info.closed = 1;
			break;
		case JIT_UNWIND:
			on_unwind_info(jd, q, qn);
			break;
		default:
			break; /* unknown: skipped by its size */
		}
		jd->info.records++;
		off += size;
	}
	return off;
}

static int read_at(struct ember_jitdump *jd, uint64_t off, void *buf, size_t n,
		   size_t *got)
{
	*got = 0;
	if (jd->fd < 0) {
		if (off < jd->mem_len) {
			*got = jd->mem_len - off < n ? jd->mem_len - off : n;
			memcpy(buf, jd->mem + off, *got);
		}
		return 0;
	}
	while (*got < n) {
		ssize_t r = pread(jd->fd, (char *)buf + *got, n - *got,
				  (off_t)(off + *got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return EMBER_EIO;
		if (r == 0)
			break;
		*got += (size_t)r;
	}
	return 0;
}

int ember_jitdump_update(struct ember_jitdump *jd)
{
	size_t before = jd->n, have = 0, got;
	uint64_t size;
	int err;

	if (jd->fd >= 0) {
		struct stat st;
		if (fstat(jd->fd, &st))
			return EMBER_EIO;
		size = (uint64_t)st.st_size;
	} else {
		size = jd->mem_len;
	}
	if (!jd->have_hdr) {
		uint8_t h[HDR_SIZE];
		if (size < HDR_SIZE)
			return 0; /* not written yet */
		if ((err = read_at(jd, 0, h, HDR_SIZE, &got)))
			return err;
		if (got < HDR_SIZE)
			return 0;
		if ((err = parse_header(jd, h)))
			return err;
	}
	/* read [parsed, size) in chunks, keeping a partial record's bytes */
	while (!jd->dead && jd->parsed + have < size) {
		uint64_t left = size - jd->parsed - have;
		size_t want = left > CHUNK ? CHUNK : (size_t)left;
		if (have + want > jd->buf_alloc) {
			jd->buf_alloc = have + want;
			jd->buf = ember_xrealloc(jd->buf, jd->buf_alloc);
		}
		if ((err = read_at(jd, jd->parsed + have, jd->buf + have, want,
				   &got)))
			return err;
		if (got == 0)
			break;
		have += got;
		size_t used = parse_records(jd, jd->buf, have, jd->parsed);
		jd->parsed += used;
		have -= used;
		if (have)
			memmove(jd->buf, jd->buf + used, have);
		/* a record longer than what is buffered: read more of it */
	}
	jd->info.bytes = jd->parsed;
	if (jd->n != before)
		jd->nsorted = 0; /* index is stale */
	return (int)((jd->n - before) > INT32_MAX ? INT32_MAX : jd->n - before);
}

int ember_jitdump_open(const char *path, struct ember_jitdump **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*out = NULL;
	if (fd < 0)
		return errno == ENOENT	 ? EMBER_ENOENT
		       : errno == EACCES ? EMBER_EPERM
					 : EMBER_EIO;
	return ember_jitdump_open_fd(fd, out);
}

int ember_jitdump_open_fd(int fd, struct ember_jitdump **out)
{
	struct ember_jitdump *jd;
	int err;

	*out = NULL;
	jd = jd_new();
	jd->fd = fd;
	err = ember_jitdump_update(jd);
	if (err < 0) {
		ember_jitdump_free(jd);
		return err;
	}
	*out = jd;
	return 0;
}

int ember_jitdump_from_memory(const void *p, size_t n,
			      struct ember_jitdump **out)
{
	struct ember_jitdump *jd = jd_new();
	int err;

	jd->mem = ember_xmalloc(n);
	if (n)
		memcpy(jd->mem, p, n);
	jd->mem_len = n;
	err = ember_jitdump_update(jd);
	if (err < 0) {
		ember_jitdump_free(jd);
		*out = NULL;
		return err;
	}
	*out = jd;
	return 0;
}

const struct ember_jitdump_info *
ember_jitdump_info(const struct ember_jitdump *jd)
{
	return &jd->info;
}

size_t ember_jitdump_count(const struct ember_jitdump *jd)
{
	return jd->n;
}

const struct ember_jit_code *ember_jitdump_get(const struct ember_jitdump *jd,
					       size_t i)
{
	return i < jd->n ? jd->codes[i] : NULL;
}

static int by_addr(const void *a, const void *b)
{
	const struct jd_slot *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static void build_index(struct ember_jitdump *jd)
{
	EMBER_GROW(jd->sorted, jd->n, jd->sorted_alloc);
	for (size_t i = 0; i < jd->n; i++) {
		jd->sorted[i].addr = jd->codes[i]->addr;
		jd->sorted[i].i = i;
	}
	qsort(jd->sorted, jd->n, sizeof(*jd->sorted), by_addr);
	jd->nsorted = jd->n;
}

const struct ember_jit_code *ember_jitdump_find(struct ember_jitdump *jd,
						uint64_t addr, uint64_t t)
{
	const struct ember_jit_code *best = NULL, *latest = NULL;
	size_t lo = 0, hi;

	if (!jd->n)
		return NULL;
	if (jd->nsorted != jd->n)
		build_index(jd);
	hi = jd->n;
	while (lo < hi) { /* first entry starting after addr */
		size_t mid = lo + (hi - lo) / 2;
		if (jd->sorted[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* entries before lo start at or below addr; those within max_size
	 * may cover it */
	while (lo-- > 0) {
		const struct ember_jit_code *c = jd->codes[jd->sorted[lo].i];
		if (addr - c->addr >= jd->max_size)
			break;
		if (addr - c->addr >= c->size)
			continue;
		if (!latest || c->time >= latest->time)
			latest = c;
		if (c->time <= t && c->end_time > t &&
		    (!best || c->time >= best->time))
			best = c;
	}
	return best ? best : latest;
}

int ember_jitdump_line(const struct ember_jit_code *c, uint64_t addr,
		       const char **file, int *line)
{
	const struct ember_jit_line *best = NULL;

	for (size_t i = 0; i < c->nlines; i++) {
		const struct ember_jit_line *l = &c->lines[i];
		if (l->addr <= addr && (!best || l->addr >= best->addr))
			best = l;
	}
	if (!best)
		return EMBER_ENOENT;
	*file = best->file;
	*line = best->line;
	return 0;
}

size_t ember_jitdump_read_code(struct ember_jitdump *jd,
			       const struct ember_jit_code *c, uint64_t addr,
			       void *buf, size_t n)
{
	size_t got;

	if (c->code_off == UINT64_MAX || addr < c->addr ||
	    addr - c->addr >= c->size)
		return 0;
	if (n > c->size - (addr - c->addr))
		n = (size_t)(c->size - (addr - c->addr));
	if (read_at(jd, c->code_off + (addr - c->addr), buf, n, &got))
		return 0;
	return got;
}
