/*
 * pprof out: the sample-level profile as profile.proto, gzip-compressed
 * as pprof and Go write it.  Folded stacks alone become a profile first
 * (one sample per stack, no time, a function per frame name).
 *
 * A Sample per distinct (stack, thread), its values summed, with the
 * labels pid, tid (numeric) and thread (the name); its locations leaf
 * first.  When the samples have times, a Sample per sample instead, its
 * time in a numeric label timestamp_ns: profile.proto has no time per
 * sample, and this is the label perf_to_profile (google/perf_data_converter)
 * writes, with the same clock (perf's, ns since boot; time_nanos is the
 * wall-clock start), so that the time order survives the trip through
 * pprof (ember reads it back).  It costs a Sample per sample: pprof
 * sums them as it loads the profile.  A Location per distinct (mapping,
 * address): the profile's frames of one address, the inlined ones deeper, are
 * its Lines (innermost first).  Frames without an address each have their own
 * location in a last mapping for them, marked as symbolized so that
 * pprof does not try.  Mappings: the main program first, then the other
 * files, the kernel as "[kernel.kallsyms]".  Sample types as the profile
 * has them ("samples/count", then the time); microseconds become
 * nanoseconds (pprof's unit for times), as weights that are not integers
 * are rounded.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export.h"
#include "libdeflate.h"
#include "profile.h"
#include "proto.h"
#include "stacks.h"

/* profile.proto's field numbers */
enum {
	P_SAMPLE_TYPE = 1,
	P_SAMPLE = 2,
	P_MAPPING = 3,
	P_LOCATION = 4,
	P_FUNCTION = 5,
	P_STRING = 6,
	P_TIME_NANOS = 9,
	P_DURATION_NANOS = 10,
	P_PERIOD_TYPE = 11,
	P_PERIOD = 12,
};

/* out into the stream once it holds a piece's worth: half a megabyte,
 * two of them (one being compressed), each made big enough at the start
 * for a piece and the message that fills it, never doubled */
#define PIECE	    (1u << 19)
#define PIECE_ALLOC (PIECE + PIECE / 8)

/* The profile's bytes, gzip-compressed as they are made: the encoded
 * profile is never held whole (a recording of a million samples makes
 * a hundred megabytes of it).  With libdeflate, each piece is a gzip
 * member of its own (RFC 1952 lets a file be several, and Go's reader,
 * and so pprof, Pyroscope and Parca, reads them all), made in a third of
 * zlib's time; else one zlib stream, whose output does not depend on how
 * its input comes in pieces. */
struct gz {
	z_stream z;
	const struct ember_libdeflate *lib;
	struct libdeflate_compressor *c;
	unsigned char *cbuf;
	size_t ncbuf;
	int members; /* libdeflate's written */
	ember_write_fn w;
	void *ctx;
	int err, live;
	/* libdeflate's members made on a thread of their own while the
	 * next piece is encoded: the piece handed over (full: waiting
	 * for the thread); the thread's error (terr) read under the lock */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	struct ember_buf piece;
	int full, done, threaded, terr, terrno;
};

static void *gz_thread(void *arg);

static int gz_init(struct gz *g, ember_write_fn w, void *ctx)
{
	memset(g, 0, sizeof(*g));
	g->w = w;
	g->ctx = ctx;
	/* level 1, as Go's runtime/pprof writes its profiles: a fifth of
	 * the time of level 6 for a file a few percent bigger */
	if ((g->lib = ember_libdeflate()) &&
	    (g->c = g->lib->alloc_compressor(1))) {
		ember_buf_init(&g->piece, PIECE_ALLOC);
		pthread_mutex_init(&g->lock, NULL);
		pthread_cond_init(&g->cv, NULL);
		g->threaded = !pthread_create(&g->thread, NULL, gz_thread, g);
		if (!g->threaded) {
			pthread_mutex_destroy(&g->lock);
			pthread_cond_destroy(&g->cv);
		}
		return 0;
	}
	g->lib = NULL;
	if (deflateInit2(&g->z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return EMBER_ENOMEM;
	g->live = 1;
	return 0;
}

/* raw's bytes as one gzip member (none for no bytes after the first) */
static int gz_member(struct gz *g, struct ember_buf *raw)
{
	int err;

	if (!raw->len && g->members)
		return 0;
	size_t bound = g->lib->gzip_compress_bound(g->c, raw->len);
	if (bound > g->ncbuf) {
		free(g->cbuf);
		g->cbuf = ember_xmalloc(bound);
		g->ncbuf = bound;
	}
	size_t n = g->lib->gzip_compress(g->c, raw->buf ? raw->buf : "",
					 raw->len, g->cbuf, g->ncbuf);
	if (!n)
		err = EMBER_ENOMEM;
	else
		err = g->w(g->ctx, g->cbuf, n);
	g->members++;
	return err;
}

static void *gz_thread(void *arg)
{
	struct gz *g = arg;

	pthread_mutex_lock(&g->lock);
	for (;;) {
		while (!g->full && !g->done)
			pthread_cond_wait(&g->cv, &g->lock);
		if (!g->full)
			break;
		int err = g->terr;
		pthread_mutex_unlock(&g->lock);
		if (!err) {
			err = gz_member(g, &g->piece);
			/* why a write failed, for the caller's message */
			if (err)
				g->terrno = errno;
		}
		pthread_mutex_lock(&g->lock);
		g->terr = err;
		g->full = 0;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

/* raw's bytes to the thread (raw given its last buffer back), once it
 * has made the member before; 0, or -1: no thread */
static int gz_hand(struct gz *g, struct ember_buf *raw)
{
	if (!g->threaded)
		return -1;
	pthread_mutex_lock(&g->lock);
	while (g->full)
		pthread_cond_wait(&g->cv, &g->lock);
	g->err = g->terr;
	if (g->err) {
		errno = g->terrno;
	} else {
		struct ember_buf t = g->piece;
		g->piece = *raw;
		*raw = t;
		g->full = 1;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->lock);
	return 0;
}

/* The thread ended, its members written; its error, if any, g's. */
static void gz_join(struct gz *g)
{
	if (!g->threaded)
		return;
	pthread_mutex_lock(&g->lock);
	g->done = 1;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->thread, NULL);
	if (!g->err && g->terr) {
		g->err = g->terr;
		errno = g->terrno;
	}
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->cv);
	g->threaded = 0;
}

/* raw's bytes into the stream (and raw emptied); finish: the last ones */
static int gz_put(struct gz *g, struct ember_buf *raw, int finish)
{
	unsigned char out[1 << 16];
	size_t done = 0;
	int zr = Z_OK;

	if (g->lib) {
		/* the last piece after the thread's, by this thread */
		if (finish)
			gz_join(g);
		else if (!gz_hand(g, raw))
			goto out;
		if (!g->err)
			g->err = gz_member(g, raw);
		goto out;
	}
	if (g->err)
		goto out;
	do {
		/* avail_in is 32 bits: feed at most 1 GiB at a time */
		size_t left = raw->len - done;
		int last = left <= (1u << 30);
		g->z.next_in = (unsigned char *)raw->buf + done;
		g->z.avail_in = last ? (unsigned)left : 1u << 30;
		int flush = last && finish ? Z_FINISH : Z_NO_FLUSH;
		do {
			g->z.next_out = out;
			g->z.avail_out = sizeof(out);
			zr = deflate(&g->z, flush);
			if (zr == Z_STREAM_ERROR) {
				g->err = EMBER_ENOMEM;
				break;
			}
			size_t n = sizeof(out) - g->z.avail_out;
			if (n && !g->err)
				g->err = g->w(g->ctx, out, n);
		} while (!g->err && g->z.avail_out == 0);
		done = (size_t)(g->z.next_in - (unsigned char *)raw->buf);
	} while (!g->err &&
		 (done < raw->len || (finish && zr != Z_STREAM_END)));
out:
	ember_buf_reset(raw);
	return g->err;
}

static void gz_end(struct gz *g)
{
	gz_join(g);
	ember_buf_release(&g->piece);
	if (g->live)
		deflateEnd(&g->z);
	if (g->c)
		g->lib->free_compressor(g->c);
	free(g->cbuf);
	g->live = 0;
	g->c = NULL;
	g->cbuf = NULL;
}

/* One Sample being summed: (stack, thread) and its values; with times,
 * one sample's. */
struct agg {
	uint32_t stack, thread;
	uint64_t time;
};

struct writer {
	const struct ember_prof *p;
	struct ember_intern strs; /* pprof's string table, "" first */
	uint32_t *pstr;		  /* profile string id -> pprof's + 1 */
	/* samples summed */
	struct agg *aggs;
	int64_t *vals; /* ntypes per agg */
	size_t naggs, aaggs;
	uint32_t *slots;
	size_t mask;
	double *scale; /* per type */
	int rounded, err;
	int timed; /* a Sample per sample, with its time */
	/* per stack node: its root, and the node below the root (NONE) */
	uint32_t *root, *below;
	/* per stack node: its packed location numbers at lc[off, off +
	 * len) (len UINT32_MAX: not made), with the root dropped or not */
	struct ember_buf lc;
	size_t *lc_off;
	uint32_t *lc_len;
	uint8_t *lc_drop, *made;
	/* locations: frames loc_frames[loc_off[l] .. loc_off[l + 1]) */
	uint32_t *loc_of; /* innermost frame -> location id (0: none) */
	uint32_t *loc_frames, *loc_off;
	uint32_t *loc_num, *loc_order; /* written numbers, and back */
	size_t nlocs, nlf, alf, aoff;
	uint32_t *fn_id;   /* profile func -> pprof function id (0: none) */
	uint32_t *fn_list; /* the functions used, in id order */
	size_t nfns;
	uint32_t *map_id; /* profile mapping -> pprof mapping id */
	uint32_t rest;	  /* the mapping of frames without one */
	struct ember_buf out, m, tmp;
	/* per thread: its labels' bytes at tl[off, off + len) (len
	 * UINT32_MAX: not made) */
	struct ember_buf tl;
	size_t *tl_off;
	uint32_t *tl_len;
	struct gz gz; /* where out goes, a piece at a time */
};

static void spill(struct writer *w)
{
	if (w->out.len >= PIECE)
		gz_put(&w->gz, &w->out, 0);
}

static uint32_t str_bytes(struct writer *w, const char *s, size_t n)
{
	return ember_intern(&w->strs, s, n);
}

static uint32_t str(struct writer *w, uint32_t id)
{
	if (!w->pstr[id]) {
		size_t len;
		const char *s = ember_prof_s(w->p, id, &len);
		w->pstr[id] = str_bytes(w, s, len) + 1;
	}
	return w->pstr[id] - 1;
}

static uint32_t strz(struct writer *w, const char *s)
{
	return str_bytes(w, s, strlen(s));
}

/* The summed sample of (stack, thread). */
static size_t agg_of(struct writer *w, uint32_t stack, uint32_t thread)
{
	uint64_t key = (uint64_t)stack << 32 | thread;
	uint64_t h = key * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 32) & w->mask;
	size_t nt = w->p->ntypes;

	for (; w->slots[i]; i = (i + 1) & w->mask) {
		struct agg *a = &w->aggs[w->slots[i] - 1];
		if (a->stack == stack && a->thread == thread)
			return w->slots[i] - 1;
	}
	size_t had = w->aaggs;
	EMBER_GROW(w->aggs, w->naggs + 1, w->aaggs);
	if (w->aaggs != had) /* a realloc per sample copies under ASan */
		w->vals = ember_xreallocarray(w->vals, w->aaggs * (nt ? nt : 1),
					      sizeof(*w->vals));
	w->aggs[w->naggs] = (struct agg){stack, thread, 0};
	memset(w->vals + w->naggs * nt, 0, nt * sizeof(*w->vals));
	w->slots[i] = (uint32_t)++w->naggs;
	if (w->naggs * 2 > w->mask) {
		free(w->slots);
		w->mask = w->mask * 2 + 1;
		w->slots = ember_xcalloc(w->mask + 1, sizeof(*w->slots));
		for (size_t k = 0; k < w->naggs; k++) {
			uint64_t kk = (uint64_t)w->aggs[k].stack << 32 |
				      w->aggs[k].thread;
			size_t j =
			    (size_t)((kk * 0x9e3779b97f4a7c15ull) >> 32) &
			    w->mask;
			while (w->slots[j])
				j = (j + 1) & w->mask;
			w->slots[j] = (uint32_t)k + 1;
		}
	}
	return w->naggs - 1;
}

static int add_value(struct writer *w, int64_t *sum, size_t i, size_t t)
{
	uint64_t u;

	if (w->scale[t] == 1 && !ember_prof_value_u64(w->p, t, i, &u) &&
	    u <= INT64_MAX && *sum <= INT64_MAX - (int64_t)u) {
		*sum += (int64_t)u; /* exact, beyond 2^53 too */
		return 0;
	}
	double d = ember_prof_value(w->p, t, i) * w->scale[t];

	if (!isfinite(d) || fabs(d) >= 9.2e18) {
		ember_log(EMBER_LOG_ERROR,
			  "a weight (%g) does not fit in pprof's 64-bit "
			  "integers",
			  d);
		return EMBER_EINVAL;
	}
	int64_t x = llround(d);
	if ((double)x != d)
		w->rounded = 1;
	if ((x > 0 && *sum > INT64_MAX - x) ||
	    (x < 0 && *sum < INT64_MIN - x)) {
		ember_log(EMBER_LOG_ERROR,
			  "a sum of weights does not fit in pprof's 64-bit "
			  "integers");
		return EMBER_EINVAL;
	}
	*sum += x;
	return 0;
}

static int sum_samples(struct writer *w)
{
	const struct ember_prof *p = w->p;
	size_t nt = p->ntypes;

	if (w->timed) {
		w->aggs = ember_xreallocarray(NULL, p->n + 1, sizeof(*w->aggs));
		w->vals =
		    ember_xcalloc((p->n + 1) * (nt ? nt : 1), sizeof(*w->vals));
		w->aaggs = p->n + 1;
	}
	for (size_t i = 0; i < p->n; i++) {
		size_t a = w->timed ? w->naggs++
				    : agg_of(w, p->stack[i], p->thread[i]);
		if (w->timed)
			w->aggs[a] =
			    (struct agg){p->stack[i], p->thread[i], p->time[i]};
		for (size_t t = 0; t < nt; t++) {
			int err = add_value(w, &w->vals[a * nt + t], i, t);
			if (err)
				return err;
		}
	}
	return 0;
}

static uint32_t function_of(struct writer *w, uint32_t fn)
{
	if (!w->fn_id[fn]) {
		w->fn_list[w->nfns] = fn;
		w->fn_id[fn] = (uint32_t)++w->nfns;
	}
	return w->fn_id[fn];
}

/* The location of the run of frames f[0 .. n) (leaf first: the
 * innermost frame first), made on first use. */
static uint32_t location_of(struct writer *w, const uint32_t *f, size_t n)
{
	if (w->loc_of[f[0]])
		return w->loc_of[f[0]];
	EMBER_GROW(w->loc_frames, w->nlf + n, w->alf);
	memcpy(w->loc_frames + w->nlf, f, n * sizeof(*f));
	EMBER_GROW(w->loc_off, w->nlocs + 2, w->aoff);
	w->loc_off[w->nlocs] = (uint32_t)w->nlf;
	w->nlf += n;
	w->loc_off[w->nlocs + 1] = (uint32_t)w->nlf;
	for (size_t i = 0; i < n; i++)
		function_of(w, w->p->frames[f[i]].func);
	w->loc_of[f[0]] = (uint32_t)++w->nlocs;
	return w->loc_of[f[0]];
}

/* How many frames from f[0] on (leaf first) are one address: the same
 * mapping and address, inline depths going down by one to 0. */
static size_t run_length(const struct ember_prof *p, const uint32_t *f,
			 size_t n)
{
	const struct ember_prof_frame *a = &p->frames[f[0]];
	size_t k = 1;

	if (!a->address || a->mapping == EMBER_PROF_NONE)
		return 1;
	while (k < n) {
		const struct ember_prof_frame *prev = &p->frames[f[k - 1]];
		const struct ember_prof_frame *b = &p->frames[f[k]];
		if (!prev->inline_depth || b->address != a->address ||
		    b->mapping != a->mapping ||
		    b->inline_depth + 1 != prev->inline_depth)
			break;
		k++;
	}
	return k;
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v > 0x7f) {
		v >>= 7;
		n++;
	}
	return n;
}

/* A Label {key, num} (a sample's time: one per sample) */
static void put_label_num(struct writer *w, uint32_t key, int64_t v)
{
	pb_put_varint(&w->m, 3 << 3 | PB_LEN);
	pb_put_varint(&w->m, 2 + varint_len(key) + varint_len((uint64_t)v));
	pb_put_uint(&w->m, 1, key);
	pb_put_uint(&w->m, 3, (uint64_t)v);
}

static void put_label_str(struct writer *w, uint32_t key, uint32_t v)
{
	ember_buf_reset(&w->tmp);
	pb_put_uint(&w->tmp, 1, key);
	pb_put_uint(&w->tmp, 2, v);
	pb_put_bytes(&w->m, 3, w->tmp.buf, w->tmp.len);
}

/* Each stack node's root and the node below it, in one pass: parents
 * precede their children. */
static void find_roots(struct writer *w)
{
	const struct ember_prof *p = w->p;

	w->root = ember_xreallocarray(NULL, p->nstacks + 1, sizeof(*w->root));
	w->below = ember_xreallocarray(NULL, p->nstacks + 1, sizeof(*w->below));
	for (size_t s = 0; s < p->nstacks; s++) {
		uint32_t up = p->stacks[s].parent;
		w->root[s] = up == EMBER_PROF_NONE ? (uint32_t)s : w->root[up];
		w->below[s] = up == EMBER_PROF_NONE ? EMBER_PROF_NONE
			      : p->stacks[up].parent == EMBER_PROF_NONE
				  ? (uint32_t)s
				  : w->below[up];
	}
}

/* Whether the root frame of stack s is a thread's name, left out: the
 * thread is in the labels (pprof -tagroot=thread puts it back). */
static int drop_root(const struct writer *w, uint32_t s, uint32_t thread)
{
	const struct ember_prof *p = w->p;

	if (!(p->flags & EMBER_PROF_THREAD_ROOTS) || thread == EMBER_PROF_NONE)
		return 0;
	return p->frames[p->stacks[w->root[s]].frame].kind ==
	       EMBER_PROF_SYNTHETIC;
}

/* Whether the outermost frame written of a is in the main program. */
static int main_root(const struct writer *w, const struct agg *a)
{
	const struct ember_prof *p = w->p;
	uint32_t s = w->root[a->stack];

	if (drop_root(w, a->stack, a->thread))
		s = w->below[a->stack];
	if (s == EMBER_PROF_NONE)
		return 0;
	uint32_t m = p->frames[p->stacks[s].frame].mapping;
	return m != EMBER_PROF_NONE && p->maps[m].is_main;
}

/* The order of the Samples: those whose root is in the main program
 * first, then the heaviest.  Go's pprof (1.19) works out a binary's load
 * address for -disasm from the first address of its graph, whose first
 * node is the first sample's root: one in another mapping fails it. */
static const struct writer *order_w;
static const uint8_t *order_main;

static int cmp_agg(const void *x, const void *y)
{
	const struct writer *w = order_w;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	size_t nt = w->p->ntypes;
	int mi = order_main[i], mj = order_main[j];

	if (mi != mj)
		return mj - mi;
	if (w->timed) /* time order */
		return i < j ? -1 : i > j;
	if (nt && w->vals[i * nt + nt - 1] != w->vals[j * nt + nt - 1])
		return w->vals[i * nt + nt - 1] > w->vals[j * nt + nt - 1] ? -1
									   : 1;
	return i < j ? -1 : i > j;
}

static void write_sample(struct writer *w, size_t a, const char *locs,
			 size_t nlocs, const uint32_t *keys);

/* The locations' numbers: those of the main program first (Go's pprof
 * 1.19 works out a binary's load address for -disasm from the first
 * location's address: one of another mapping fails it). */
static void number_locations(struct writer *w)
{
	const struct ember_prof *p = w->p;
	uint32_t next = 1;

	w->loc_num = ember_xcalloc(w->nlocs + 1, sizeof(*w->loc_num));
	w->loc_order = ember_xcalloc(w->nlocs + 1, sizeof(*w->loc_order));
	for (int pass = 0; pass < 2; pass++)
		for (size_t l = 0; l < w->nlocs; l++) {
			uint32_t m =
			    p->frames[w->loc_frames[w->loc_off[l]]].mapping;
			int main = m != EMBER_PROF_NONE && p->maps[m].is_main;
			if (main != !pass)
				continue;
			w->loc_order[next - 1] = (uint32_t)l;
			w->loc_num[l] = next++;
		}
}

/* Stack st's frames, leaf first, into *f (the root left out with
 * drop). */
static size_t frames_of(const struct writer *w, uint32_t st, int drop,
			uint32_t **f, size_t *amax)
{
	size_t n = ember_prof_stack_frames(w->p, st, *f, *amax);

	if (n > *amax) {
		EMBER_GROW(*f, n, *amax);
		n = ember_prof_stack_frames(w->p, st, *f, *amax);
	}
	return n && drop ? n - 1 : n;
}

/* The locations of stack st, made. */
static void make_locations(struct writer *w, uint32_t st, int drop,
			   uint32_t **f, size_t *amax)
{
	size_t n = frames_of(w, st, drop, f, amax);

	for (size_t i = 0; i < n;) {
		size_t k = run_length(w->p, *f + i, n - i);
		location_of(w, *f + i, k);
		i += k;
	}
}

/* Stack st's location numbers, packed, kept for its other samples. */
static void pack_locations(struct writer *w, uint32_t st, int drop,
			   uint32_t **f, size_t *amax)
{
	size_t n = frames_of(w, st, drop, f, amax);

	w->lc_off[st] = w->lc.len;
	for (size_t i = 0; i < n;) {
		size_t k = run_length(w->p, *f + i, n - i);
		pb_put_varint(&w->lc,
			      w->loc_num[location_of(w, *f + i, k) - 1]);
		i += k;
	}
	w->lc_len[st] = (uint32_t)(w->lc.len - w->lc_off[st]);
	w->lc_drop[st] = (uint8_t)drop;
}

static void write_samples(struct writer *w)
{
	size_t amax = 0;
	uint32_t *f = NULL;
	/* pid, tid, thread, timestamp_ns */
	uint32_t keys[4] = {strz(w, "pid"), strz(w, "tid"), strz(w, "thread"),
			    w->timed ? strz(w, "timestamp_ns") : 0};

	uint32_t *order = ember_xcalloc(w->naggs + 1, sizeof(*order));
	for (size_t a = 0; a < w->naggs; a++)
		order[a] = (uint32_t)a;
	uint8_t *in_main = ember_xcalloc(w->naggs + 1, 1);
	for (size_t a = 0; a < w->naggs; a++)
		in_main[a] = (uint8_t)main_root(w, &w->aggs[a]);
	order_w = w; /* qsort has no context argument */
	order_main = in_main;
	qsort(order, w->naggs, sizeof(*order), cmp_agg);
	free(in_main);
	/* two passes: the locations made, numbered main program first,
	 * then the samples written with those numbers (each stack's once:
	 * with times, a stack has many samples) */
	for (int pass = 0; pass < 2; pass++)
		for (size_t o = 0; o < w->naggs; o++) {
			size_t a = order[o];
			const struct agg *g = &w->aggs[a];
			int drop = drop_root(w, g->stack, g->thread);
			uint32_t st = g->stack;
			if (!pass) {
				if (!(w->made[st] & (1 << drop)))
					make_locations(w, st, drop, &f, &amax);
				w->made[st] |= (uint8_t)(1 << drop);
				if (o + 1 == w->naggs)
					number_locations(w);
				continue;
			}
			if (w->lc_len[st] == UINT32_MAX ||
			    w->lc_drop[st] != drop)
				pack_locations(w, st, drop, &f, &amax);
			write_sample(w, a, w->lc.buf + w->lc_off[st],
				     w->lc_len[st], keys);
		}
	if (!w->naggs)
		number_locations(w);
	free(order);
	free(f);
}

static void write_sample(struct writer *w, size_t a, const char *locs,
			 size_t nlocs, const uint32_t *keys)
{
	const struct ember_prof *p = w->p;
	const struct agg *g = &w->aggs[a];
	size_t nt = p->ntypes;

	{
		ember_buf_reset(&w->m);
		pb_put_bytes(&w->m, 1, locs, nlocs);
		ember_buf_reset(&w->tmp);
		for (size_t t = 0; t < nt; t++)
			pb_put_varint(&w->tmp, (uint64_t)w->vals[a * nt + t]);
		pb_put_bytes(&w->m, 2, w->tmp.buf, w->tmp.len);
		if (g->thread != EMBER_PROF_NONE) {
			/* the thread's labels, encoded once */
			if (w->tl_len[g->thread] == UINT32_MAX) {
				const struct ember_prof_thread *th =
				    &p->threads[g->thread];
				size_t at = w->m.len;
				if (th->pid >= 0)
					put_label_num(w, keys[0], th->pid);
				if (th->tid >= 0)
					put_label_num(w, keys[1], th->tid);
				if (th->name)
					put_label_str(w, keys[2],
						      str(w, th->name));
				w->tl_off[g->thread] = w->tl.len;
				w->tl_len[g->thread] =
				    (uint32_t)(w->m.len - at);
				ember_buf_add(&w->tl, w->m.buf + at,
					      w->m.len - at);
			} else {
				ember_buf_add(&w->m,
					      w->tl.buf + w->tl_off[g->thread],
					      w->tl_len[g->thread]);
			}
		}
		if (w->timed)
			put_label_num(w, keys[3], (int64_t)g->time);
		pb_put_bytes(&w->out, P_SAMPLE, w->m.buf, w->m.len);
		spill(w);
	}
}

static void write_mapping(struct writer *w, uint32_t id,
			  const struct ember_prof_mapping *m)
{
	ember_buf_reset(&w->m);
	pb_put_uint(&w->m, 1, id);
	pb_put_uint(&w->m, 2, m->start);
	pb_put_uint(&w->m, 3, m->limit);
	pb_put_uint(&w->m, 4, m->offset);
	pb_put_uint(&w->m, 5, str(w, m->path));
	if (m->build_id)
		pb_put_uint(&w->m, 6, str(w, m->build_id));
	pb_put_uint(&w->m, 7, 1);
	if (m->has_lines) {
		pb_put_uint(&w->m, 8, 1);
		pb_put_uint(&w->m, 9, 1);
	}
	if (m->has_inline)
		pb_put_uint(&w->m, 10, 1);
	pb_put_bytes(&w->out, P_MAPPING, w->m.buf, w->m.len);
}

/* The mappings: the main program first, the rest in order, then one
 * for frames in none (symbolized: has_functions). */
static void write_mappings(struct writer *w)
{
	const struct ember_prof *p = w->p;
	uint32_t next = 1;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < p->nmaps; i++)
			if ((p->maps[i].is_main != 0) == (pass == 0)) {
				w->map_id[i] = next++;
				write_mapping(w, w->map_id[i], &p->maps[i]);
			}
	w->rest = next;
	ember_buf_reset(&w->m);
	pb_put_uint(&w->m, 1, w->rest);
	pb_put_uint(&w->m, 7, 1);
	pb_put_bytes(&w->out, P_MAPPING, w->m.buf, w->m.len);
}

static void write_locations(struct writer *w)
{
	const struct ember_prof *p = w->p;

	for (size_t o = 0; o < w->nlocs; o++) {
		size_t l = w->loc_order[o];
		const uint32_t *f = w->loc_frames + w->loc_off[l];
		size_t n = w->loc_off[l + 1] - w->loc_off[l];
		const struct ember_prof_frame *a = &p->frames[f[0]];
		ember_buf_reset(&w->m);
		pb_put_uint(&w->m, 1, o + 1);
		if (a->mapping != EMBER_PROF_NONE && a->address) {
			pb_put_uint(&w->m, 2, w->map_id[a->mapping]);
			/* a caller inside its call instruction, as Go's
			 * runtime/pprof writes it: -disasm counts the call */
			pb_put_uint(&w->m, 3, a->address - (a->call != 0));
		} else {
			pb_put_uint(&w->m, 2, w->rest);
		}
		for (size_t i = 0; i < n; i++) {
			ember_buf_reset(&w->tmp);
			pb_put_uint(&w->tmp, 1, w->fn_id[p->frames[f[i]].func]);
			if (p->frames[f[i]].line)
				pb_put_uint(&w->tmp, 2, p->frames[f[i]].line);
			pb_put_bytes(&w->m, 4, w->tmp.buf, w->tmp.len);
		}
		pb_put_bytes(&w->out, P_LOCATION, w->m.buf, w->m.len);
		spill(w);
	}
	for (size_t i = 0; i < w->nfns; i++) {
		const struct ember_prof_func *fn = &p->funcs[w->fn_list[i]];
		ember_buf_reset(&w->m);
		pb_put_uint(&w->m, 1, i + 1);
		pb_put_uint(&w->m, 2, str(w, fn->name));
		pb_put_uint(&w->m, 3, str(w, fn->system_name));
		if (fn->file)
			pb_put_uint(&w->m, 4, str(w, fn->file));
		if (fn->start_line)
			pb_put_uint(&w->m, 5, fn->start_line);
		pb_put_bytes(&w->out, P_FUNCTION, w->m.buf, w->m.len);
		spill(w);
	}
}

static void put_value_type(struct writer *w, uint32_t field, uint32_t type,
			   uint32_t unit)
{
	ember_buf_reset(&w->m);
	pb_put_uint(&w->m, 1, type);
	pb_put_uint(&w->m, 2, unit);
	pb_put_bytes(&w->out, field, w->m.buf, w->m.len);
}

/* A unit as pprof writes it, and the factor to it. */
static uint32_t unit_of(struct writer *w, uint32_t unit, double *scale)
{
	size_t len;
	const char *s = ember_prof_s(w->p, unit, &len);

	*scale = 1;
	if (!strcmp(s, "microseconds")) {
		*scale = 1000;
		return strz(w, "nanoseconds");
	}
	return str(w, unit);
}

static int write_prof(const struct ember_prof *p, ember_write_fn wf, void *ctx)
{
	struct writer w;
	int err;

	memset(&w, 0, sizeof(w));
	w.p = p;
	ember_intern_init(&w.strs);
	ember_intern(&w.strs, "", 0);
	w.pstr = ember_xcalloc(p->strs.n, sizeof(*w.pstr));
	w.mask = 1023;
	w.slots = ember_xcalloc(w.mask + 1, sizeof(*w.slots));
	w.scale = ember_xcalloc(p->ntypes + 1, sizeof(*w.scale));
	w.loc_of = ember_xcalloc(p->nframes + 1, sizeof(*w.loc_of));
	w.fn_id = ember_xcalloc(p->nfuncs + 1, sizeof(*w.fn_id));
	w.fn_list = ember_xcalloc(p->nfuncs + 1, sizeof(*w.fn_list));
	w.map_id = ember_xcalloc(p->nmaps + 1, sizeof(*w.map_id));
	w.timed = (p->flags & EMBER_PROF_HAS_TIME) && p->n;
	find_roots(&w);
	ember_buf_init(&w.lc, 1 << 16);
	w.lc_off = ember_xcalloc(p->nstacks + 1, sizeof(*w.lc_off));
	w.lc_len = ember_xreallocarray(NULL, p->nstacks + 1, sizeof(*w.lc_len));
	memset(w.lc_len, 0xff, (p->nstacks + 1) * sizeof(*w.lc_len));
	w.lc_drop = ember_xcalloc(p->nstacks + 1, 1);
	w.made = ember_xcalloc(p->nstacks + 1, 1);
	ember_buf_init(&w.tl, 256);
	w.tl_off = ember_xcalloc(p->nthreads + 1, sizeof(*w.tl_off));
	w.tl_len =
	    ember_xreallocarray(NULL, p->nthreads + 1, sizeof(*w.tl_len));
	memset(w.tl_len, 0xff, (p->nthreads + 1) * sizeof(*w.tl_len));
	ember_buf_init(&w.out, PIECE_ALLOC);
	err = gz_init(&w.gz, wf, ctx);
	if (err)
		goto out;
	ember_buf_init(&w.m, 256);
	ember_buf_init(&w.tmp, 256);
	for (size_t t = 0; t < p->ntypes; t++) {
		uint32_t unit = unit_of(&w, p->types[t].unit, &w.scale[t]);
		put_value_type(&w, P_SAMPLE_TYPE, str(&w, p->types[t].type),
			       unit);
	}
	err = sum_samples(&w);
	if (err)
		goto out;
	write_samples(&w);
	write_mappings(&w);
	write_locations(&w);
	if (p->start_ns > 0)
		pb_put_uint(&w.out, P_TIME_NANOS, (uint64_t)p->start_ns);
	if (p->duration_ns)
		pb_put_uint(&w.out, P_DURATION_NANOS, p->duration_ns);
	if (p->period_type.type) {
		double s;
		uint32_t unit = unit_of(&w, p->period_type.unit, &s);
		put_value_type(&w, P_PERIOD_TYPE, str(&w, p->period_type.type),
			       unit);
		pb_put_uint(&w.out, P_PERIOD,
			    (uint64_t)llround((double)p->period * s));
	} else if (p->ntypes) {
		/* folded stacks: the sample type, one at a time */
		put_value_type(&w, P_PERIOD_TYPE, str(&w, p->types[0].type),
			       unit_of(&w, p->types[0].unit, &w.scale[0]));
		pb_put_uint(&w.out, P_PERIOD, 1);
	}
	for (size_t i = 0; i < ember_intern_count(&w.strs); i++) {
		size_t len;
		const char *s = ember_intern_str(&w.strs, (uint32_t)i, &len);
		pb_put_bytes(&w.out, P_STRING, s, len);
		spill(&w);
	}
	if (w.rounded)
		ember_log(EMBER_LOG_WARN,
			  "pprof holds integers: weights were rounded");
	err = gz_put(&w.gz, &w.out, 1);
out:
	gz_end(&w.gz);
	ember_intern_release(&w.strs);
	free(w.pstr);
	free(w.aggs);
	free(w.vals);
	free(w.slots);
	free(w.scale);
	free(w.loc_of);
	free(w.loc_frames);
	free(w.loc_off);
	free(w.loc_num);
	free(w.loc_order);
	free(w.fn_id);
	free(w.fn_list);
	free(w.map_id);
	free(w.root);
	free(w.below);
	free(w.lc_off);
	free(w.lc_len);
	free(w.lc_drop);
	free(w.made);
	free(w.tl_off);
	free(w.tl_len);
	ember_buf_release(&w.tl);
	ember_buf_release(&w.lc);
	ember_buf_release(&w.out);
	ember_buf_release(&w.m);
	ember_buf_release(&w.tmp);
	return err;
}

int ember_pprof_write(const struct ember_profile *p, ember_write_fn w,
		      void *ctx)
{
	struct ember_prof tmp;
	int err = write_prof(ember_exp_profile(p, &tmp), w, ctx);

	ember_prof_release(&tmp);
	return err;
}
