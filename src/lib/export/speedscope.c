/*
 * speedscope out: its JSON file format
 * (https://www.speedscope.app/file-format-schema.json).  Frames are
 * shared, numbered in order of first use; each profile is "sampled", one
 * sample per distinct stack (root first) with its weight, the stacks in
 * the byte order of their folded lines.  When the root frames are threads
 * or processes and there are several, each gets its own profile, named
 * after it, and the root frame is left out of its samples.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"

/* A JSON string: UTF-8 kept, bytes that are not UTF-8 become U+FFFD. */
static void add_json_string(struct ember_buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	ember_buf_addch(b, '"');
	while (p < end) {
		unsigned char c = *p;
		if (c == '"' || c == '\\') {
			ember_buf_addch(b, '\\');
			ember_buf_addch(b, (char)c);
			p++;
		} else if (c < 0x20 || c == 0x7f) {
			ember_buf_addf(b, "\\u%04x", c);
			p++;
		} else if (c < 0x80) {
			ember_buf_addch(b, (char)c);
			p++;
		} else {
			size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
			int ok =
			    c >= 0xc2 && c <= 0xf4 && (size_t)(end - p) >= len;
			for (size_t i = 1; ok && i < len; i++)
				ok = (p[i] & 0xc0) == 0x80;
			/* overlong, surrogates, beyond U+10FFFF */
			if (ok && len == 3)
				ok = !(c == 0xe0 && p[1] < 0xa0) &&
				     !(c == 0xed && p[1] >= 0xa0);
			if (ok && len == 4)
				ok = !(c == 0xf0 && p[1] < 0x90) &&
				     !(c == 0xf4 && p[1] >= 0x90);
			if (ok) {
				ember_buf_add(b, p, len);
				p += len;
			} else {
				ember_buf_adds(b, "\\ufffd");
				p++;
			}
		}
	}
	ember_buf_addch(b, '"');
}

struct order_ctx {
	const struct ember_stacks *s;
	const struct ember_intern *t;
};

/* The byte order of the stacks' folded lines. */
static int cmp_stacks(const void *a, const void *b, void *arg)
{
	const struct order_ctx *x = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	const struct ember_stack_ent *sa = &x->s->ents[ia],
				     *sb = &x->s->ents[ib];
	size_t na = sa->n, nb = sb->n;
	const uint32_t *fa = x->s->ids + sa->off, *fb = x->s->ids + sb->off;

	for (size_t i = 0; i < na && i < nb; i++) {
		if (fa[i] == fb[i])
			continue;
		const struct ember_intern_ent *ea = &x->t->ents[fa[i]];
		const struct ember_intern_ent *eb = &x->t->ents[fb[i]];
		size_t la = ea->len, lb = eb->len;
		int c = memcmp(ea->s, eb->s, la < lb ? la : lb);
		if (c)
			return c;
		return (la > lb) - (la < lb);
	}
	return (na > nb) - (na < nb);
}

static const char *unit_of(const char *u)
{
	static const char *const units[] = {"nanoseconds", "microseconds",
					    "milliseconds", "seconds", "bytes"};

	for (size_t i = 0; u && i < ARRAY_SIZE(units); i++)
		if (!strcmp(u, units[i]))
			return units[i];
	return "none";
}

static void add_weight(struct ember_buf *b, const struct ember_profile *p,
		       size_t e)
{
	uint64_t x = p->exact && e < p->nexact ? p->exact[e] : UINT64_MAX;
	double d = p->stacks->ents[e].count;

	if (x != UINT64_MAX)
		ember_buf_addu(b, x);
	else if (isfinite(d))
		ember_buf_add_pyfloat(b, d);
	else
		ember_buf_addch(b, '0');
}

int ember_speedscope_write(const struct ember_profile *p, ember_write_fn w,
			   void *ctx)
{
	const struct ember_stacks *s = p->stacks;
	size_t n = s->n, nn = ember_intern_count(p->names);
	uint32_t *order = ember_xreallocarray(NULL, n ? n : 1, sizeof(*order));
	uint32_t *index =
	    ember_xreallocarray(NULL, nn ? nn : 1, sizeof(*index));
	uint32_t *used = ember_xreallocarray(NULL, nn ? nn : 1, sizeof(*used));
	struct ember_buf b = EMBER_BUF_INIT;
	struct order_ctx x = {s, p->names};
	size_t nused = 0;
	int err = 0;

	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), cmp_stacks, &x);
	/* one profile per root frame when there are several threads */
	int split = 0;
	if (p->thread_roots) {
		for (size_t i = 1; i < n && !split; i++) {
			size_t na, nb;
			const uint32_t *fa =
			    ember_stacks_frames(s, order[0], &na);
			const uint32_t *fb =
			    ember_stacks_frames(s, order[i], &nb);
			split = na && nb && fa[0] != fb[0];
		}
	}
	for (size_t i = 0; i < nn; i++)
		index[i] = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		size_t fn;
		const uint32_t *f = ember_stacks_frames(s, order[i], &fn);
		for (size_t k = split ? 1 : 0; k < fn; k++)
			if (index[f[k]] == UINT32_MAX) {
				index[f[k]] = (uint32_t)nused;
				used[nused++] = f[k];
			}
	}
	ember_buf_adds(
	    &b,
	    "{\"$schema\":\"https://www.speedscope.app/"
	    "file-format-schema.json\",\n\"exporter\":\"ember " EMBER_VERSION
	    "\",\n\"name\":");
	const char *name = p->name ? p->name : "ember";
	add_json_string(&b, name, strlen(name));
	ember_buf_adds(&b, ",\n\"activeProfileIndex\":0,\n"
			   "\"shared\":{\"frames\":[");
	for (size_t i = 0; i < nused; i++) {
		size_t len;
		const char *fname = ember_intern_str(p->names, used[i], &len);
		ember_buf_adds(&b, i ? ",\n{\"name\":" : "\n{\"name\":");
		add_json_string(&b, fname, len);
		ember_buf_addch(&b, '}');
	}
	ember_buf_adds(&b, "]},\n\"profiles\":[");
	const char *unit = unit_of(p->sample_unit);
	for (size_t i = 0; i < n && !err;) {
		/* the stacks of one profile: all, or one root's */
		size_t j = i + 1, fn;
		const uint32_t *f = ember_stacks_frames(s, order[i], &fn);
		while (j < n && split) {
			size_t gn;
			const uint32_t *g =
			    ember_stacks_frames(s, order[j], &gn);
			if (!gn || !fn || g[0] != f[0])
				break;
			j++;
		}
		if (!split)
			j = n;
		ember_buf_adds(&b, i ? ",\n{" : "\n{");
		ember_buf_adds(&b, "\"type\":\"sampled\",\"name\":");
		if (split && fn) {
			size_t len;
			const char *r = ember_intern_str(p->names, f[0], &len);
			add_json_string(&b, r, len);
		} else {
			add_json_string(&b, name, strlen(name));
		}
		ember_buf_addf(&b, ",\"unit\":\"%s\",\"startValue\":0,", unit);
		double total = 0;
		for (size_t k = i; k < j; k++)
			total += s->ents[order[k]].count;
		ember_buf_adds(&b, "\"endValue\":");
		if (p->exact) {
			uint64_t sum = 0;
			int exact = 1;
			for (size_t k = i; k < j && exact; k++) {
				uint64_t v = order[k] < p->nexact
						 ? p->exact[order[k]]
						 : UINT64_MAX;
				exact = v != UINT64_MAX &&
					!__builtin_add_overflow(sum, v, &sum);
			}
			if (exact)
				ember_buf_addu(&b, sum);
			else
				ember_buf_add_pyfloat(&b, total);
		} else {
			ember_buf_add_pyfloat(&b, total);
		}
		ember_buf_adds(&b, ",\n\"samples\":[");
		for (size_t k = i; k < j; k++) {
			size_t gn;
			const uint32_t *g =
			    ember_stacks_frames(s, order[k], &gn);
			ember_buf_adds(&b, k > i ? ",[" : "[");
			for (size_t q = split ? 1 : 0; q < gn; q++)
				ember_buf_addf(&b, "%s%u",
					       q > (split ? 1u : 0u) ? "," : "",
					       index[g[q]]);
			ember_buf_addch(&b, ']');
			if (b.len > (1 << 16)) {
				err = w(ctx, b.buf, b.len);
				ember_buf_reset(&b);
			}
		}
		ember_buf_adds(&b, "],\n\"weights\":[");
		for (size_t k = i; k < j && !err; k++) {
			if (k > i)
				ember_buf_addch(&b, ',');
			add_weight(&b, p, order[k]);
			if (b.len > (1 << 16)) {
				err = w(ctx, b.buf, b.len);
				ember_buf_reset(&b);
			}
		}
		ember_buf_adds(&b, "]}");
		i = j;
	}
	ember_buf_adds(&b, "]}\n");
	if (!err)
		err = w(ctx, b.buf, b.len);
	ember_buf_release(&b);
	free(order);
	free(index);
	free(used);
	return err;
}
