/*
 * Instruments' Time Profiler exported as XML (`xctrace export --xpath
 * '/trace-toc/run/data/table[@schema="time-profile"]'`), as
 * inferno-collapse-xctrace reads it: in <trace-query-result>, each
 * <node>'s <row> with a <backtrace> (or a backtrace ref) is a sample;
 * a backtrace lists its <frame>s (or frame refs) leaf first, each named
 * by its name attribute, entities decoded and Rust legacy-mangled names
 * demangled.  The first <trace-query-result> ends the input.
 *
 * The tags are read as they come (a tag cut by the end of a piece is
 * kept for the next); frames and backtraces are kept by id (as dense
 * numbers through an intern table of the ids' bytes) and the samples
 * counted by backtrace; the stacks are made at the end.
 */
#include <stdlib.h>

#include "collapse.h"

enum { T_NONE, T_RESULT, T_NODE, T_ROW, T_BACKTRACE, T_FRAME };
#define MAX_TAGS 64

struct xc_state {
	struct collapse_sink *k;
	int done;
	int tags[MAX_TAGS]; /* the interesting tags open, innermost last */
	int ntags;
	struct ember_buf carry; /* a tag cut by the end of a piece */
	/* frames: id -> name */
	struct ember_intern frame_ids, names;
	uint32_t *frame_name;
	size_t aframe;
	/* backtraces: id -> frames (leaf first), samples */
	struct ember_intern bt_ids;
	size_t *bt_off, *bt_len;
	uint64_t *bt_count;
	size_t abt;
	uint32_t *bt_frames; /* frame indices of every backtrace */
	size_t nbt_frames, abt_frames;
	long cur_bt;	   /* the backtrace open (-1: none) */
	long row_bt;	   /* the row's backtrace (-1: none) */
	uint64_t bad_line; /* the line count at the last bad element */
	struct ember_buf tmp, tmp2;
	struct cl_frames v;
};

/* ---- names ---- */

/* quick-xml's unescape: &lt; &gt; &amp; &apos; &quot; &#N; &#xN;; 0, or
 * -1 for another entity. */
static int unescape(const char *s, size_t n, struct ember_buf *out)
{
	ember_buf_reset(out);
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '&') {
			ember_buf_addch(out, s[i]);
			continue;
		}
		const char *semi = memchr(s + i, ';', n - i);
		if (!semi)
			return -1;
		const char *e = s + i + 1;
		size_t m = (size_t)(semi - e);
		static const struct {
			const char *name, *text;
		} ents[] = {{"lt", "<"},
			    {"gt", ">"},
			    {"amp", "&"},
			    {"apos", "'"},
			    {"quot", "\""}};
		size_t k;
		for (k = 0; k < ARRAY_SIZE(ents); k++)
			if (strlen(ents[k].name) == m &&
			    !memcmp(ents[k].name, e, m))
				break;
		if (k < ARRAY_SIZE(ents)) {
			ember_buf_adds(out, ents[k].text);
		} else if (m >= 2 && e[0] == '#') {
			unsigned long c = 0;
			int hex = e[1] == 'x';
			size_t j = hex ? 2 : 1;
			if (j == m)
				return -1;
			for (; j < m; j++) {
				int d = cl_digit((unsigned char)e[j])
					    ? e[j] - '0'
					: hex && e[j] >= 'a' && e[j] <= 'f'
					    ? e[j] - 'a' + 10
					: hex && e[j] >= 'A' && e[j] <= 'F'
					    ? e[j] - 'A' + 10
					    : -1;
				if (d < 0 || c > 0x10ffff)
					return -1;
				c = c * (hex ? 16 : 10) + (unsigned long)d;
			}
			if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) || !c)
				return -1;
			char u[4];
			size_t un;
			if (c < 0x80)
				u[0] = (char)c, un = 1;
			else if (c < 0x800)
				u[0] = (char)(0xc0 | c >> 6),
				u[1] = (char)(0x80 | (c & 0x3f)), un = 2;
			else if (c < 0x10000)
				u[0] = (char)(0xe0 | c >> 12),
				u[1] = (char)(0x80 | ((c >> 6) & 0x3f)),
				u[2] = (char)(0x80 | (c & 0x3f)), un = 3;
			else
				u[0] = (char)(0xf0 | c >> 18),
				u[1] = (char)(0x80 | ((c >> 12) & 0x3f)),
				u[2] = (char)(0x80 | ((c >> 6) & 0x3f)),
				u[3] = (char)(0x80 | (c & 0x3f)), un = 4;
			ember_buf_add(out, u, un);
		} else {
			return -1;
		}
		i = (size_t)(semi - s);
	}
	return 0;
}

static int is_hex(char c)
{
	return cl_digit((unsigned char)c) || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* inferno's fix_partially_demangled_rust_symbol():
 * "a..b$LT$T$GT$::f::h0123456789abcdef" is "a::b<T>::f". */
static void fix_rust(const char *s, size_t n, struct ember_buf *out)
{
	static const struct {
		const char *m, *d;
	} tab[] = {
	    {"$SP$", "@"},  {"$BP$", "*"},  {"$RF$", "&"},  {"$LT$", "<"},
	    {"$GT$", ">"},  {"$LP$", "("},  {"$RP$", ")"},  {"$C$", ","},
	    {"$u7e$", "~"}, {"$u20$", " "}, {"$u27$", "'"}, {"$u3d$", "="},
	    {"$u5b$", "["}, {"$u5d$", "]"}, {"$u7b$", "{"}, {"$u7d$", "}"},
	    {"$u3b$", ";"}, {"$u2b$", "+"}, {"$u21$", "!"}, {"$u22$", "\""},
	};
	size_t i;

	ember_buf_reset(out);
	if (n < 17 || s[n - 17] != 'h') {
		ember_buf_add(out, s, n);
		return;
	}
	for (i = n - 16; i < n && is_hex(s[i]); i++)
		;
	if (i < n) {
		ember_buf_add(out, s, n);
		return;
	}
	n -= 17;
	if (n >= 2 && s[n - 2] == ':' && s[n - 1] == ':')
		n -= 2;
	if (n >= 2 && s[0] == '_' && s[1] == '$')
		s++, n--;
	while (n) {
		if (s[0] == '.') {
			if (n > 1 && s[1] == '.') {
				ember_buf_add(out, "::", 2);
				s += 2, n -= 2;
			} else {
				ember_buf_addch(out, '.');
				s++, n--;
			}
		} else if (s[0] == '$') {
			size_t k;
			for (k = 0; k < ARRAY_SIZE(tab); k++) {
				size_t m = strlen(tab[k].m);
				if (n >= m && !memcmp(s, tab[k].m, m)) {
					ember_buf_adds(out, tab[k].d);
					s += m, n -= m;
					break;
				}
			}
			if (k == ARRAY_SIZE(tab)) {
				ember_buf_add(out, s, n);
				break;
			}
		} else {
			size_t j = 0;
			while (j < n && s[j] != '$' && s[j] != '.')
				j++;
			ember_buf_add(out, s, j);
			s += j, n -= j;
		}
	}
}

/* ---- ids ---- */

/* Rust's u64 parse of an attribute: digits, an optional '+' first */
static int parse_id(const char *s, size_t n, uint64_t *v)
{
	if (n && s[0] == '+')
		s++, n--;
	if (!n)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!cl_digit((unsigned char)s[i]))
			return -1;
	return ember_parse_u64(s, n, v) ? 0 : -1;
}

static uint32_t dense(struct ember_intern *t, uint64_t id, int *fresh)
{
	size_t before = ember_intern_count(t);
	uint32_t d = ember_intern(t, (const char *)&id, sizeof(id));

	*fresh = ember_intern_count(t) > before;
	return d;
}

static uint32_t find_dense(const struct ember_intern *t, uint64_t id)
{
	return ember_intern_find(t, (const char *)&id, sizeof(id));
}

/* ---- tags ---- */

struct attrs {
	const char *s;
	size_t n;
};

/* The value of attribute key in a tag's attribute text, raw. */
static int attr(const struct attrs *a, const char *key, const char **v,
		size_t *vn)
{
	size_t kn = strlen(key), i = 0;
	const char *s = a->s;
	size_t n = a->n;

	while (i < n) {
		while (i < n && cl_space((unsigned char)s[i]))
			i++;
		size_t k = i;
		while (i < n && s[i] != '=' && !cl_space((unsigned char)s[i]))
			i++;
		size_t ke = i;
		while (i < n && cl_space((unsigned char)s[i]))
			i++;
		if (i >= n || s[i] != '=')
			return 0;
		i++;
		while (i < n && cl_space((unsigned char)s[i]))
			i++;
		if (i >= n || (s[i] != '"' && s[i] != '\''))
			return 0;
		const char *q = memchr(s + i + 1, s[i], n - i - 1);
		if (!q)
			return 0;
		if (ke - k == kn && !memcmp(s + k, key, kn)) {
			*v = s + i + 1;
			*vn = (size_t)(q - (s + i + 1));
			return 1;
		}
		i = (size_t)(q - s) + 1;
	}
	return 0;
}

static int attr_id(const struct attrs *a, const char *key, uint64_t *id)
{
	const char *v;
	size_t vn;

	return attr(a, key, &v, &vn) && !parse_id(v, vn, id);
}

/* An element skipped: reported as a bad line (once a line: the piece's
 * last line stands for where it is). */
static void bad(struct xc_state *st, const char *what)
{
	if (st->k->n.lines == st->bad_line)
		return;
	st->bad_line = st->k->n.lines;
	cl_bad(st->k, what, strlen(what));
}

/* A <frame> in the open backtrace: by ref, or a new id and name. */
static int frame(struct xc_state *st, const struct attrs *a, int empty)
{
	uint64_t id;
	uint32_t f;
	int fresh;
	const char *v;
	size_t vn;

	if (empty && attr_id(a, "ref", &id)) {
		f = find_dense(&st->frame_ids, id);
		if (f == UINT32_MAX) {
			bad(st, "frame ref to no frame");
			return -1;
		}
	} else if (attr_id(a, "id", &id) && attr(a, "name", &v, &vn)) {
		if (unescape(v, vn, &st->tmp)) {
			bad(st, "frame name with an unknown entity");
			return -1;
		}
		f = dense(&st->frame_ids, id, &fresh);
		if (!fresh) {
			bad(st, "frame id repeated");
			return -1;
		}
		if (f >= st->aframe) {
			size_t o = st->aframe;
			EMBER_GROW(st->frame_name, (size_t)f + 1, st->aframe);
			memset(st->frame_name + o, 0,
			       (st->aframe - o) * sizeof(*st->frame_name));
		}
		st->frame_name[f] =
		    ember_intern(&st->names, st->tmp.buf, st->tmp.len);
	} else {
		bad(st, "frame without ref, or id and name");
		return -1;
	}
	if (st->cur_bt >= 0) {
		EMBER_GROW(st->bt_frames, st->nbt_frames + 1, st->abt_frames);
		st->bt_frames[st->nbt_frames++] = f;
		st->bt_len[st->cur_bt]++;
	}
	return 0;
}

/* A <backtrace> in the open row: by ref (empty), or a new id. */
static long backtrace(struct xc_state *st, const struct attrs *a, int empty)
{
	uint64_t id;
	uint32_t b;
	int fresh;

	if (empty && attr_id(a, "ref", &id)) {
		b = find_dense(&st->bt_ids, id);
		if (b == UINT32_MAX) {
			bad(st, "backtrace ref to no backtrace");
			return -1;
		}
		return b;
	}
	if (!attr_id(a, "id", &id)) {
		bad(st, "backtrace without ref or id");
		return -1;
	}
	b = dense(&st->bt_ids, id, &fresh);
	if (!fresh) {
		bad(st, "backtrace id repeated");
		return -1;
	}
	if (b >= st->abt) {
		size_t o = st->abt, na = o ? o * 2 : 64;
		while (na <= b)
			na *= 2;
		st->bt_off =
		    ember_xreallocarray(st->bt_off, na, sizeof(size_t));
		st->bt_len =
		    ember_xreallocarray(st->bt_len, na, sizeof(size_t));
		st->bt_count =
		    ember_xreallocarray(st->bt_count, na, sizeof(uint64_t));
		for (size_t i = o; i < na; i++)
			st->bt_off[i] = st->bt_len[i] = 0, st->bt_count[i] = 0;
		st->abt = na;
	}
	st->bt_off[b] = st->nbt_frames;
	st->bt_len[b] = 0;
	return b;
}

static int tag_kind(const char *name, size_t n)
{
	static const char *const names[] = {
	    "", "trace-query-result", "node", "row", "backtrace", "frame"};
	for (int i = 1; i < 6; i++)
		if (strlen(names[i]) == n && !memcmp(names[i], name, n))
			return i;
	return T_NONE;
}

static void start(struct xc_state *st, int kind, const struct attrs *a,
		  int empty)
{
	int top = st->ntags ? st->tags[st->ntags - 1] : T_NONE;
	int push = T_NONE;

	if (empty) {
		if (top == T_ROW && kind == T_BACKTRACE) {
			long b = backtrace(st, a, 1);
			if (b >= 0)
				st->row_bt = b;
		} else if (top == T_BACKTRACE && kind == T_FRAME) {
			frame(st, a, 1);
		}
		return;
	}
	if (top == T_NONE && !st->ntags && kind == T_RESULT)
		push = T_RESULT;
	else if (top == T_RESULT && kind == T_NODE)
		push = T_NODE;
	else if (top == T_NODE && kind == T_ROW) {
		push = T_ROW;
		st->row_bt = -1;
	} else if (top == T_ROW && kind == T_BACKTRACE) {
		st->cur_bt = backtrace(st, a, 0);
		push = T_BACKTRACE;
	} else if (top == T_BACKTRACE && kind == T_FRAME) {
		frame(st, a, 0);
		push = T_FRAME;
	}
	if (push && st->ntags < MAX_TAGS)
		st->tags[st->ntags++] = push;
}

static void end_tag(struct xc_state *st, int kind)
{
	if (!kind)
		return;
	if (!st->ntags || st->tags[st->ntags - 1] != kind) {
		bad(st, "unpaired tag");
		return;
	}
	st->ntags--;
	switch (kind) {
	case T_RESULT:
		st->done = 1;
		break;
	case T_ROW:
		if (st->row_bt >= 0)
			st->bt_count[st->row_bt]++;
		st->row_bt = -1;
		break;
	case T_BACKTRACE:
		st->row_bt = st->cur_bt;
		st->cur_bt = -1;
		break;
	}
}

/* The markup from s: how far it got (the rest is a cut tag). */
static size_t markup(struct xc_state *st, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && !st->done) {
		const char *lt = memchr(s + i, '<', n - i);
		if (!lt)
			return n;
		i = (size_t)(lt - s);
		const char *t = s + i, *e = s + n, *close;
		if (e - t >= 4 && !memcmp(t, "<!--", 4)) {
			close = memmem(t + 4, (size_t)(e - t - 4), "-->", 3);
			if (!close)
				return i;
			i = (size_t)(close + 3 - s);
			continue;
		}
		if (e - t >= 9 && !memcmp(t, "<![CDATA[", 9)) {
			close = memmem(t + 9, (size_t)(e - t - 9), "]]>", 3);
			if (!close)
				return i;
			i = (size_t)(close + 3 - s);
			continue;
		}
		/* the tag's end: the first '>' outside quotes */
		const char *p = t + 1;
		char q = 0;
		for (; p < e; p++) {
			if (q) {
				if (*p == q)
					q = 0;
			} else if (*p == '"' || *p == '\'') {
				q = *p;
			} else if (*p == '>') {
				break;
			}
		}
		if (p == e)
			return i; /* cut: the next piece completes it */
		i = (size_t)(p + 1 - s);
		if (t[1] == '?' || t[1] == '!')
			continue; /* declarations, processing instructions */
		int closing = t[1] == '/';
		const char *nm = t + 1 + closing, *ne = nm;
		while (ne < p && !cl_space((unsigned char)*ne) && *ne != '/' &&
		       *ne != '>')
			ne++;
		int kind = tag_kind(nm, (size_t)(ne - nm));
		if (closing) {
			end_tag(st, kind);
			continue;
		}
		int empty = p[-1] == '/';
		struct attrs a = {ne, (size_t)(p - empty - ne)};
		if (kind)
			start(st, kind, &a, empty);
	}
	return n;
}

static void xc_parse(void *arg, const char *p, size_t len)
{
	struct xc_state *st = arg;

	for (const char *nl = p;
	     (nl = memchr(nl, '\n', (size_t)(p + len - nl))); nl++)
		st->k->n.lines++;
	if (len && p[len - 1] != '\n')
		st->k->n.lines++;
	if (st->done)
		return;
	if (st->carry.len) {
		ember_buf_add(&st->carry, p, len);
		size_t used = markup(st, st->carry.buf, st->carry.len);
		size_t rest = st->carry.len - used;
		memmove(st->carry.buf, st->carry.buf + used, rest);
		ember_buf_setlen(&st->carry, rest);
		return;
	}
	size_t used = markup(st, p, len);
	ember_buf_add(&st->carry, p + used, len - used);
}

/* The samples' stacks: each backtrace's frames root first. */
static void xc_end(void *arg)
{
	struct xc_state *st = arg;
	size_t nb = ember_intern_count(&st->bt_ids);

	if (!st->done && (st->ntags || st->carry.len))
		st->k->n.truncated++; /* inferno: "Unexpected EOF" */
	for (size_t b = 0; b < nb && st->done; b++) {
		if (!st->bt_count[b])
			continue;
		ember_buf_reset(&st->tmp2);
		for (size_t i = st->bt_len[b]; i-- > 0;) {
			size_t nn;
			uint32_t f = st->bt_frames[st->bt_off[b] + i];
			const char *name = ember_intern_str(
			    &st->names, st->frame_name[f], &nn);
			fix_rust(name, nn, &st->tmp);
			ember_buf_add(&st->tmp2, st->tmp.buf, st->tmp.len);
			if (i)
				ember_buf_addch(&st->tmp2, ';');
		}
		st->v.n = 0;
		cl_frames_push(st->k, &st->v, st->tmp2.buf, st->tmp2.len);
		cl_add_u64(st->k, st->v.f, st->v.n, st->bt_count[b]);
	}
	/* the next input starts afresh */
	ember_intern_release(&st->frame_ids);
	ember_intern_release(&st->names);
	ember_intern_release(&st->bt_ids);
	ember_intern_init(&st->frame_ids);
	ember_intern_init(&st->names);
	ember_intern_init(&st->bt_ids);
	st->nbt_frames = 0;
	if (st->abt)
		memset(st->bt_count, 0, st->abt * sizeof(*st->bt_count));
	st->ntags = 0;
	st->done = 0;
	st->cur_bt = st->row_bt = -1;
	ember_buf_reset(&st->carry);
}

static void *xc_new(const struct ember_collapse_options *o,
		    struct collapse_sink *k)
{
	struct xc_state *st = ember_xcalloc(1, sizeof(*st));

	(void)o;
	st->k = k;
	st->cur_bt = st->row_bt = -1;
	ember_buf_init(&st->carry, 0);
	ember_buf_init(&st->tmp, 0);
	ember_buf_init(&st->tmp2, 0);
	ember_intern_init(&st->frame_ids);
	ember_intern_init(&st->names);
	ember_intern_init(&st->bt_ids);
	return st;
}

static void xc_free(void *arg)
{
	struct xc_state *st = arg;

	if (!st)
		return;
	ember_buf_release(&st->carry);
	ember_buf_release(&st->tmp);
	ember_buf_release(&st->tmp2);
	ember_intern_release(&st->frame_ids);
	ember_intern_release(&st->names);
	ember_intern_release(&st->bt_ids);
	free(st->frame_name);
	free(st->bt_off);
	free(st->bt_len);
	free(st->bt_count);
	free(st->bt_frames);
	free(st->v.f);
	free(st);
}

/* An XML declaration and <trace-query-result. */
static int xc_detect(const char *p, size_t len)
{
	return memmem(p, len, "<?xml version=\"1.0\"", 19) &&
	       memmem(p, len, "<trace-query-result", 19);
}

const struct ember_collapser ember_collapser_xctrace = {
    .name = "xctrace",
    .summary = "Instruments time profiles, xctrace export XML "
	       "(inferno-collapse-xctrace)",
    .detect = xc_detect,
    .state_new = xc_new,
    .state_free = xc_free,
    .parse = xc_parse,
    .end = xc_end,
};
