/*
 * perf.data read directly, folded as `perf script | ember collapse perf`
 * folds its text.  The records go through ember record's own consumer (a
 * session in replay mode: the same decoding, DWARF unwinding, processes
 * and mappings, only the bytes come from a file); its stack table holds
 * unique stacks of unique frames.  At the end each frame is symbolized
 * once, named by collapse perf's frame-line code with the same options
 * (a cache per frame and java-ness), and each unique stack becomes a
 * folded stack with its periods summed as integers.
 */
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "collapse.h"
#include "symbols/jitdump.h"
#include "hugemem.h"
#include "perf/perfdata.h"
#include "perf/samples.h"
#include "perf/symbolize.h"

/* The kernel's symbols take milliseconds to read (perf's copy of the
 * recording's kallsyms), or tens of milliseconds of the kernel's time
 * (/proc/kallsyms): on another core while the records are read, from the
 * first one of a recording whose events may sample the kernel.  They are
 * given up (stop) when no kernel frame turns up, or what is known of the
 * recording's kernel at the end asks for other ones (a stream's
 * build-ids may come last). */
struct kpre {
	pthread_t thread;
	struct rec_symtab st;
	struct rec_ktext text; /* read here, parsed for the frames after */
	struct ember_buf path; /* perf's copy to read (empty: none) */
	int other;	       /* the recording's kernel is another */
	int from_cache;	       /* text is perf's copy */
	int err, cache_err, tried, started, stop;
};

static void *kallsyms_thread(void *arg)
{
	struct kpre *k = arg;

	k->err = EMBER_ENOTSUP;
	if (k->path.len) {
		int err =
		    rec_kallsyms_read_cache(&k->text, k->path.buf, &k->stop);
		if (!err || err == EMBER_EINTR) {
			k->err = err;
			k->from_cache = !err;
			return NULL;
		}
		k->cache_err = err;
	}
	if (!k->other)
		k->err = rec_kallsyms_read(&k->text, NULL, &k->stop);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The kernel's symbols that the kernel frames' lookups need, from the
 * text read (of the 120,000 symbols a few thousand): /proc/kallsyms read
 * here when perf's copy holds none. */
static void kernel_take(struct rec_events *r, struct kpre *kp)
{
	uint64_t *want = NULL;
	size_t n = 0, a = 0;

	for (size_t i = 0; i < r->frames.n; i++)
		if (r->frames.v[i].kind == REC_FRAME_KERNEL) {
			EMBER_GROW(want, n + 1, a);
			want[n++] = r->frames.v[i].addr;
		}
	if (n)
		qsort(want, n, sizeof(*want), cmp_u64);
	if (!kp->err) {
		kp->err = rec_kallsyms_take(&kp->st, &kp->text, want, n);
		if (kp->err && kp->from_cache) {
			kp->cache_err =
			    kp->err == EMBER_EPERM ? EMBER_EFORMAT : kp->err;
			kp->err = EMBER_ENOTSUP;
			if (!kp->other && !(kp->err = rec_kallsyms_read(
						&kp->text, NULL, NULL)))
				kp->err = rec_kallsyms_take(&kp->st, &kp->text,
							    want, n);
		}
	}
	rec_ktext_release(&kp->text);
	rec_symtab_finish(&kp->st);
	free(want);
}

struct pdc {
	const struct ember_collapse_options *o;
	struct collapse_sink *k;
	void *perf;
	struct rec_pd pd;
	struct rec_events *r;
	struct rec_symctx *sc;
	uint32_t *pbuf; /* a frame's names for the profile */
	size_t apbuf;
	struct ember_record_stats stats;
	char no_kallsyms[300];
	const char *no_kallsyms_why; /* NULL: kallsyms names kernel frames */
	uint64_t last_time;
	/* per attribute: -1 not decided, 0 filtered, 1 counted */
	signed char *want;
	size_t nwant;
	/* the names of each frame: ids[off[2f + java] .. + len] */
	uint32_t *cache;
	size_t ncache, acache;
	struct fcache {
		uint32_t off, len;
		int state; /* 0 not named, 1 named, 2 named and skip-after */
	} * fc;
	size_t fc_bytes;
	/* the names of a frame by what they are made of (its symbol,
	 * module and java-ness) where the address adds nothing (no --addrs,
	 * --inline or --srcline): a module's frames at many addresses of
	 * one function or of none known, named once */
	int by_name;
	struct ember_intern nkeys;
	struct fcache *nk; /* by key id */
	size_t ank;
	struct ember_buf key, name, dso;
	/* per root frame: its names (len 0: not named yet) */
	uint32_t *root_off, *root_len;
	uint8_t *root_java;
	uint32_t *out; /* a folded stack */
	size_t aout;
	uint8_t *kern; /* per stack: has kernel frames (fold's first pass) */
	/* the writers read the profile alone (options.profile_only, one
	 * input): the stacks are named, not folded into the sink */
	int only;
	struct rec_symtab *kallsyms; /* the kernel's, read beforehand */
	int kallsyms_err, kallsyms_cache_err;
	struct ember_buf kcache; /* perf's copy of the kernel's kallsyms */
	struct kpre kp;
	int cpus;
};

/* The event's name as perf script prints it. */
static const char *event_name(const struct rec_pd_attr *a, char *buf, size_t n)
{
	static const char *const hw[] = {"cycles",
					 "instructions",
					 "cache-references",
					 "cache-misses",
					 "branches",
					 "branch-misses",
					 "bus-cycles",
					 "stalled-cycles-frontend",
					 "stalled-cycles-backend",
					 "ref-cycles"};
	static const char *const sw[] = {"cpu-clock",	     "task-clock",
					 "page-faults",	     "context-switches",
					 "cpu-migrations",   "minor-faults",
					 "major-faults",     "alignment-faults",
					 "emulation-faults", "dummy",
					 "bpf-output",	     "cgroup-switches"};

	if (a->name)
		return a->name;
	if (a->attr.type == PERF_TYPE_HARDWARE && a->attr.config < 10)
		return hw[a->attr.config];
	if (a->attr.type == PERF_TYPE_SOFTWARE && a->attr.config < 12)
		return sw[a->attr.config];
	snprintf(buf, n, "raw-%u-%llx", a->attr.type,
		 (unsigned long long)a->attr.config);
	return buf;
}

/* Whether samples of attribute i are folded: the event asked for, else
 * the first one sampled (as for text). */
static int wanted(struct pdc *c, uint32_t i)
{
	struct collapse_sink *k = c->k;
	char buf[64];

	if (i >= c->nwant) {
		size_t n = c->pd.nattrs > i ? c->pd.nattrs : i + 1;
		c->want = ember_xrealloc(c->want, n);
		memset(c->want + c->nwant, -1, n - c->nwant);
		c->nwant = n;
	}
	if (c->want[i] >= 0)
		return c->want[i];
	const char *name = i < c->pd.nattrs
			       ? event_name(&c->pd.attrs[i], buf, sizeof(buf))
			       : "unknown";
	size_t len = strlen(name);
	if (!k->event && c->o->event_filter && *c->o->event_filter) {
		k->event = ember_xstrdup(c->o->event_filter);
		k->event_len = strlen(k->event);
	}
	if (!k->event) {
		k->event = ember_xmemdup(name, len);
		k->event_len = len;
		k->event_defaulted = 1;
	}
	c->want[i] = k->event_len == len && !memcmp(k->event, name, len);
	if (!c->want[i] && !k->n.filtered) {
		size_t m = len < sizeof(k->n.filtered_event) - 1
			       ? len
			       : sizeof(k->n.filtered_event) - 1;
		memcpy(k->n.filtered_event, name, m);
		k->n.filtered_event[m] = '\0';
	}
	return c->want[i];
}

/* The sample-level profile, named by the first event sampled: cpu-clock
 * and task-clock periods are nanoseconds. */
static void start_profile(struct pdc *c, uint32_t attr)
{
	const struct perf_event_attr *a = &c->pd.attrs[attr].attr;
	int clock = a->type == PERF_TYPE_SOFTWARE &&
		    (a->config == PERF_COUNT_SW_CPU_CLOCK ||
		     a->config == PERF_COUNT_SW_TASK_CLOCK);
	const char *name = c->pd.attrs[attr].name;
	int64_t period = 0;

	if (!a->freq)
		period = (int64_t)a->sample_period;
	else if (clock && a->sample_freq)
		period = (int64_t)(1e9 / (double)a->sample_freq + 0.5);
	rec_prof_start(c->r,
		       clock  ? "cpu"
		       : name ? name
			      : "events",
		       clock ? "nanoseconds" : "count", period);
}

static const char *osrelease_mismatch(struct pdc *c);
static void kernel_cache(struct pdc *c, struct ember_buf *path);

/* Each record, in time order, as the recording session handles one from
 * its ring buffers. */
static void on_record(void *ctx, const void *rec, size_t size, uint32_t attr)
{
	struct pdc *c = ctx;
	struct rec_events *r = c->r;
	const struct perf_event_header *h = rec;
	const struct perf_event_attr *a = &c->pd.attrs[attr].attr;

	if (!c->kp.tried) {
		c->kp.tried = 1;
		for (size_t i = 0; i < c->pd.nattrs && c->cpus > 1; i++)
			if (!c->pd.attrs[i].attr.exclude_kernel) {
				kernel_cache(c, &c->kp.path);
				c->kp.other = osrelease_mismatch(c) != NULL;
				c->kp.started =
				    !pthread_create(&c->kp.thread, NULL,
						    kallsyms_thread, &c->kp);
				break;
			}
	}
	r->sample_type = a->sample_type;
	r->regs_mask = a->sample_regs_user;
	r->read_format = a->read_format;
	r->branch_hw_index =
	    (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) != 0;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (!wanted(c, attr)) {
			c->k->n.filtered++;
			return;
		}
		r->dwarf = (a->sample_type & PERF_SAMPLE_REGS_USER) &&
			   (a->sample_type & PERF_SAMPLE_STACK_USER);
		/* the consumer gives the unwinder CPython's trampolines
		 * rebuilt from the perf map: the process is gone */
		if (r->dwarf && !r->unwinder)
			r->unwinder = ember_unwinder_new();
	}
	if (c->o->profile && !r->prof && h->type == PERF_RECORD_SAMPLE)
		start_profile(c, attr);
	uint64_t t = rec_events_time(r, rec, size);
	if (t > c->last_time)
		c->last_time = t;
	rec_events_handle(r, rec, size);
}

/* ---- after reading ---------------------------------------------------- */

static const char *osrelease_mismatch(struct pdc *c)
{
	struct utsname u;

	if (!c->pd.osrelease || uname(&u) ||
	    !strcmp(u.release, c->pd.osrelease))
		return NULL;
	snprintf(c->no_kallsyms, sizeof(c->no_kallsyms),
		 "the recording was made under kernel %s, this is %s: kernel "
		 "frames stay unnamed ([unknown])",
		 c->pd.osrelease, u.release);
	return c->no_kallsyms;
}

/* perf's copy of the kallsyms of the recording's kernel, by the
 * kernel's build-id in the recording (empty: none known). */
static void kernel_cache(struct pdc *c, struct ember_buf *path)
{
	ember_buf_reset(path);
	for (size_t i = 0; i < c->pd.nbids; i++) {
		const struct rec_pd_buildid *b = &c->pd.bids[i];
		if (b->kernel && b->len &&
		    !strcmp(b->path, "[kernel.kallsyms]")) {
			rec_kallsyms_cache_path(path, b->id, b->len);
			return;
		}
	}
}

/* What the recording tells that the live session learns from /proc:
 * build-ids, the clock, the kernel. */
static void prepare(struct pdc *c, double file_time)
{
	struct rec_events *r = c->r;
	struct rec_world *w = &r->world;

	for (size_t i = 0; i < c->pd.nbids; i++) {
		const struct rec_pd_buildid *b = &c->pd.bids[i];
		if (b->kernel || !b->path[0])
			continue;
		for (size_t d = 0; d < w->ndsos; d++) {
			struct rec_dso *dso = w->dsos[d];
			if (dso->kind == REC_DSO_FILE &&
			    !strcmp(dso->path, b->path)) {
				memcpy(dso->want_id, b->id, b->len);
				dso->want_len = (uint8_t)b->len;
			}
		}
	}
	/* process times were taken on the recording's clock: moved to the
	 * realtime clock by the file's time at its last record */
	double off = file_time - (double)c->last_time / 1e9;
	/* a process may be looked up in /proc only on the machine (and
	 * kernel) that recorded it */
	char host[256] = "";
	int here = !osrelease_mismatch(c) &&
		   (!c->pd.hostname || (!gethostname(host, sizeof(host) - 1) &&
					!strcmp(host, c->pd.hostname)));
	for (size_t i = 0; i < w->nprocs; i++) {
		struct rec_proc *p = w->procs[i];
		if (p->owner.start > 0)
			p->owner.start += off;
		if (p->owner.end > 0)
			p->owner.end += off;
		else if (p->owner.start <= 0 && !p->exited && here)
			/* found running: it started before the file ended */
			p->owner.before = file_time;
		if (!p->owner.uid_known) {
			/* perf's rule: the reader's own maps, or root's */
			p->owner.uid = geteuid();
			p->owner.uid_known = 1;
		}
		if (p->jd && ember_jitdump_update(p->jd) < 0)
			ember_log(EMBER_LOG_INFO,
				  "cannot read the jitdump of process %d",
				  p->pid);
	}
	c->no_kallsyms_why = osrelease_mismatch(c);
}

/* The names of frame i (java: for a java process), from the cache. */
/* v in lowercase hex without leading zeros, as "%llx" (not NUL-ended);
 * its length.  out holds 16 bytes. */
static size_t hex_addr(char *out, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	size_t n = 1;

	while (n < 16 && v >> (4 * n))
		n++;
	for (size_t i = n; i-- > 0; v >>= 4)
		out[i] = digits[v & 15];
	return n;
}

static const uint32_t *name_frame(struct pdc *c, struct rec_symctx *sc,
				  uint32_t i, int java, size_t *n, int *skip);

static inline const uint32_t *frame_names(struct pdc *c, struct rec_symctx *sc,
					  uint32_t i, int java, size_t *n,
					  int *skip)
{
	const struct fcache *e = &c->fc[2 * (size_t)i + (java != 0)];

	if (!e->state)
		return name_frame(c, sc, i, java, n, skip);
	*n = e->len;
	*skip = e->state == 2;
	return c->cache + e->off;
}

/* frame_names for a frame not named yet */
static const uint32_t *name_frame(struct pdc *c, struct rec_symctx *sc,
				  uint32_t i, int java, size_t *n, int *skip)
{
	struct fcache *e = &c->fc[2 * (size_t)i + (java != 0)];
	const struct rec_frame *f = &c->r->frames.v[i];
	struct ember_buf *dso = &c->dso, *name = &c->name;
	char addr[24];
	int fjava;
	const char *sym = rec_frame_symbol(sc, f, dso, &fjava);
	struct fcache *ke = NULL;
	if (c->by_name) {
		struct ember_buf *key = &c->key;
		ember_buf_reset(key);
		ember_buf_adds(key, sym ? sym : "[unknown]");
		ember_buf_addch(key, '\0');
		ember_buf_add(key, dso->buf, dso->len);
		ember_buf_addch(key, java || fjava ? 'j' : '-');
		uint32_t id = ember_intern(&c->nkeys, key->buf, key->len);
		if (id >= c->ank) {
			size_t old = c->ank;
			EMBER_GROW(c->nk, (size_t)id + 1, c->ank);
			memset(c->nk + old, 0, (c->ank - old) * sizeof(*c->nk));
		}
		ke = &c->nk[id];
		if (ke->state) {
			*e = *ke;
			goto named;
		}
	}
	ember_buf_reset(name);
	ember_buf_adds(name, sym ? sym : "[unknown]");
	rec_clean_name(name->buf, name->len);
	rec_clean_name(dso->buf, dso->len);
	struct ember_perf_frame pf = {name->buf, name->len, dso->buf,
				      dso->len,	 addr,	    0};
	pf.addr_len = hex_addr(addr, f->addr);
	const uint32_t *ids;
	size_t k;
	int sk = cl_perf_frame(c->perf, &pf, java || fjava, &ids, &k);
	EMBER_GROW(c->cache, c->ncache + k, c->acache);
	memcpy(c->cache + c->ncache, ids, k * sizeof(*ids));
	e->off = (uint32_t)c->ncache;
	e->len = (uint32_t)k;
	e->state = sk ? 2 : 1;
	c->ncache += k;
	if (ke)
		*ke = *e;
named:
	*n = e->len;
	*skip = e->state == 2;
	return c->cache + e->off;
}

/* The names of root frame root, from the cache. */
static const uint32_t *root_names(struct pdc *c, uint32_t root, size_t *n,
				  int *java)
{
	struct rec_events *r = c->r;

	if (!c->root_len[root]) {
		size_t len;
		const char *s =
		    ember_intern_str(&r->roots, r->frames.v[root].obj, &len);
		const char *pid = memchr(s, '\0', len);
		const char *tid =
		    pid ? memchr(pid + 1, '\0', (size_t)(s + len - pid - 1))
			: NULL;
		const uint32_t *ids;
		int j;
		size_t nr =
		    cl_perf_root(c->perf, s, pid ? (size_t)(pid - s) : len,
				 pid ? atoi(pid + 1) : -1,
				 tid ? atoi(tid + 1) : -1, &ids, &j);
		EMBER_GROW(c->cache, c->ncache + nr, c->acache);
		memcpy(c->cache + c->ncache, ids, nr * sizeof(*ids));
		c->root_off[root] = (uint32_t)c->ncache;
		c->root_len[root] = (uint32_t)nr;
		c->root_java[root] = (uint8_t)j;
		c->ncache += nr;
	}
	*n = c->root_len[root];
	*java = c->root_java[root];
	return c->cache + c->root_off[root];
}

/* Whether stack i has kernel frames, whose names wait for kallsyms. */
static int has_kernel_frames(struct pdc *c, size_t i)
{
	struct rec_events *r = c->r;
	size_t n;
	const uint32_t *f = ember_stacks_frames(&r->stacks, i, &n);

	for (size_t j = n; j-- > 1;)
		if (r->frames.v[f[j]].kind == REC_FRAME_KERNEL)
			return 1;
	return 0;
}

/* Stack i as a folded stack of the sink. */
static void fold_stack(struct pdc *c, struct rec_symctx *sc, size_t i)
{
	struct rec_events *r = c->r;
	size_t n, m = 0, nr;
	const uint32_t *f = ember_stacks_frames(&r->stacks, i, &n);
	int java, skipping = 0;

	if (!n)
		return;
	root_names(c, f[0], &nr, &java);
	/* leaf first, as perf script prints them */
	for (size_t j = n; j-- > 1 && !skipping;) {
		size_t nn;
		const uint32_t *ids =
		    frame_names(c, sc, f[j], java, &nn, &skipping);
		EMBER_GROW(c->out, m + nn + nr, c->aout);
		for (size_t x = 0; x < nn; x++) /* mostly one: no memcpy */
			c->out[m + x] = ids[x];
		m += nn;
	}
	uint32_t *out = c->out;
	for (size_t a = 0, b = m ? m - 1 : 0; a < b; a++, b--) {
		uint32_t t = out[a];
		out[a] = out[b];
		out[b] = t;
	}
	if (!skipping) {
		const uint32_t *rids = root_names(c, f[0], &nr, &java);
		EMBER_GROW(c->out, m + nr, c->aout);
		out = c->out;
		memmove(out + nr, out, m * sizeof(*out));
		memcpy(out, rids, nr * sizeof(*out));
		m += nr;
	}
	double w = r->stacks.ents[i].count;
	int exact = w >= 0 && w < 9007199254740992.0;
	cl_count(c->k, ember_stacks_add(&c->k->stacks, out, m, 0, 0), w,
		 exact ? (uint64_t)w : 0, exact);
}

/* Names stack i's frames (its kernel frames too when kernel), for the
 * profile: fold_stack without the folding. */
static void name_stack(struct pdc *c, struct rec_symctx *sc, size_t i,
		       int kernel)
{
	struct rec_events *r = c->r;
	size_t n, nn;
	int java, skipping = 0;
	const uint32_t *f = ember_stacks_frames(&r->stacks, i, &n);

	if (!n)
		return;
	root_names(c, f[0], &nn, &java);
	for (size_t j = n; j-- > 1;)
		if (kernel || r->frames.v[f[j]].kind != REC_FRAME_KERNEL)
			frame_names(c, sc, f[j], java, &nn, &skipping);
}

/* Names the session's frames for the profile, once each: the kernel's
 * (kernel) or the others.  Whether another walk is needed: a frame's
 * names depend on whether its process is a java one, known from the
 * stacks' roots. */
static int name_frames(struct pdc *c, struct rec_symctx *sc, int kernel)
{
	const struct rec_frames *fr = &c->r->frames;
	size_t nn;
	int java = 0, skipping = 0;

	for (size_t i = 0; i < fr->n && !java; i++) {
		int j = 0;
		if (fr->v[i].kind == REC_FRAME_ROOT)
			root_names(c, (uint32_t)i, &nn, &j);
		java = j;
	}
	if (java)
		return 1;
	for (size_t i = 0; i < fr->n; i++)
		if (fr->v[i].kind != REC_FRAME_ROOT &&
		    (fr->v[i].kind == REC_FRAME_KERNEL) == kernel)
			frame_names(c, sc, (uint32_t)i, 0, &nn, &skipping);
	return 0;
}

/*
 * Every unique stack of the session as a folded stack of the sink (or
 * only named, when the writers read the profile alone), in
 * two passes: kernel == 0 while the kernel's symbols are being read, the
 * stacks without kernel frames, and the user frames of the others named
 * (not with --skip-after: which frames are named at all depends on the
 * kernel frames' names); kernel == 1 after, the stacks with kernel frames.
 */
static void fold(struct pdc *c, struct rec_symctx *sc, int kernel)
{
	struct rec_events *r = c->r;

	if (c->only && !name_frames(c, sc, kernel))
		return;
	if (!kernel) {
		c->kern = ember_xreallocarray(c->kern, r->stacks.n + 1, 1);
		for (size_t i = 0; i < r->stacks.n; i++)
			c->kern[i] = (uint8_t)has_kernel_frames(c, i);
	}
	for (size_t i = 0; i < r->stacks.n; i++) {
		if (c->kern[i] != kernel) {
			if (!kernel && (c->only || !c->o->nskip_after))
				name_stack(c, sc, i, 0);
			continue;
		}
		if (c->only)
			name_stack(c, sc, i, 1);
		else
			fold_stack(c, sc, i);
	}
}

/* Frame f's names for the profile, outermost first (the cache holds
 * them as perf script prints them, innermost first). */
static const uint32_t *profile_names(void *ctx, uint32_t root, uint32_t f,
				     size_t *n)
{
	struct pdc *c = ctx;
	int java, skip = 0;
	const uint32_t *ids;

	if (c->r->frames.v[f].kind == REC_FRAME_ROOT)
		return root_names(c, f, n, &java);
	root_names(c, root, n, &java);
	ids = frame_names(c, c->sc, f, java, n, &skip);
	EMBER_GROW(c->pbuf, *n, c->apbuf);
	for (size_t i = 0; i < *n; i++)
		c->pbuf[i] = ids[*n - 1 - i];
	return c->pbuf;
}

int cl_perfdata_detect(const char *p, size_t len)
{
	return rec_pd_is_perfdata(p, len);
}

static int next_piece(void *ctx, const char **p, size_t *n)
{
	return cl_input_next(ctx, p, n);
}

int cl_perfdata_read(const struct ember_collapse_options *o,
		     struct collapse_sink *k, void *perf_state,
		     struct collapse_input *in)
{
	struct pdc c;
	struct rec_events *r;
	struct rec_symctx sc;
	struct stat st;
	int rc, sc_live = 0, fd = cl_input_fd(in);

	memset(&c, 0, sizeof(c));
	c.o = o;
	c.k = k;
	c.perf = perf_state;
	r = c.r = ember_xcalloc(1, sizeof(*r));
	rec_events_init(r, &c.stats);
	r->replay = 1;
	r->idle = 1;
	r->system_wide = 1;
	c.stats.exit_status = -1;
	struct kpre *kp = &c.kp;
	rec_symtab_init(&kp->st, REC_SYMTAB_KALLSYMS);
	ember_buf_init(&kp->path, 0);
	ember_buf_init(&c.kcache, 0);
	c.cpus = o->threads == 1 ? 1 : (int)sysconf(_SC_NPROCESSORS_ONLN);
	rec_pd_init(&c.pd, on_record, &c);
	c.pd.progress = o->progress;
	c.pd.progress_ctx = o->progress_ctx;
	rc = rec_pd_read(&c.pd, fd, NULL, 0, next_piece, in);
	if (rc) {
		snprintf(k->n.error, sizeof(k->n.error), "%s",
			 c.pd.err[0] ? c.pd.err : ember_strerror(rc));
		goto out;
	}
	rec_events_read_done(r);
	double file_time = (double)time(NULL);
	if (fd >= 0 && !c.pd.pipe && !fstat(fd, &st) && S_ISREG(st.st_mode))
		file_time = (double)st.st_mtim.tv_sec +
			    (double)st.st_mtim.tv_nsec / 1e9;
	prepare(&c, file_time);
	/* a name cache entry for each frame, read and written (in huge
	 * pages: no zero page read first and faulted again when written) */
	if (__builtin_mul_overflow(2 * r->frames.n + 2, sizeof(*c.fc),
				   &c.fc_bytes))
		c.fc_bytes = SIZE_MAX;
	c.fc = ember_huge_alloc(c.fc_bytes);
	c.root_off = ember_xcalloc(r->frames.n, sizeof(*c.root_off));
	c.root_len = ember_xcalloc(r->frames.n, sizeof(*c.root_len));
	c.root_java = ember_xcalloc(r->frames.n, 1);
	c.by_name = !o->addrs && !o->inline_frames && !o->srcline;
	/* the first input (a second makes no profile: several inputs are
	 * refused) */
	c.only = o->profile_only && r->prof && !k->prof && !k->no_prof;
	ember_intern_init(&c.nkeys);
	rec_symctx_init(&sc, r, 0, NULL);
	sc_live = 1;
	sc.no_kallsyms = c.no_kallsyms_why;
	kernel_cache(&c, &c.kcache);
	sc.kallsyms_cache = c.kcache.len ? c.kcache.buf : NULL;
	fold(&c, &sc, 0);
	int kernel = 0, read = 0;
	for (size_t i = 0; i < r->frames.n && !kernel; i++)
		kernel = r->frames.v[i].kind == REC_FRAME_KERNEL;
	if (kp->started) {
		int same = kp->other == (c.no_kallsyms_why != NULL) &&
			   kp->path.len == c.kcache.len &&
			   !memcmp(kp->path.buf, c.kcache.buf, c.kcache.len);
		if (!kernel || !same)
			__atomic_store_n(&kp->stop, 1, __ATOMIC_RELAXED);
		pthread_join(kp->thread, NULL);
		kp->started = 0;
		read = !kp->stop;
	}
	if (kernel && !read) {
		/* one thread, or the thread read another kernel's */
		rec_ktext_release(&kp->text);
		ember_buf_reset(&kp->path);
		ember_buf_add(&kp->path, c.kcache.buf, c.kcache.len);
		kp->other = c.no_kallsyms_why != NULL;
		kp->stop = kp->cache_err = kp->from_cache = 0;
		kallsyms_thread(kp);
		read = 1;
	}
	if (kernel && read) {
		kernel_take(r, kp);
		c.kallsyms = &kp->st;
		c.kallsyms_err = kp->err;
		c.kallsyms_cache_err = kp->cache_err;
	}
	if (c.kallsyms) {
		sc.pre = c.kallsyms;
		sc.pre_err = c.kallsyms_err;
		sc.pre_cache_err = c.kallsyms_cache_err;
	}
	fold(&c, &sc, 1);
	if (r->prof) {
		c.sc = &sc;
		rec_prof_build(r, &sc, &k->names, profile_names, &c,
			       c.o->profile != EMBER_PROFILE_NO_LINES,
			       file_time - (double)c.last_time / 1e9);
		struct ember_prof *p = rec_prof_detach(r);
		if (k->prof || k->no_prof) { /* several inputs: none */
			ember_prof_free(k->prof);
			ember_prof_free(p);
			k->prof = NULL;
			k->no_prof = 1;
		} else {
			k->prof = p;
		}
	}
	k->n.records += c.stats.samples;
	k->n.pd_samples += c.stats.samples;
	k->n.pd_lost += c.stats.lost;
	k->n.pd_user_stacks += c.stats.user_stacks;
	k->n.pd_truncated += c.stats.truncated;
	k->n.pd_unknown += c.pd.unknown;
	k->n.pd_corrupt += (uint64_t)r->corrupt;
	k->n.perfdata = 1;
out:
	if (sc_live) {
		rec_symctx_release(&sc);
		ember_intern_release(&c.nkeys);
	}
	free(c.nk);
	ember_buf_release(&c.key);
	ember_buf_release(&c.name);
	ember_buf_release(&c.dso);
	if (kp->started) {
		__atomic_store_n(&kp->stop, 1, __ATOMIC_RELAXED);
		pthread_join(kp->thread, NULL);
	}
	if (!c.kallsyms) /* else the symbolizer had it */
		rec_symtab_release(&kp->st);
	ember_buf_release(&kp->path);
	rec_ktext_release(&kp->text);
	ember_buf_release(&c.kcache);
	rec_pd_release(&c.pd);
	rec_events_release(r);
	free(r);
	free(c.want);
	free(c.pbuf);
	free(c.cache);
	ember_huge_free(c.fc, c.fc_bytes);
	free(c.root_off);
	free(c.root_len);
	free(c.root_java);
	free(c.kern);
	free(c.out);
	return rc;
}
