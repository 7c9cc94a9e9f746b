/*
 * pprof: profile.proto (Go, Pyroscope, Parca, Cloud Profiler, Datadog),
 * gzip-compressed (the reader inflates it) or not.
 *
 * The whole message is kept (protobuf has no record boundaries) and read
 * in two passes: the first finds the tables (strings, functions,
 * locations, mappings, sample types) and the samples; the second folds
 * each sample, its locations leaf first, each location's lines innermost
 * (inlined) first, into a root-first stack of function names.  One value
 * per sample is counted: --sample-type's, else the profile's default
 * type, else its last (as pprof does).  --label KEY puts each sample's
 * value of label KEY at the root.
 *
 * With options.profile the sample-level profile is filled as well: every
 * sample type (the one counted last, pprof's default), the period,
 * time_nanos and duration_nanos; a frame per Line of a Location, with
 * its address, mapping, line and inline depth (the Location's first
 * Line is the innermost); functions with their file and start line;
 * threads from the labels pid, tid and thread (and "thread id", "thread
 * name" as other profilers name them); a sample's time from a numeric
 * label timestamp_ns (perf_to_profile's, the clock of perf's samples;
 * ember writes it), timestamp or end_timestamp_ns.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "collapse.h"
#include "profile.h"
#include "proto.h"

#define MAX_PROFILE (2ull << 30) /* protobuf's own limit on a message */

/* id -> index, open addressing */
struct idmap {
	uint64_t *ids;
	uint32_t *idx; /* index + 1, 0: empty */
	size_t mask;
};

static void idmap_put(struct idmap *m, uint64_t id, uint32_t index, size_t n)
{
	if (!m->ids || n * 2 > m->mask) {
		size_t mask = m->mask ? m->mask * 2 + 1 : 1023;
		uint64_t *ids = ember_xcalloc(mask + 1, sizeof(*ids));
		uint32_t *idx = ember_xcalloc(mask + 1, sizeof(*idx));
		for (size_t i = 0; m->ids && i <= m->mask; i++) {
			if (!m->idx[i])
				continue;
			size_t h = ember_hash(&m->ids[i], 8) & mask;
			while (idx[h])
				h = (h + 1) & mask;
			ids[h] = m->ids[i];
			idx[h] = m->idx[i];
		}
		free(m->ids);
		free(m->idx);
		m->ids = ids;
		m->idx = idx;
		m->mask = mask;
	}
	size_t h = ember_hash(&id, 8) & m->mask;
	while (m->idx[h] && m->ids[h] != id)
		h = (h + 1) & m->mask;
	m->ids[h] = id;
	m->idx[h] = index + 1;
}

/* The index of id, or -1. */
static int64_t idmap_get(const struct idmap *m, uint64_t id)
{
	if (!m->ids)
		return -1;
	size_t h = ember_hash(&id, 8) & m->mask;
	for (; m->idx[h]; h = (h + 1) & m->mask)
		if (m->ids[h] == id)
			return (int64_t)m->idx[h] - 1;
	return -1;
}

static void idmap_free(struct idmap *m)
{
	free(m->ids);
	free(m->idx);
}

struct span {
	const unsigned char *p;
	size_t n;
};

struct func {
	uint32_t frame; /* interned name */
	uint32_t pfunc; /* the profile's function */
};

struct loc {
	uint64_t address, mapping;
	uint32_t line_off, nlines; /* function ids in lines[], as written */
	uint32_t pf_off; /* the profile's frames at pframes[pf_off], as
			    many as lines; UINT32_MAX: not made yet */
};

struct pstate {
	struct collapse_sink *k;
	const struct ember_collapse_options *o;
	const unsigned char *data; /* the input, whole */
	size_t len;
	/* tables */
	struct span *strs;
	size_t nstrs, astrs;
	struct span *samples;
	size_t nsamples, asamples;
	struct span *types;
	size_t ntypes, atypes;
	struct func *funcs;
	size_t nfuncs, afuncs;
	struct loc *locs;
	size_t nlocs, alocs;
	uint64_t *lines;
	int64_t *linenos; /* each Line's line number */
	size_t nlines, alines, alinenos;
	struct idmap func_ids, loc_ids, map_ids;
	uint64_t default_type;
	struct ember_buf tmp;
	/* the sample-level profile (NULL: not wanted) */
	struct ember_prof *prof;
	uint32_t *pmaps; /* mapping index -> the profile's (or NONE) */
	size_t npmaps, apmaps;
	uint32_t *pframes;
	size_t npframes, apframes;
	size_t *col_of; /* the profile's column of each sample type */
	double *pvals;	/* a sample's values, in the profile's order */
	int timed;	/* samples with a time */
	int64_t time_nanos, duration_nanos, period;
	struct span period_type;
	int have_period_type;
};

static void *state_new(const struct ember_collapse_options *o,
		       struct collapse_sink *k)
{
	struct pstate *s = ember_xcalloc(1, sizeof(*s));

	s->k = k;
	s->o = o;
	ember_buf_init(&s->tmp, 256);
	return s;
}

static void reset(struct pstate *s)
{
	s->nstrs = s->nsamples = s->ntypes = s->nfuncs = s->nlocs = 0;
	s->nlines = 0;
	s->default_type = 0;
	idmap_free(&s->func_ids);
	idmap_free(&s->loc_ids);
	idmap_free(&s->map_ids);
	memset(&s->func_ids, 0, sizeof(s->func_ids));
	memset(&s->loc_ids, 0, sizeof(s->loc_ids));
	memset(&s->map_ids, 0, sizeof(s->map_ids));
	s->prof = NULL;
	s->npmaps = s->npframes = 0;
	s->timed = 0;
	s->time_nanos = s->duration_nanos = s->period = 0;
	s->have_period_type = 0;
	free(s->col_of);
	free(s->pvals);
	s->col_of = NULL;
	s->pvals = NULL;
}

static void state_free(void *st)
{
	struct pstate *s = st;

	reset(s);
	free(s->strs);
	free(s->samples);
	free(s->types);
	free(s->funcs);
	free(s->locs);
	free(s->lines);
	free(s->linenos);
	free(s->pmaps);
	free(s->pframes);
	ember_buf_release(&s->tmp);
	free(s);
}

static const char *wire_name(int wire)
{
	return wire == PB_VARINT ? "an integer"
	       : wire == PB_LEN	 ? "bytes"
				 : "a fixed-size number";
}

/* A field of the wrong wire type: the message is not profile.proto. */
static int bad_type(struct pstate *s, const char *msg, uint32_t field, int wire)
{
	cl_fail(s->k, "field %u of a %s is %s, not what profile.proto says",
		field, msg, wire_name(wire));
	return -1;
}

static int corrupt(struct pstate *s, const char *msg)
{
	cl_fail(s->k, "corrupt protobuf in a %s (truncated?)", msg);
	return -1;
}

/* The string at index i, or NULL. */
static const struct span *str(const struct pstate *s, uint64_t i)
{
	return i < s->nstrs ? &s->strs[i] : NULL;
}

static int read_function(struct pstate *s, struct pb m)
{
	uint64_t id = 0, name = 0, sysname = 0, file = 0, start = 0, v;
	uint32_t f;
	int wire, rc;
	struct pb sub;

	while ((rc = pb_next(&m, &f, &wire, &v, &sub)) == 1) {
		if (f >= 1 && f <= 5 && wire != PB_VARINT)
			return bad_type(s, "Function", f, wire);
		if (f == 1)
			id = v;
		else if (f == 2)
			name = v;
		else if (f == 3)
			sysname = v;
		else if (f == 4)
			file = v;
		else if (f == 5)
			start = v;
	}
	if (rc < 0)
		return corrupt(s, "Function");
	const struct span *n = str(s, name);
	if (!n || !n->n)
		n = str(s, sysname);
	if (!n)
		return cl_fail(s->k,
			       "a function's name is string %" PRIu64
			       ", past the string table's end",
			       name),
		       -1;
	/* a folded frame holds no ';' and no line break */
	ember_buf_reset(&s->tmp);
	for (size_t i = 0; i < n->n; i++) {
		char c = (char)n->p[i];
		ember_buf_addch(&s->tmp, c == ';'		  ? ':'
					 : c == '\n' || c == '\r' ? ' '
								  : c);
	}
	EMBER_GROW(s->funcs, s->nfuncs + 1, s->afuncs);
	s->funcs[s->nfuncs].frame =
	    ember_intern(&s->k->names, s->tmp.buf, s->tmp.len);
	if (s->prof) {
		const struct span *sys = str(s, sysname), *fl = str(s, file);
		struct ember_prof_func pf = {0};
		pf.name = ember_prof_str(s->prof, s->tmp.buf, s->tmp.len);
		pf.system_name =
		    sys && sys->n
			? ember_prof_str(s->prof, (const char *)sys->p, sys->n)
			: pf.name;
		pf.file =
		    fl ? ember_prof_str(s->prof, (const char *)fl->p, fl->n)
		       : 0;
		pf.start_line = start <= UINT32_MAX ? (uint32_t)start : 0;
		s->funcs[s->nfuncs].pfunc = ember_prof_func(s->prof, &pf);
	}
	idmap_put(&s->func_ids, id, (uint32_t)s->nfuncs, s->nfuncs + 1);
	s->nfuncs++;
	return 0;
}

static int read_location(struct pstate *s, struct pb m)
{
	struct loc l = {0};
	uint64_t id = 0, v;

	l.pf_off = UINT32_MAX;
	uint32_t f;
	int wire, rc;
	struct pb sub;

	l.line_off = (uint32_t)s->nlines;
	while ((rc = pb_next(&m, &f, &wire, &v, &sub)) == 1) {
		if (f == 4) {
			if (wire != PB_LEN)
				return bad_type(s, "Location", f, wire);
			uint64_t fid = 0, lno = 0, lv;
			uint32_t lf;
			int lw, lrc;
			struct pb lsub;
			while ((lrc = pb_next(&sub, &lf, &lw, &lv, &lsub)) ==
			       1) {
				if (lf <= 3 && lw != PB_VARINT)
					return bad_type(s, "Line", lf, lw);
				if (lf == 1)
					fid = lv;
				else if (lf == 2)
					lno = lv;
			}
			if (lrc < 0)
				return corrupt(s, "Line");
			EMBER_GROW(s->lines, s->nlines + 1, s->alines);
			EMBER_GROW(s->linenos, s->nlines + 1, s->alinenos);
			s->linenos[s->nlines] = (int64_t)lno;
			s->lines[s->nlines++] = fid;
			l.nlines++;
			continue;
		}
		if (f <= 5 && wire != PB_VARINT)
			return bad_type(s, "Location", f, wire);
		if (f == 1)
			id = v;
		else if (f == 2)
			l.mapping = v;
		else if (f == 3)
			l.address = v;
	}
	if (rc < 0)
		return corrupt(s, "Location");
	EMBER_GROW(s->locs, s->nlocs + 1, s->alocs);
	s->locs[s->nlocs] = l;
	idmap_put(&s->loc_ids, id, (uint32_t)s->nlocs, s->nlocs + 1);
	s->nlocs++;
	return 0;
}

static int span_is(const struct span *sp, const char *s);

/* A Mapping, for the profile: the first one is the main program (as
 * pprof takes it), one named "[kernel..." the kernel; the mapping ember
 * writes for frames in none (no file, no range) is none. */
static int read_mapping(struct pstate *s, struct pb m)
{
	uint64_t id = 0, x[11] = {0}, v;
	uint32_t f;
	int wire, rc;
	struct pb sub;

	while ((rc = pb_next(&m, &f, &wire, &v, &sub)) == 1) {
		if (f >= 1 && f <= 10 && wire != PB_VARINT)
			return bad_type(s, "Mapping", f, wire);
		if (f == 1)
			id = v;
		else if (f <= 10)
			x[f] = v;
	}
	if (rc < 0)
		return corrupt(s, "Mapping");
	const struct span *path = str(s, x[5]), *bid = str(s, x[6]);
	uint32_t pm = EMBER_PROF_NONE;
	if ((path && path->n) || x[2] || x[3]) {
		struct ember_prof_mapping pmap = {0};
		pmap.start = x[2];
		pmap.limit = x[3];
		pmap.offset = x[4];
		pmap.path = path ? ember_prof_str(
				       s->prof, (const char *)path->p, path->n)
				 : 0;
		pmap.build_id =
		    bid ? ember_prof_str(s->prof, (const char *)bid->p, bid->n)
			: 0;
		pmap.pid = -1;
		pmap.kernel =
		    path && path->n >= 7 && !memcmp(path->p, "[kernel", 7);
		pmap.is_main = !s->npmaps && !pmap.kernel;
		pmap.has_functions = x[7] != 0;
		pmap.has_lines = x[9] != 0;
		pmap.has_inline = x[10] != 0;
		pm = ember_prof_mapping(s->prof, &pmap);
	}
	EMBER_GROW(s->pmaps, s->npmaps + 1, s->apmaps);
	s->pmaps[s->npmaps] = pm;
	idmap_put(&s->map_ids, id, (uint32_t)s->npmaps, s->npmaps + 1);
	s->npmaps++;
	return 0;
}

/* The first pass: where everything is. */
static int read_tables(struct pstate *s)
{
	struct pb b = {s->data, s->data + s->len};
	struct pb sub;
	uint64_t v;
	uint32_t f;
	int wire, rc;

	/* strings first: functions name them */
	while ((rc = pb_next(&b, &f, &wire, &v, &sub)) == 1) {
		int len = f >= 1 && f <= 6;
		if ((len && wire != PB_LEN) ||
		    (f >= 7 && f <= 14 && f != 11 && f != 13 &&
		     wire != PB_VARINT) ||
		    (f == 11 && wire != PB_LEN))
			return bad_type(s, "Profile", f, wire);
		struct span sp = {sub.p, (size_t)(sub.end - sub.p)};
		if (f == 6) {
			EMBER_GROW(s->strs, s->nstrs + 1, s->astrs);
			s->strs[s->nstrs++] = sp;
		} else if (f == 2) {
			EMBER_GROW(s->samples, s->nsamples + 1, s->asamples);
			s->samples[s->nsamples++] = sp;
		} else if (f == 1) {
			EMBER_GROW(s->types, s->ntypes + 1, s->atypes);
			s->types[s->ntypes++] = sp;
		} else if (f == 14) {
			s->default_type = v;
		} else if (f == 9) {
			s->time_nanos = (int64_t)v;
		} else if (f == 10) {
			s->duration_nanos = (int64_t)v;
		} else if (f == 11) {
			s->period_type = sp;
			s->have_period_type = 1;
		} else if (f == 12) {
			s->period = (int64_t)v;
		}
	}
	if (rc < 0)
		return corrupt(s, "Profile");
	if (!s->nstrs || s->strs[0].n)
		return cl_fail(s->k, "not a pprof profile: its string table "
				     "does not start with \"\""),
		       -1;
	b.p = s->data;
	while ((rc = pb_next(&b, &f, &wire, &v, &sub)) == 1) {
		if (f == 5 && read_function(s, sub))
			return -1;
	}
	b.p = s->data;
	while (s->prof && (rc = pb_next(&b, &f, &wire, &v, &sub)) == 1) {
		if (f == 3 && read_mapping(s, sub))
			return -1;
	}
	b.p = s->data;
	while ((rc = pb_next(&b, &f, &wire, &v, &sub)) == 1) {
		if (f == 4 && read_location(s, sub))
			return -1;
	}
	return 0;
}

/* A ValueType's type and unit strings. */
static int value_type(struct pstate *s, struct span t, const struct span **type,
		      const struct span **unit)
{
	struct pb b = {t.p, t.p + t.n}, sub;
	uint64_t v, ti = 0, ui = 0;
	uint32_t f;
	int wire, rc;

	while ((rc = pb_next(&b, &f, &wire, &v, &sub)) == 1) {
		if (f <= 2 && wire != PB_VARINT)
			return bad_type(s, "ValueType", f, wire);
		if (f == 1)
			ti = v;
		else if (f == 2)
			ui = v;
	}
	*type = str(s, ti);
	*unit = str(s, ui);
	if (rc < 0 || !*type || !*unit)
		return corrupt(s, "ValueType");
	return 0;
}

static int span_is(const struct span *sp, const char *s)
{
	size_t n = strlen(s);
	return sp && sp->n == n && !memcmp(sp->p, s, n);
}

static void copy_span(char *dst, size_t size, const struct span *sp)
{
	size_t n = sp->n < size - 1 ? sp->n : size - 1;
	memcpy(dst, sp->p, n);
	dst[n] = '\0';
}

/* Which value of each sample to count. */
static int pick_type(struct pstate *s, size_t *which)
{
	const struct span *t, *u;
	size_t pick = s->ntypes ? s->ntypes - 1 : 0;
	int found = 0;

	for (size_t i = 0; i < s->ntypes; i++) {
		if (value_type(s, s->types[i], &t, &u))
			return -1;
		if (s->o->sample_type
			? span_is(t, s->o->sample_type)
			: s->default_type && t == str(s, s->default_type)) {
			pick = i;
			found = 1;
		}
	}
	if (s->o->sample_type && !found) {
		struct ember_buf b = EMBER_BUF_INIT;
		for (size_t i = 0; i < s->ntypes; i++) {
			if (value_type(s, s->types[i], &t, &u))
				break;
			ember_buf_addf(&b, "%s%.*s", i ? ", " : "", (int)t->n,
				       (const char *)t->p);
		}
		cl_fail(s->k, "no sample type '%s' in the profile (it has: %s)",
			s->o->sample_type, b.len ? b.buf : "none");
		ember_buf_release(&b);
		return -1;
	}
	if (s->ntypes) {
		if (value_type(s, s->types[pick], &t, &u))
			return -1;
		copy_span(s->k->sample_type, sizeof(s->k->sample_type), t);
		copy_span(s->k->sample_unit, sizeof(s->k->sample_unit), u);
	}
	*which = pick;
	return 0;
}

/* The profile's sample types (the one counted last: the default of what
 * reads it next), period, start and duration. */
static int start_profile(struct pstate *s, size_t which)
{
	struct ember_prof *p = s->prof;
	const struct span *t, *u;
	char ts[256], us[256];

	s->col_of = ember_xcalloc(s->ntypes + 1, sizeof(*s->col_of));
	s->pvals = ember_xcalloc(s->ntypes + 1, sizeof(*s->pvals));
	for (size_t pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < s->ntypes; i++) {
			if ((i == which) != (pass == 1))
				continue;
			if (value_type(s, s->types[i], &t, &u))
				return -1;
			copy_span(ts, sizeof(ts), t);
			copy_span(us, sizeof(us), u);
			s->col_of[i] = ember_prof_add_type(p, ts, us, 0);
		}
	if (s->have_period_type) {
		if (value_type(s, s->period_type, &t, &u))
			return -1;
		p->period_type.type =
		    ember_prof_str(p, (const char *)t->p, t->n);
		p->period_type.unit =
		    ember_prof_str(p, (const char *)u->p, u->n);
		p->period = s->period;
	}
	p->start_ns = s->time_nanos;
	if (s->duration_nanos > 0)
		p->duration_ns = (uint64_t)s->duration_nanos;
	return 0;
}

/* Reads the integers of a repeated field, packed or not. */
static int repeated(struct pb *sub, int wire, uint64_t v, uint64_t **out,
		    size_t *n, size_t *alloc)
{
	if (wire == PB_VARINT) {
		EMBER_GROW(*out, *n + 1, *alloc);
		(*out)[(*n)++] = v;
		return 0;
	}
	if (wire != PB_LEN)
		return -1;
	while (sub->p < sub->end) {
		uint64_t x;
		if (pb_varint(sub, &x))
			return -1;
		EMBER_GROW(*out, *n + 1, *alloc);
		(*out)[(*n)++] = x;
	}
	return 0;
}

struct sample_buf {
	uint64_t *locs, *vals;
	size_t nlocs, alocs, nvals, avals;
	uint32_t *frames;
	size_t aframes;
};

/* What a sample's labels say of its thread and time. */
struct labels {
	int64_t pid, tid;
	uint64_t time;
	const struct span *name;
	int has_pid, has_tid, has_time;
};

/* A string label's decimal number. */
static int span_int(const struct span *sp, int64_t *out)
{
	int64_t x = 0;

	if (!sp || !sp->n || sp->n > 18)
		return 0;
	for (size_t i = 0; i < sp->n; i++) {
		if (!cl_digit(sp->p[i]))
			return 0;
		x = x * 10 + (sp->p[i] - '0');
	}
	*out = x;
	return 1;
}

/* Nanoseconds per unit of a numeric label (0: not a time). */
static uint64_t time_scale(const struct span *u)
{
	if (!u || !u->n || span_is(u, "nanoseconds") || span_is(u, "ns"))
		return 1;
	if (span_is(u, "microseconds") || span_is(u, "us"))
		return 1000;
	if (span_is(u, "milliseconds") || span_is(u, "ms"))
		return 1000000;
	if (span_is(u, "seconds") || span_is(u, "s"))
		return 1000000000;
	return 0;
}

/* A number label's value, or a string label's digits, into *out. */
static int label_int(const struct span *sv, int is_num, int64_t num,
		     int64_t *out)
{
	if (!is_num)
		return span_int(sv, out);
	*out = num;
	return 1;
}

static void profile_label(const struct span *key, const struct span *sv,
			  int is_num, int64_t num, const struct span *unit,
			  struct labels *L)
{
	if (span_is(key, "pid")) {
		L->has_pid = label_int(sv, is_num, num, &L->pid);
	} else if (span_is(key, "tid") || span_is(key, "thread id") ||
		   span_is(key, "thread_id")) {
		L->has_tid = label_int(sv, is_num, num, &L->tid);
	} else if (span_is(key, "thread") || span_is(key, "thread name") ||
		   span_is(key, "thread_name")) {
		if (!is_num && sv && sv->n)
			L->name = sv;
		else if (is_num && !L->has_tid)
			L->has_tid = label_int(sv, is_num, num, &L->tid);
	} else if (is_num && num >= 0 &&
		   (span_is(key, "timestamp_ns") || span_is(key, "timestamp") ||
		    span_is(key, "end_timestamp_ns"))) {
		uint64_t k = span_is(key, "timestamp") ? time_scale(unit) : 1;
		if (k && (uint64_t)num <= UINT64_MAX / k) {
			L->time = (uint64_t)num * k;
			L->has_time = 1;
		}
	}
}

static int add_label_root(struct pstate *s, struct pb lab, int *have,
			  struct labels *L)
{
	uint64_t v, key = 0, sv = 0, num = 0, unit = 0;
	uint32_t f;
	int wire, rc, is_num = 0;
	struct pb sub;

	while ((rc = pb_next(&lab, &f, &wire, &v, &sub)) == 1) {
		if (f <= 4 && wire != PB_VARINT)
			return bad_type(s, "Label", f, wire);
		if (f == 1)
			key = v;
		else if (f == 2)
			sv = v;
		else if (f == 3) {
			num = v;
			is_num = 1;
		} else if (f == 4) {
			unit = v;
		}
	}
	if (rc < 0)
		return corrupt(s, "Label");
	if (L)
		/* no value at all: protobuf's default, num 0 */
		profile_label(str(s, key), sv ? str(s, sv) : NULL,
			      is_num || !sv, (int64_t)num,
			      unit ? str(s, unit) : NULL, L);
	if (!s->o->label || *have || !span_is(str(s, key), s->o->label))
		return 0;
	ember_buf_reset(&s->tmp);
	if (sv && str(s, sv))
		ember_buf_add(&s->tmp, str(s, sv)->p, str(s, sv)->n);
	else if (is_num)
		ember_buf_addf(&s->tmp, "%" PRId64, (int64_t)num);
	for (size_t i = 0; i < s->tmp.len; i++)
		if (s->tmp.buf[i] == ';' || s->tmp.buf[i] == '\n')
			s->tmp.buf[i] = ':';
	*have = 1;
	return 0;
}

/* The profile's frames of location l, one per Line in its order (the
 * innermost first), made on first use. */
static const uint32_t *loc_frames(struct pstate *s, struct loc *l)
{
	struct ember_prof *p = s->prof;

	if (l->pf_off != UINT32_MAX)
		return s->pframes + l->pf_off;
	int64_t mi = l->mapping ? idmap_get(&s->map_ids, l->mapping) : -1;
	struct ember_prof_frame fr = {0};
	fr.address = l->address;
	fr.mapping = mi >= 0 ? s->pmaps[mi] : EMBER_PROF_NONE;
	fr.kind = fr.mapping != EMBER_PROF_NONE && p->maps[fr.mapping].kernel
		      ? EMBER_PROF_KERNEL
		      : EMBER_PROF_USER;
	if (fr.address && fr.mapping != EMBER_PROF_NONE)
		p->flags |= EMBER_PROF_HAS_ADDRESSES;
	EMBER_GROW(s->pframes, s->npframes + l->nlines + 1, s->apframes);
	l->pf_off = (uint32_t)s->npframes;
	if (!l->nlines) {
		char a[24];
		int an = snprintf(a, sizeof(a), "0x%" PRIx64, l->address);
		struct ember_prof_func fn = {0};
		fn.name = fn.system_name = ember_prof_str(p, a, (size_t)an);
		fr.func = ember_prof_func(p, &fn);
		s->pframes[s->npframes++] = ember_prof_frame(p, &fr);
		return s->pframes + l->pf_off;
	}
	for (uint32_t j = 0; j < l->nlines; j++) {
		/* fold_sample found the function already */
		int64_t fi = idmap_get(&s->func_ids, s->lines[l->line_off + j]);
		int64_t lno = s->linenos[l->line_off + j];
		struct ember_prof_frame g = fr;
		size_t len;
		g.func = s->funcs[fi].pfunc;
		g.line = lno > 0 && lno <= UINT32_MAX ? (uint32_t)lno : 0;
		g.inline_depth = (uint16_t)(l->nlines - 1 - j);
		const char *nm = ember_prof_s(p, p->funcs[g.func].name, &len);
		if (len >= 8 && !memcmp(nm, "[off-cpu", 8))
			g.kind = EMBER_PROF_OFFCPU;
		if (g.line)
			p->flags |= EMBER_PROF_HAS_LINES;
		s->pframes[s->npframes++] = ember_prof_frame(p, &g);
	}
	return s->pframes + l->pf_off;
}

/* The sample just folded, into the profile: its stack (root first, as
 * folded), values, thread and time. */
static void profile_sample(struct pstate *s, struct sample_buf *sb,
			   const struct labels *L)
{
	struct ember_prof *p = s->prof;
	uint32_t st = EMBER_PROF_NONE, thread = EMBER_PROF_NONE;

	if (s->o->label) {
		size_t len;
		const char *name =
		    ember_intern_str(&s->k->names, sb->frames[0], &len);
		struct ember_prof_func fn = {0};
		struct ember_prof_frame fr = {0};
		fn.name = fn.system_name = ember_prof_str(p, name, len);
		fr.func = ember_prof_func(p, &fn);
		fr.mapping = EMBER_PROF_NONE;
		fr.kind = EMBER_PROF_SYNTHETIC;
		st = ember_prof_stack(p, st, ember_prof_frame(p, &fr));
	}
	for (size_t i = sb->nlocs; i-- > 0;) {
		struct loc *l = &s->locs[idmap_get(&s->loc_ids, sb->locs[i])];
		const uint32_t *f = loc_frames(s, l);
		for (uint32_t j = l->nlines ? l->nlines : 1; j-- > 0;)
			st = ember_prof_stack(p, st, f[j]);
	}
	if (st == EMBER_PROF_NONE)
		return; /* no frame to hold it */
	if (L->has_tid || L->name) {
		/* a thread known by its name alone: a tid of its own */
		uint32_t name =
		    L->name ? ember_prof_str(p, (const char *)L->name->p,
					     L->name->n)
			    : 0;
		int64_t tid = L->has_tid ? L->tid : -1 - (int64_t)name;
		int64_t pid = L->has_pid ? L->pid : -1;
		thread = ember_prof_thread(p, (int)pid, (int)tid);
		if (name)
			p->threads[thread].name = name;
		p->flags |= EMBER_PROF_HAS_THREADS;
	}
	for (size_t t = 0; t < s->ntypes; t++)
		s->pvals[s->col_of[t]] =
		    t < sb->nvals ? (double)(int64_t)sb->vals[t] : 0;
	size_t i = ember_prof_sample(p, L->has_time ? L->time : 0, thread, -1,
				     st, s->pvals);
	for (size_t t = 0; t < s->ntypes && t < sb->nvals; t++)
		if (sb->vals[t] > (1ull << 53) && sb->vals[t] <= INT64_MAX)
			ember_prof_set_u64(p, s->col_of[t], i, sb->vals[t]);
	if (L->has_time)
		s->timed++;
}

static int fold_sample(struct pstate *s, struct span sp, size_t which,
		       struct sample_buf *sb)
{
	struct pb b = {sp.p, sp.p + sp.n}, sub;
	uint64_t v;
	uint32_t f;
	int wire, rc, have_label = 0;
	struct labels L = {0};

	sb->nlocs = sb->nvals = 0;
	ember_buf_reset(&s->tmp);
	while ((rc = pb_next(&b, &f, &wire, &v, &sub)) == 1) {
		if (f == 1 &&
		    repeated(&sub, wire, v, &sb->locs, &sb->nlocs, &sb->alocs))
			return bad_type(s, "Sample", f, wire);
		if (f == 2 &&
		    repeated(&sub, wire, v, &sb->vals, &sb->nvals, &sb->avals))
			return bad_type(s, "Sample", f, wire);
		if (f == 3) {
			if (wire != PB_LEN)
				return bad_type(s, "Sample", f, wire);
			if ((s->o->label || s->prof) &&
			    add_label_root(s, sub, &have_label,
					   s->prof ? &L : NULL))
				return -1;
		}
	}
	if (rc < 0)
		return corrupt(s, "Sample");
	if (which >= sb->nvals) {
		cl_fail(s->k,
			"a sample has %zu value%s, the profile %zu "
			"sample type%s",
			sb->nvals, sb->nvals == 1 ? "" : "s", s->ntypes,
			s->ntypes == 1 ? "" : "s");
		return -1;
	}
	size_t n = 0;
	if (s->o->label) {
		EMBER_GROW(sb->frames, n + 1, sb->aframes);
		if (!have_label)
			ember_buf_addf(&s->tmp, "[no %s]", s->o->label);
		sb->frames[n++] =
		    ember_intern(&s->k->names, s->tmp.buf, s->tmp.len);
	}
	for (size_t i = sb->nlocs; i-- > 0;) {
		int64_t li = idmap_get(&s->loc_ids, sb->locs[i]);
		if (li < 0) {
			cl_fail(s->k,
				"a sample names location %" PRIu64
				", which the profile lacks",
				sb->locs[i]);
			return -1;
		}
		const struct loc *l = &s->locs[li];
		if (!l->nlines) {
			/* not symbolized: the address, as pprof shows it */
			char a[24];
			int an =
			    snprintf(a, sizeof(a), "0x%" PRIx64, l->address);
			EMBER_GROW(sb->frames, n + 1, sb->aframes);
			sb->frames[n++] =
			    ember_intern(&s->k->names, a, (size_t)an);
			continue;
		}
		/* the last line is the outermost (the caller) */
		for (uint32_t j = l->nlines; j-- > 0;) {
			uint64_t fid = s->lines[l->line_off + j];
			int64_t fi = idmap_get(&s->func_ids, fid);
			if (fi < 0) {
				cl_fail(s->k,
					"a location names function %" PRIu64
					", which the profile lacks",
					fid);
				return -1;
			}
			EMBER_GROW(sb->frames, n + 1, sb->aframes);
			sb->frames[n++] = s->funcs[fi].frame;
		}
	}
	int64_t val = (int64_t)sb->vals[which];
	size_t e = ember_stacks_add(&s->k->stacks, sb->frames, n, 0, 0);
	if (val >= 0)
		cl_count(s->k, e, (double)val, (uint64_t)val, 1);
	else
		cl_count(s->k, e, (double)val, 0, 0);
	s->k->n.records++;
	if (s->prof)
		profile_sample(s, sb, &L);
	return 0;
}

static void finish_profile(struct pstate *s)
{
	struct ember_prof *p = s->prof;

	/* times when samples have them; one without is at 0, protobuf's
	 * default (Go's pprof drops a numeric label of 0 as it writes) */
	if (s->timed) {
		p->flags |= EMBER_PROF_HAS_TIME;
		/* wall-clock timestamps: time zero is the profile's start */
		uint64_t first = UINT64_MAX;
		for (size_t i = 0; i < p->n; i++)
			if (p->time[i] < first)
				first = p->time[i];
		if (s->time_nanos > 0 && first >= (uint64_t)s->time_nanos)
			p->time_zero = (uint64_t)s->time_nanos;
	}
	ember_prof_finish(p);
}

static int read_pprof(void *st, struct collapse_input *in)
{
	struct pstate *s = st;
	struct sample_buf sb = {0};
	const char *p;
	size_t which;
	int rc;

	reset(s);
	if (s->k->prof) { /* several inputs: no profile */
		ember_prof_free(s->k->prof);
		s->k->prof = NULL;
		s->k->no_prof = 1;
	}
	s->prof = cl_prof(s->k);
	/* mapped when it is a plain file: a large file that is no profile
	 * costs nothing */
	if ((rc = cl_input_all(in, &p, &s->len)) < 0)
		return rc;
	s->data = (const unsigned char *)p;
	/* not protobuf from the first byte (field 0, a group, a wire type
	 * that does not exist) */
	unsigned char k = s->len ? s->data[0] : 0x0a;
	if (k >> 3 == 0 || (k & 7) == 3 || (k & 7) == 4 || (k & 7) > 5)
		cl_fail(s->k, "not a pprof profile: its first byte is no "
			      "protobuf field");
	else if (s->len > MAX_PROFILE)
		cl_fail(s->k, "the profile is larger than 2 GiB, protobuf's "
			      "limit: not a pprof profile?");
	else if (!read_tables(s) && !pick_type(s, &which) &&
		 (!s->prof || !start_profile(s, which))) {
		for (size_t i = 0; i < s->nsamples; i++)
			if (fold_sample(s, s->samples[i], which, &sb))
				break;
		s->k->n.lines += s->nsamples;
		if (s->prof)
			finish_profile(s);
	}
	free(sb.locs);
	free(sb.vals);
	free(sb.frames);
	s->data = NULL;
	s->len = 0;
	return s->k->n.error[0] ? EMBER_EFORMAT : 0;
}

/* Whether bytes are a message of profile.proto: ValueType (1, 11),
 * Sample (2), Mapping (3), Location (4) or Function (5), by its fields'
 * numbers and wire types. */
static int valid_message(uint32_t msg, struct pb m)
{
	static const unsigned char max_field[] = {0, 2, 3, 10, 5, 5};
	struct pb sub;
	uint64_t v;
	uint32_t f;
	int wire, rc;

	if (msg == 11)
		msg = 1;
	while ((rc = pb_next(&m, &f, &wire, &v, &sub)) == 1) {
		if (f > max_field[msg])
			return 0;
		int len = (msg == 2 && f == 3) || (msg == 4 && f == 4);
		int packed = msg == 2 && f <= 2;
		if (len ? wire != PB_LEN
			: wire != PB_VARINT && !(packed && wire == PB_LEN))
			return 0;
	}
	return rc == 0;
}

/* Every field of the start of a Profile has its number and wire type
 * from profile.proto, and the messages among them parse: text does not
 * (Go writes time_nanos first, pprof and ember the sample types). */
static int detect(const char *p, size_t len)
{
	struct pb b = {(const unsigned char *)p,
		       (const unsigned char *)p + len};
	struct pb sub;
	uint64_t v;
	uint32_t f;
	int wire, rc, fields = 0, messages = 0;

	while ((rc = pb_next(&b, &f, &wire, &v, &sub)) == 1) {
		if (f > 15 || (f <= 6 && wire != PB_LEN) ||
		    (f >= 7 && f <= 14 && f != 11 && f != 13 &&
		     wire != PB_VARINT) ||
		    (f == 11 && wire != PB_LEN))
			return 0;
		if (f <= 5 || f == 11) {
			if (!valid_message(f, sub))
				return 0;
			messages++;
		}
		fields++;
	}
	/* the sniffed bytes may end inside a field */
	return fields >= 2 && messages >= 1;
}

const struct ember_collapser ember_collapser_pprof = {
    .name = "pprof",
    .summary = "pprof profile.proto (Go and others), gzip-compressed or not",
    .detect = detect,
    .state_new = state_new,
    .state_free = state_free,
    .read = read_pprof,
};
