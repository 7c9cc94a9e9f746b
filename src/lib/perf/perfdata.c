/*
 * perf.data, as `perf record` writes it: the file header, its event
 * attributes and feature sections, and the data section's records handed
 * out in time order; or the same as a stream of records (pipe mode,
 * `perf record -o -`).  PERF_RECORD_COMPRESSED records are inflated with
 * libzstd and read as if they stood in their place.
 *
 * Records are queued and handed out sorted by time, a round at a time:
 * at each FINISHED_ROUND the records up to the newest time of the round
 * before are released (perf's ordered-events rule), so that a sample
 * never comes before the MMAP2 or COMM it depends on.  A file is read,
 * never mapped (one cut short meanwhile would kill us with SIGBUS): its
 * data section through a window that slides on as decoding goes, its
 * records queued in place there (the window keeps them, and moves them
 * when it slides); a stream's and inflated records are copied.  Memory is
 * bounded by one round, not by the file's size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "hugemem.h"
#include "perf/perfdata.h"

#define PD_MAGIC       0x32454c4946524550ull /* "PERFILE2" */
#define PD_MAGIC_SWAP  0x50455246494c4532ull
#define FILE_HDR_SIZE  104
#define MAX_QUEUED     (64u << 20)  /* bytes queued before a forced flush */
#define READ_AHEAD     (256u << 10) /* bytes of the data section read at once */
#define WINDOW	       (2u << 20)   /* the window's first size: a huge page */
#define MAX_RECORD_LEN (1u << 20)   /* pipe-mode side data (tracing, aux) */

/* perf's own record types */
enum {
	PD_HEADER_ATTR = 64,
	PD_HEADER_EVENT_TYPE = 65,
	PD_HEADER_TRACING_DATA = 66,
	PD_HEADER_BUILD_ID = 67,
	PD_FINISHED_ROUND = 68,
	PD_ID_INDEX = 69,
	PD_AUXTRACE_INFO = 70,
	PD_AUXTRACE = 71,
	PD_AUXTRACE_ERROR = 72,
	PD_THREAD_MAP = 73,
	PD_CPU_MAP = 74,
	PD_STAT_CONFIG = 75,
	PD_STAT = 76,
	PD_STAT_ROUND = 77,
	PD_EVENT_UPDATE = 78,
	PD_TIME_CONV = 79,
	PD_HEADER_FEATURE = 80,
	PD_COMPRESSED = 81,
	PD_FINISHED_INIT = 82,
	PD_COMPRESSED2 = 83,
};

/* feature sections */
enum {
	FEAT_BUILD_ID = 2,
	FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4,
	FEAT_VERSION = 5,
	FEAT_ARCH = 6,
	FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12,
	FEAT_COMPRESSED = 27,
	FEAT_BITS = 256,
};

struct pd_qent {
	uint64_t time, seq;
	const void *rec;
	uint32_t size;
	uint32_t attr;
	int owned;
};

/* ---- small readers ---------------------------------------------------- */

static int fail(struct rec_pd *pd, const char *fmt, ...) EMBER_PRINTF(2, 3);

static int fail(struct rec_pd *pd, const char *fmt, ...)
{
	va_list ap;

	if (!pd->err[0]) {
		va_start(ap, fmt);
		vsnprintf(pd->err, sizeof(pd->err), fmt, ap);
		va_end(ap);
	}
	return EMBER_EFORMAT;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* A record's header, wherever the record lies (aligned or not). */
static struct perf_event_header header(const uint8_t *p)
{
	struct perf_event_header h;

	memcpy(&h, p, sizeof(h));
	return h;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* A perf_header_string at *p (u32 length, then the bytes): a copy, or
 * NULL when it does not fit in [*p, end). */
static char *take_string(const uint8_t **p, const uint8_t *end)
{
	if (end - *p < 4)
		return NULL;
	uint32_t len = get32(*p);
	if ((uint64_t)(end - *p - 4) < len)
		return NULL;
	const char *s = (const char *)*p + 4;
	*p += 4 + (size_t)len;
	return ember_xmemdup(s, strnlen(s, len));
}

/* ---- attributes and ids ----------------------------------------------- */

static struct rec_pd_attr *add_attr(struct rec_pd *pd, const uint8_t *p,
				    size_t n)
{
	struct rec_pd_attr *a;
	uint32_t size;

	EMBER_GROW(pd->attrs, pd->nattrs + 1, pd->aattrs);
	a = &pd->attrs[pd->nattrs++];
	memset(a, 0, sizeof(*a));
	size = n >= 8 ? get32(p + 4) : 0;
	if (!size || size > n)
		size = (uint32_t)n;
	memcpy(&a->attr, p, size < sizeof(a->attr) ? size : sizeof(a->attr));
	return a;
}

static void add_id(struct rec_pd *pd, uint64_t id, uint32_t attr)
{
	for (size_t i = 0; i < pd->nids; i++)
		if (pd->ids[i].id == id) {
			pd->ids[i].attr = attr;
			return;
		}
	EMBER_GROW(pd->ids, pd->nids + 1, pd->aids);
	pd->ids[pd->nids].id = id;
	pd->ids[pd->nids].attr = attr;
	pd->nids++;
	pd->ids_sorted = 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct rec_pd_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The attribute a record belongs to, by its id; 0 when only one. */
static uint32_t record_attr(struct rec_pd *pd, const uint8_t *rec, size_t size)
{
	uint64_t t, id;
	size_t pos;

	if (pd->nattrs <= 1)
		return 0;
	t = pd->attrs[0].attr.sample_type;
	if (header(rec).type == PERF_RECORD_SAMPLE) {
		if (t & PERF_SAMPLE_IDENTIFIER)
			pos = 8;
		else if (t & PERF_SAMPLE_ID)
			pos = 8 + 8 * (!!(t & PERF_SAMPLE_IP) +
				       !!(t & PERF_SAMPLE_TID) +
				       !!(t & PERF_SAMPLE_TIME) +
				       !!(t & PERF_SAMPLE_ADDR));
		else
			return 0;
	} else {
		if (!pd->attrs[0].attr.sample_id_all)
			return 0;
		size_t back;
		if (t & PERF_SAMPLE_IDENTIFIER)
			back = 8;
		else if (t & PERF_SAMPLE_ID)
			back = 8 * (1 + !!(t & PERF_SAMPLE_STREAM_ID) +
				    !!(t & PERF_SAMPLE_CPU));
		else
			return 0;
		if (size < 8 + back)
			return 0;
		pos = size - back;
	}
	if (pos + 8 > size)
		return 0;
	id = get64(rec + pos);
	if (!pd->ids_sorted) {
		qsort(pd->ids, pd->nids, sizeof(*pd->ids), cmp_id);
		pd->ids_sorted = 1;
	}
	size_t lo = 0, hi = pd->nids;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (pd->ids[mid].id < id)
			lo = mid + 1;
		else if (pd->ids[mid].id > id)
			hi = mid;
		else
			return pd->ids[mid].attr;
	}
	return 0;
}

/* The record's time, or UINT64_MAX when it has none. */
static uint64_t record_time(const struct rec_pd *pd, uint32_t attr,
			    const uint8_t *rec, size_t size)
{
	const struct perf_event_attr *a = &pd->attrs[attr].attr;
	uint64_t t = a->sample_type;
	size_t off;

	if (!(t & PERF_SAMPLE_TIME))
		return UINT64_MAX;
	if (header(rec).type == PERF_RECORD_SAMPLE) {
		off =
		    8 + 8 * (!!(t & PERF_SAMPLE_IDENTIFIER) +
			     !!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID));
	} else {
		if (!a->sample_id_all)
			return UINT64_MAX;
		size_t back = 8 * (1 + !!(t & PERF_SAMPLE_ID) +
				   !!(t & PERF_SAMPLE_STREAM_ID) +
				   !!(t & PERF_SAMPLE_CPU) +
				   !!(t & PERF_SAMPLE_IDENTIFIER));
		if (size < 8 + back)
			return UINT64_MAX;
		off = size - back;
	}
	if (off + 8 > size)
		return UINT64_MAX;
	return get64(rec + off);
}

/* ---- feature sections ------------------------------------------------- */

static void add_build_id(struct rec_pd *pd, const uint8_t *p, size_t n)
{
	/* struct build_id_event: header, pid, build_id[24], filename */
	if (n < 8 + 4 + 24 + 1)
		return;
	struct perf_event_header hdr = header(p), *h = &hdr;
	struct rec_pd_buildid *b;

	EMBER_GROW(pd->bids, pd->nbids + 1, pd->abids);
	b = &pd->bids[pd->nbids++];
	memset(b, 0, sizeof(*b));
	b->kernel = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
		    PERF_RECORD_MISC_KERNEL;
	b->pid = (int)get32(p + 8);
	b->len = 20;
	if ((h->misc & (1 << 15)) && p[12 + 20] && p[12 + 20] <= 20)
		b->len = p[12 + 20]; /* PERF_RECORD_MISC_BUILD_ID_SIZE */
	memcpy(b->id, p + 12, b->len);
	const char *name = (const char *)p + 36;
	b->path = ember_xmemdup(name, strnlen(name, n - 36));
}

static void read_feature(struct rec_pd *pd, int feat, const uint8_t *p,
			 size_t n)
{
	const uint8_t *end = p + n;
	char **dst = NULL;

	switch (feat) {
	case FEAT_HOSTNAME:
		dst = &pd->hostname;
		break;
	case FEAT_OSRELEASE:
		dst = &pd->osrelease;
		break;
	case FEAT_VERSION:
		dst = &pd->version;
		break;
	case FEAT_ARCH:
		dst = &pd->arch;
		break;
	case FEAT_CMDLINE: {
		if (n < 4)
			return;
		uint32_t nr = get32(p);
		struct ember_buf b = EMBER_BUF_INIT;
		p += 4;
		for (uint32_t i = 0; i < nr && i < 4096; i++) {
			char *s = take_string(&p, end);
			if (!s)
				break;
			if (b.len)
				ember_buf_addch(&b, ' ');
			ember_buf_adds(&b, s);
			free(s);
		}
		free(pd->cmdline);
		pd->cmdline = ember_buf_detach(&b, NULL);
		return;
	}
	case FEAT_EVENT_DESC: {
		if (n < 8)
			return;
		uint32_t nr = get32(p), asz = get32(p + 4);
		p += 8;
		for (uint32_t i = 0; i < nr; i++) {
			if ((size_t)(end - p) < (size_t)asz + 4 || asz < 8)
				return;
			const uint8_t *attr = p;
			p += asz;
			uint32_t nids = get32(p);
			p += 4;
			char *name = take_string(&p, end);
			if (!name)
				return;
			if ((uint64_t)(end - p) / 8 < nids) {
				free(name);
				return;
			}
			/* the attribute of these ids gets the name; an
			 * attribute not known yet (a stream) is added */
			uint32_t k = UINT32_MAX;
			for (uint32_t j = 0; j < nids; j++) {
				uint64_t id = get64(p + 8 * (size_t)j);
				for (size_t x = 0;
				     x < pd->nids && k == UINT32_MAX; x++)
					if (pd->ids[x].id == id)
						k = pd->ids[x].attr;
			}
			if (k == UINT32_MAX && i < pd->nattrs && !nids)
				k = i;
			if (k == UINT32_MAX) {
				add_attr(pd, attr, asz);
				k = (uint32_t)pd->nattrs - 1;
				for (uint32_t j = 0; j < nids; j++)
					add_id(pd, get64(p + 8 * (size_t)j), k);
			}
			p += 8 * (size_t)nids;
			free(pd->attrs[k].name);
			pd->attrs[k].name = name;
		}
		return;
	}
	case FEAT_BUILD_ID:
		while (end - p >= 8) {
			uint16_t sz;
			memcpy(&sz, p + 6, 2);
			if (sz < 8 || sz > end - p)
				return;
			add_build_id(pd, p, sz);
			p += sz;
		}
		return;
	case FEAT_COMPRESSED:
		if (n >= 8)
			pd->compression = get32(p + 4);
		return;
	default:
		return;
	}
	char *s = take_string(&p, end);
	if (s) {
		free(*dst);
		*dst = s;
	}
}

/* ---- the queue -------------------------------------------------------- */

static int qent_before(const struct pd_qent *a, const struct pd_qent *b)
{
	return a->time != b->time ? a->time < b->time : a->seq < b->seq;
}

/*
 * Sorts the queue.  It is a few runs in order already (each CPU's
 * records of a round, and what the round before left), so runs are
 * merged pairwise until one is left: a pass per doubling of the runs,
 * rather than qsort's pass per doubling of the records.
 */
static void sort_queue(struct rec_pd *pd)
{
	struct pd_qent *a = pd->q, *b;
	size_t n = pd->nq;

	if (pd->aqtmp < pd->aq) {
		free(pd->qtmp);
		pd->qtmp = ember_xreallocarray(NULL, pd->aq, sizeof(*pd->qtmp));
		pd->aqtmp = pd->aq;
	}
	b = pd->qtmp;
	for (;;) {
		size_t runs = 0, i = 0, o = 0;
		while (i < n) {
			size_t m = i + 1, e;
			while (m < n && !qent_before(&a[m], &a[m - 1]))
				m++;
			e = m + 1;
			while (e < n && !qent_before(&a[e], &a[e - 1]))
				e++;
			if (e > n)
				e = n;
			/* a[i..m) and a[m..e) into b[o..) */
			size_t x = i, y = m;
			while (x < m && y < e)
				b[o++] =
				    qent_before(&a[y], &a[x]) ? a[y++] : a[x++];
			while (x < m)
				b[o++] = a[x++];
			while (y < e)
				b[o++] = a[y++];
			i = e;
			runs++;
		}
		struct pd_qent *t = a;
		a = b;
		b = t;
		if (runs <= 1)
			break;
	}
	if (a != pd->q) {
		size_t k = pd->aq;
		pd->qtmp = pd->q;
		pd->q = a;
		pd->aq = pd->aqtmp;
		pd->aqtmp = k;
	}
}

/* Hands out the queued records up to time limit, in time order. */
static void flush(struct rec_pd *pd, uint64_t limit)
{
	struct pd_qent *q;
	size_t i;

	if (!pd->nq)
		return;
	sort_queue(pd);
	q = pd->q;
	for (i = 0; i < pd->nq && q[i].time <= limit; i++) {
		pd->fn(pd->fctx, q[i].rec, q[i].size, q[i].attr);
		if (q[i].owned) {
			pd->queued -= q[i].size;
			free((void *)q[i].rec);
		}
	}
	memmove(q, q + i, (pd->nq - i) * sizeof(*q));
	pd->nq -= i;
}

static void enqueue(struct rec_pd *pd, const uint8_t *rec, size_t size,
		    int stable)
{
	uint32_t attr = record_attr(pd, rec, size);
	uint64_t t = record_time(pd, attr, rec, size);
	struct pd_qent *e;

	if (t == UINT64_MAX) {
		/* no time: as it comes, as perf does (a misaligned one from
		 * a copy: the callbacks read records as structs) */
		if ((uintptr_t)rec & 7) {
			void *c = ember_xmalloc(size);
			memcpy(c, rec, size);
			pd->fn(pd->fctx, c, size, attr);
			free(c);
		} else {
			pd->fn(pd->fctx, rec, size, attr);
		}
		return;
	}
	EMBER_GROW(pd->q, pd->nq + 1, pd->aq);
	e = &pd->q[pd->nq++];
	e->time = t;
	e->seq = pd->seq++;
	e->size = (uint32_t)size;
	e->attr = attr;
	e->owned = !stable;
	if (stable) {
		e->rec = rec;
	} else {
		void *c = ember_xmalloc(size);
		memcpy(c, rec, size);
		e->rec = c;
		pd->queued += size;
	}
	if (t > pd->round_max)
		pd->round_max = t;
	if (pd->queued > MAX_QUEUED) {
		/* no FINISHED_ROUND for too long: the older half goes */
		sort_queue(pd);
		flush(pd, pd->q[pd->nq / 2].time);
	}
}

/* ---- records ---------------------------------------------------------- */

static int inflate(struct rec_pd *pd, const uint8_t *p, size_t n, uint64_t off);

/* Skip counts by record type, for the summary. */
static void count(struct rec_pd *pd, uint32_t type)
{
	if (type < ARRAY_SIZE(pd->by_type))
		pd->by_type[type]++;
}

/*
 * One record of the data section (or of a stream, or inflated); off is
 * where it starts in the input, for messages.  stable: it stays in
 * memory (a file's window, which keeps what is queued).  Returns 0, or an
 * error.
 */
static int on_record(struct rec_pd *pd, const uint8_t *rec, size_t size,
		     uint64_t off, int stable)
{
	struct perf_event_header hdr, *h = &hdr;
	const uint8_t *body = rec + 8;
	size_t n = size - 8;

	memcpy(&hdr, rec, sizeof(hdr));
	count(pd, h->type);
	pd->records++;
	/* after a compressed record of odd size, records of a file are
	 * misaligned: those are copied */
	if ((uintptr_t)rec & 7)
		stable = 0;
	if (h->type < PD_HEADER_ATTR) {
		if (!pd->nattrs)
			return fail(pd,
				    "a %u record at offset %llu precedes any "
				    "event attribute",
				    h->type, (unsigned long long)off);
		enqueue(pd, rec, size, stable);
		return 0;
	}
	switch (h->type) {
	case PD_HEADER_ATTR: {
		if (n < 8)
			return fail(pd, "short attribute record at offset %llu",
				    (unsigned long long)off);
		uint32_t asz = get32(body + 4);
		if (asz < 8 || asz > n)
			asz = (uint32_t)(n < 128 ? n : 128);
		add_attr(pd, body, asz);
		for (size_t i = asz; i + 8 <= n; i += 8)
			add_id(pd, get64(body + i), (uint32_t)pd->nattrs - 1);
		return 0;
	}
	case PD_EVENT_UPDATE:
		/* type 2: the event's name, for the attribute of id */
		if (n > 16 && get64(body) == 2) {
			uint64_t id = get64(body + 8);
			for (size_t i = 0; i < pd->nids; i++)
				if (pd->ids[i].id == id) {
					struct rec_pd_attr *a =
					    &pd->attrs[pd->ids[i].attr];
					free(a->name);
					a->name = ember_xmemdup(
					    body + 16,
					    strnlen((const char *)body + 16,
						    n - 16));
					break;
				}
		}
		return 0;
	case PD_HEADER_FEATURE:
		if (n >= 8)
			read_feature(pd, (int)get64(body), body + 8, n - 8);
		return 0;
	case PD_HEADER_BUILD_ID:
		add_build_id(pd, rec, size);
		return 0;
	case PD_FINISHED_ROUND:
		flush(pd, pd->prev_round_max);
		pd->prev_round_max = pd->round_max;
		return 0;
	case PD_COMPRESSED:
		return inflate(pd, body, n, off);
	case PD_COMPRESSED2:
		if (n < 8 || get64(body) > n - 8)
			return fail(pd,
				    "corrupt compressed record at offset %llu",
				    (unsigned long long)off);
		return inflate(pd, body + 8, (size_t)get64(body), off);
	case PD_ID_INDEX:
	case PD_THREAD_MAP:
	case PD_CPU_MAP:
	case PD_TIME_CONV:
	case PD_FINISHED_INIT:
	case PD_HEADER_EVENT_TYPE:
	case PD_HEADER_TRACING_DATA:
	case PD_AUXTRACE_INFO:
	case PD_AUXTRACE:
	case PD_AUXTRACE_ERROR:
	case PD_STAT_CONFIG:
	case PD_STAT:
	case PD_STAT_ROUND:
		return 0;
	default:
		pd->unknown++;
		return 0;
	}
}

/* Bytes that follow a record without being counted in its size: the
 * tracing data and aux data perf writes after those records. */
static uint64_t trailing_bytes(const uint8_t *rec, size_t size)
{
	struct perf_event_header hdr = header(rec), *h = &hdr;

	if (h->type == PD_HEADER_TRACING_DATA && size >= 12)
		return (get32(rec + 8) + 7ull) & ~7ull;
	if (h->type == PD_AUXTRACE && size >= 16)
		return get64(rec + 8);
	return 0;
}

/*
 * Records inflated from a COMPRESSED record; one zstd stream runs through
 * all of them, and a record may continue in the next one, so the bytes
 * after the last whole record stay for next time.
 */
static int inflate(struct rec_pd *pd, const uint8_t *p, size_t n, uint64_t off)
{
	ZSTD_inBuffer in = {p, n, 0};

	if (!pd->zstd) {
		pd->zstd = ZSTD_createDStream();
		if (!pd->zstd)
			return fail(pd, "cannot start zstd decompression");
		ZSTD_initDStream(pd->zstd);
	}
	pd->compressed++;
	while (in.pos < in.size) {
		if (pd->zalloc - pd->zlen < 65536) {
			pd->zalloc = pd->zalloc ? pd->zalloc * 2 : 1u << 20;
			pd->zbuf = ember_xrealloc(pd->zbuf, pd->zalloc);
		}
		ZSTD_outBuffer out = {pd->zbuf + pd->zlen,
				      pd->zalloc - pd->zlen, 0};
		size_t rc = ZSTD_decompressStream(pd->zstd, &out, &in);
		if (ZSTD_isError(rc))
			return fail(pd,
				    "cannot decompress the record at offset "
				    "%llu: %s",
				    (unsigned long long)off,
				    ZSTD_getErrorName(rc));
		pd->zlen += out.pos;
		/* the whole records so far */
		size_t k = 0;
		while (pd->zlen - k >= 8) {
			struct perf_event_header hdr = header(pd->zbuf + k),
						 *h = &hdr;
			if (h->size < 8)
				return fail(pd,
					    "corrupt record size %u inside the "
					    "compressed record at offset %llu",
					    h->size, (unsigned long long)off);
			if (h->size > pd->zlen - k)
				break;
			if (h->type == PD_COMPRESSED ||
			    h->type == PD_COMPRESSED2)
				return fail(pd,
					    "nested compressed record at "
					    "offset %llu",
					    (unsigned long long)off);
			int err = on_record(pd, pd->zbuf + k, h->size, off, 0);
			if (err)
				return err;
			k += h->size;
		}
		memmove(pd->zbuf, pd->zbuf + k, pd->zlen - k);
		pd->zlen -= k;
		if (!out.pos && in.pos < in.size && pd->zalloc > (256u << 20))
			return fail(pd,
				    "the compressed record at offset %llu "
				    "inflates beyond any record",
				    (unsigned long long)off);
	}
	return 0;
}

/* ---- a file, read as it is decoded ------------------------------------ */

/* Reads n bytes at offset off into p; a file now shorter than when it was
 * opened was cut short while read. */
static int fetch(struct rec_pd *pd, void *p, size_t n, uint64_t off)
{
	ssize_t got = ember_pread_full(pd->fd, p, n, off);

	if (got < 0) {
		fail(pd, "cannot read the file: %s", strerror(errno));
		return EMBER_EIO;
	}
	if ((size_t)got < n) {
		snprintf(pd->err, sizeof(pd->err),
			 "expected %llu bytes, got %llu",
			 (unsigned long long)pd->size,
			 (unsigned long long)(off + (uint64_t)got));
		return EMBER_ETRUNC;
	}
	return 0;
}

/* A part of the file's header sections, into *p (to free()). */
static int load(struct rec_pd *pd, uint64_t off, uint64_t n, uint8_t **p)
{
	*p = ember_xmalloc((size_t)n + 1);
	int err = fetch(pd, *p, (size_t)n, off);
	if (err) {
		free(*p);
		*p = NULL;
	}
	return err;
}

/* Copies the records queued in place into memory of their own. */
static void own_queued(struct rec_pd *pd)
{
	for (size_t i = 0; i < pd->nq; i++)
		if (!pd->q[i].owned) {
			void *c = ember_xmalloc(pd->q[i].size);
			memcpy(c, pd->q[i].rec, pd->q[i].size);
			pd->q[i].rec = c;
			pd->q[i].owned = 1;
			pd->queued += pd->q[i].size;
		}
}

/*
 * The window's memory: a mapping of its own, in huge pages (the window
 * is megabytes, written once over, and a fault for each 4 KiB of it is
 * dear), grown in place or moved by mremap, its bytes kept.  NULL when
 * there is no memory.
 */
static uint8_t *grow_window(uint8_t *old, size_t size, size_t to)
{
	return old ? ember_huge_remap(old, size, to) : ember_huge_map(to);
}

/*
 * Makes the n bytes at offset o of the data section readable at *p.
 * The window holds the file from win_off to win_end; records queued in
 * place point into it.  When o + n lies beyond, the window keeps from
 * the oldest of those records (or o) on, moved to its start (the queue's
 * pointers follow), grows if that leaves less than half of it free, and
 * is filled from the file as far as it holds.
 */
static int window(struct rec_pd *pd, uint64_t o, size_t n, const uint8_t **p)
{
	if (o + n > pd->win_end) {
		if (o > pd->win_end) { /* bytes skipped (aux data): none kept */
			own_queued(pd);
			pd->win_off = pd->win_end = o & ~(uint64_t)7;
		}
		uint64_t low = o;
		for (size_t i = 0; i < pd->nq; i++)
			if (!pd->q[i].owned) {
				uint64_t at =
				    pd->win_off +
				    (uint64_t)((const uint8_t *)pd->q[i].rec -
					       pd->win);
				if (at < low)
					low = at;
			}
		low &= ~(uint64_t)7; /* records stay aligned as in the file */
		size_t keep = (size_t)(pd->win_end - low);
		size_t shift = (size_t)(low - pd->win_off);
		size_t need = (size_t)(o + n - low);
		uint8_t *old = pd->win, *w = old;
		if (need > pd->win_alloc / 2) {
			size_t a = pd->win_alloc ? pd->win_alloc * 2 : WINDOW;
			while (a / 2 < need)
				a *= 2;
			if ((w = grow_window(old, pd->win_alloc, a)) == NULL)
				return fail(pd,
					    "out of memory for %zu bytes of "
					    "records",
					    a);
			pd->win_alloc = a;
		}
		if (keep && shift)
			memmove(w, w + shift, keep);
		for (size_t i = 0; i < pd->nq; i++)
			if (!pd->q[i].owned)
				pd->q[i].rec =
				    w + ((const uint8_t *)pd->q[i].rec - old) -
				    shift;
		pd->win = w;
		pd->win_off = low;
		/* filled a chunk at a time: to the window's end or the file's
		 */
		uint64_t to = low + pd->win_alloc;
		if (to > pd->size)
			to = pd->size;
		while (pd->win_end < to) {
			size_t k = to - pd->win_end > READ_AHEAD
				       ? READ_AHEAD
				       : (size_t)(to - pd->win_end);
			int err =
			    fetch(pd, w + (pd->win_end - low), k, pd->win_end);
			if (err)
				return err;
			pd->win_end += k;
			ember_read_stop(pd->win_end);
		}
	}
	*p = pd->win + (o - pd->win_off);
	return 0;
}

static void progress(struct rec_pd *pd, uint64_t pos)
{
	if (pd->progress && (pos - pd->last_progress) > (4u << 20)) {
		pd->last_progress = pos;
		pd->progress(pd->progress_ctx, pos, pd->size);
	}
}

static int read_file(struct rec_pd *pd)
{
	uint64_t hsize, asz, aoff, alen, doff, dlen, len = pd->size;
	uint8_t m[FILE_HDR_SIZE], *attrs = NULL, *part = NULL;
	int err;

	if (len < FILE_HDR_SIZE)
		return fail(pd, "the file header is cut short (%llu bytes)",
			    (unsigned long long)len);
	if ((err = fetch(pd, m, FILE_HDR_SIZE, 0)))
		return err;
	if (get64(m) != PD_MAGIC)
		return fail(pd, "not a perf.data file (no PERFILE2 header)");
	hsize = get64(m + 8);
	asz = get64(m + 16);
	aoff = get64(m + 24);
	alen = get64(m + 32);
	doff = get64(m + 40);
	dlen = get64(m + 48);
	const uint8_t *feat_bits = m + 72;
	if (hsize < FILE_HDR_SIZE || hsize > len)
		return fail(pd, "bad file header size %llu at offset 8",
			    (unsigned long long)hsize);
	if (asz < 16 + 64 || asz > 4096)
		return fail(pd, "bad event attribute size %llu at offset 16",
			    (unsigned long long)asz);
	if (aoff > len || alen > len - aoff || alen % asz)
		return fail(pd,
			    "the event attributes (offset %llu, %llu bytes) "
			    "lie outside the file",
			    (unsigned long long)aoff, (unsigned long long)alen);
	if (doff > len)
		return fail(pd,
			    "the data section's offset %llu is past the "
			    "end of the file",
			    (unsigned long long)doff);
	if (!dlen && len > doff) {
		ember_log(EMBER_LOG_WARN,
			  "the header says the data section is empty (perf "
			  "record did not finish?): reading to the end");
		dlen = len - doff;
		pd->unfinished = 1;
	}
	int short_data = dlen > len - doff;
	if (short_data)
		dlen = len - doff; /* said below, where a record is cut */
	if ((err = load(pd, aoff, alen, &attrs)))
		return err;
	for (uint64_t i = 0; i < alen / asz; i++) {
		const uint8_t *a = attrs + i * asz;
		add_attr(pd, a, (size_t)(asz - 16));
		uint64_t ioff = get64(a + asz - 16), ilen = get64(a + asz - 8);
		if (ioff > len || ilen > len - ioff) {
			err = fail(pd,
				   "the ids of event %llu (offset %llu) lie "
				   "outside the file",
				   (unsigned long long)i,
				   (unsigned long long)ioff);
			goto out;
		}
		if ((err = load(pd, ioff, ilen, &part)))
			goto out;
		for (uint64_t k = 0; k + 8 <= ilen; k += 8)
			add_id(pd, get64(part + k), (uint32_t)i);
		free(part);
		part = NULL;
	}
	if (!pd->nattrs) {
		err = fail(pd, "the file has no events");
		goto out;
	}
	/* the feature sections follow the data */
	uint64_t fo = doff + dlen;
	for (int bit = 0; bit < FEAT_BITS && !short_data; bit++) {
		uint8_t sec[16];
		if (!(feat_bits[bit / 8] & (1u << (bit % 8))))
			continue;
		if (fo + 16 > len)
			break;
		if ((err = fetch(pd, sec, 16, fo)))
			goto out;
		uint64_t so = get64(sec), sl = get64(sec + 8);
		fo += 16;
		if (so > len || sl > len - so) {
			ember_log(EMBER_LOG_WARN,
				  "feature section %d (offset %llu) lies "
				  "outside the file: ignored",
				  bit, (unsigned long long)so);
			continue;
		}
		if ((err = load(pd, so, sl, &part)))
			goto out;
		read_feature(pd, bit, part, (size_t)sl);
		free(part);
		part = NULL;
	}
	for (uint64_t o = doff, end = doff + dlen; o < end;) {
		const uint8_t *r;
		if (end - o < 8) {
			ember_log(
			    EMBER_LOG_WARN,
			    "the data section ends inside a record header "
			    "at offset %llu (truncated?)",
			    (unsigned long long)o);
			pd->truncated = 1;
			break;
		}
		if ((err = window(pd, o, 8, &r)))
			goto out;
		struct perf_event_header hdr = header(r), *h = &hdr;
		if (h->size < 8) {
			err = fail(pd, "corrupt record size %u at offset %llu",
				   h->size, (unsigned long long)o);
			goto out;
		}
		if (h->size > end - o) {
			ember_log(EMBER_LOG_WARN,
				  "the data section ends inside a record at "
				  "offset %llu (truncated?)",
				  (unsigned long long)o);
			pd->truncated = 1;
			break;
		}
		if ((err = window(pd, o, h->size, &r)) ||
		    (err = on_record(pd, r, h->size, o, 1)))
			goto out;
		o += h->size + trailing_bytes(r, h->size);
		progress(pd, o);
	}
	if (short_data && !pd->truncated) {
		ember_log(EMBER_LOG_WARN,
			  "the file ends at offset %llu, inside its data "
			  "section (truncated?)",
			  (unsigned long long)len);
		pd->truncated = 1;
	}
out:
	free(part);
	free(attrs);
	return err;
}

/* ---- a stream (pipe mode) --------------------------------------------- */

struct stream {
	rec_pd_next_fn next;
	void *ctx;
	const uint8_t *piece; /* the piece at hand, from pos */
	size_t plen, ppos;
	uint64_t off; /* input offset of piece[ppos] */
	int eof, err;
};

/* Copies n bytes into dst (NULL: skips them); how many it got. */
static size_t stream_take(struct stream *s, void *dst, size_t n)
{
	size_t got = 0;

	while (got < n) {
		if (s->ppos == s->plen) {
			const char *p;
			size_t len;
			int rc = s->eof ? 0 : s->next(s->ctx, &p, &len);
			if (rc != 1) {
				s->eof = 1;
				if (rc < 0)
					s->err = rc;
				return got;
			}
			s->piece = (const uint8_t *)p;
			s->plen = len;
			s->ppos = 0;
		}
		size_t k = s->plen - s->ppos;
		if (k > n - got)
			k = n - got;
		if (dst)
			memcpy((char *)dst + got, s->piece + s->ppos, k);
		s->ppos += k;
		s->off += k;
		got += k;
	}
	return got;
}

static int read_stream(struct rec_pd *pd, struct stream *s)
{
	uint8_t *buf = NULL;
	size_t alloc = 0;
	int err = 0;

	for (;;) {
		uint64_t off = s->off;
		struct perf_event_header h;
		size_t got = stream_take(s, &h, sizeof(h));
		if (!got)
			break;
		if (got < sizeof(h)) {
			ember_log(EMBER_LOG_WARN,
				  "the stream ends inside a record header at "
				  "offset %llu (truncated?)",
				  (unsigned long long)off);
			pd->truncated = 1;
			break;
		}
		if (h.size < 8) {
			err = fail(pd, "corrupt record size %u at offset %llu",
				   h.size, (unsigned long long)off);
			break;
		}
		EMBER_GROW(buf, h.size, alloc);
		memcpy(buf, &h, sizeof(h));
		if (stream_take(s, buf + 8, h.size - 8u) < h.size - 8u) {
			ember_log(EMBER_LOG_WARN,
				  "the stream ends inside a record at offset "
				  "%llu (truncated?)",
				  (unsigned long long)off);
			pd->truncated = 1;
			break;
		}
		uint64_t skip = trailing_bytes(buf, h.size);
		err = on_record(pd, buf, h.size, off, 0);
		if (err)
			break;
		while (skip) {
			size_t k = skip > 65536 ? 65536 : (size_t)skip;
			if (stream_take(s, NULL, k) < k)
				break;
			skip -= k;
		}
		progress(pd, s->off);
	}
	free(buf);
	if (!err && s->err)
		err = s->err;
	return err;
}

/* ---- the whole ---------------------------------------------------------- */

void rec_pd_init(struct rec_pd *pd, rec_pd_record_fn fn, void *ctx)
{
	memset(pd, 0, sizeof(*pd));
	pd->fn = fn;
	pd->fctx = ctx;
}

void rec_pd_release(struct rec_pd *pd)
{
	for (size_t i = 0; i < pd->nq; i++)
		if (pd->q[i].owned)
			free((void *)pd->q[i].rec);
	free(pd->q);
	free(pd->qtmp);
	for (size_t i = 0; i < pd->nattrs; i++)
		free(pd->attrs[i].name);
	free(pd->attrs);
	free(pd->ids);
	for (size_t i = 0; i < pd->nbids; i++)
		free(pd->bids[i].path);
	free(pd->bids);
	free(pd->hostname);
	free(pd->osrelease);
	free(pd->version);
	free(pd->arch);
	free(pd->cmdline);
	free(pd->zbuf);
	if (pd->zstd)
		ZSTD_freeDStream(pd->zstd);
	ember_huge_unmap(pd->win, pd->win_alloc);
	if (pd->spooled)
		close(pd->fd);
	memset(pd, 0, sizeof(*pd));
}

int rec_pd_is_perfdata(const char *p, size_t n)
{
	return n >= 8 && !memcmp(p, "PERFILE2", 8);
}

/* A file-mode input that is no regular file (gzip, a pipe): spooled to an
 * unlinked temporary file, then read as one. */
static int spool(struct rec_pd *pd, struct stream *s, const uint8_t *head,
		 int *out)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	char buf[65536];
	int fd;

	snprintf(path, sizeof(path), "%s/ember-perfdata-XXXXXX",
		 dir && *dir ? dir : "/tmp");
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return fail(pd,
			    "cannot make a temporary file to read the "
			    "perf.data stream: %s",
			    strerror(errno));
	unlink(path);
	memcpy(buf, head, 16);
	for (size_t got = 16;; got = stream_take(s, buf, sizeof(buf))) {
		if (!got)
			break;
		for (size_t w = 0; w < got;) {
			ssize_t k = write(fd, buf + w, got - w);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				close(fd);
				return fail(pd,
					    "cannot write a temporary copy of "
					    "the perf.data stream: %s",
					    strerror(errno));
			}
			w += (size_t)k;
		}
	}
	if (s->err) {
		close(fd);
		return s->err;
	}
	*out = fd;
	return 0;
}

int rec_pd_read(struct rec_pd *pd, int fd, const char *first, size_t nfirst,
		rec_pd_next_fn next, void *ctx)
{
	struct stream s = {next, ctx, (const uint8_t *)first, nfirst, 0, 0,
			   0,	 0};
	uint8_t head[16];
	struct stat st;
	int err;

	if (nfirst >= 8 && get64((const uint8_t *)first) == PD_MAGIC_SWAP)
		return fail(pd, "a big-endian perf.data file: not supported");
	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    pread(fd, head, 16, 0) == 16 && get64(head + 8) != 16)
		goto file; /* a whole file */
	if (stream_take(&s, head, 16) < 16 || get64(head) != PD_MAGIC)
		return fail(pd, "not a perf.data file (no PERFILE2 header)");
	if (get64(head + 8) == 16) {
		pd->pipe = 1;
		err = read_stream(pd, &s);
		goto out;
	}
	/* a whole file through a stream (gzip, a pipe): spooled */
	err = spool(pd, &s, head, &fd);
	if (err)
		return err;
	pd->spooled = 1;
	pd->fd = fd;
	if (fstat(fd, &st))
		return fail(pd, "cannot read back the temporary copy");
file:
	pd->size = (uint64_t)st.st_size;
	pd->fd = fd;
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	err = read_file(pd);
out:
	if (!err)
		flush(pd, UINT64_MAX);
	return err;
}
