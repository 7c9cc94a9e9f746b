/*
 * The names a perf script frame line becomes, as stackcollapse-perf.pl
 * cleans them: offset and argument list removed (only at a '(' outside
 * brackets, so C++ and Rust names survive), ';' made ':', quotes dropped,
 * "[unknown]" named after the module, Java's L prefix dropped, "->" parts
 * as inlined frames, and the _[k] _[j] _[i] annotations.  Shared by
 * `ember collapse perf` and `ember record`, so both name frames alike.
 */
#include <stdlib.h>

#include "symbols/names.h"

static int has(const char *s, size_t n, const char *lit)
{
	return memmem(s, n, lit, strlen(lit)) != NULL;
}

static int starts(const char *s, size_t n, const char *lit)
{
	size_t m = strlen(lit);
	return n >= m && !memcmp(s, lit, m);
}

/* The script's s/\+0x[\da-f]+$//. */
size_t rec_strip_offset(const char *s, size_t n)
{
	size_t i = n;

	while (i && ((s[i - 1] >= '0' && s[i - 1] <= '9') ||
		     (s[i - 1] >= 'a' && s[i - 1] <= 'f')))
		i--;
	if (i < n && i >= 3 && s[i - 1] == 'x' && s[i - 2] == '0' &&
	    s[i - 3] == '+')
		return i - 3;
	return n;
}

static int has_arrow(const char *s, size_t n)
{
	for (const char *p = s, *e = s + n;
	     (p = memchr(p, '-', (size_t)(e - p))); p++)
		if (p + 1 < e && p[1] == '>')
			return 1;
	return 0;
}

/* ---- names ---- */

static int ident(unsigned char c)
{
	return folded_word(c) || c == '$';
}

/* At s[i] == 'o': the end of a C++ operator name ("operator()",
 * "operator<<", "operator->"...) starting there, else i. */
static size_t operator_end(const char *s, size_t n, size_t i)
{
	size_t j = i + 8;

	if (j > n || memcmp(s + i, "operator", 8) || (i && ident(s[i - 1])) ||
	    (j < n && ident(s[j])))
		return i;
	if (j + 1 < n && ((s[j] == '(' && s[j + 1] == ')') ||
			  (s[j] == '[' && s[j + 1] == ']')))
		return j + 2;
	while (j < n && strchr("<>=!+-*/%^&|~,", s[j]) && s[j])
		j++;
	return j;
}

/*
 * Scans s for the first '(' at nesting depth 0 (arrow 0), or the first
 * "->" at depth 0 (arrow 1), where <...>, [...], {...} and (...) nest and
 * C++ operator names and "(anonymous namespace)" don't count.  Returns
 * its index, or n.
 */
static size_t scan_top(const char *s, size_t n, int arrow)
{
	int depth = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case 'o': {
			size_t j = operator_end(s, n, i);
			if (j > i)
				i = j - 1;
			break;
		}
		case '<':
		case '[':
		case '{':
			depth++;
			break;
		case '>':
		case ']':
		case '}':
		case ')':
			if (depth)
				depth--;
			break;
		case '-':
			if (i + 1 < n && s[i + 1] == '>') {
				if (arrow && !depth)
					return i;
				i++; /* an arrow's '>' closes nothing */
			}
			break;
		case '(':
			if (starts(s + i, n - i, "(anonymous namespace)")) {
				i += 20;
				break;
			}
			if (!arrow && !depth)
				return i;
			depth++;
			break;
		}
	}
	return n;
}

/* Perl's /\.\(.*\)\./: a Go method name such as net/http.(*Client).Do,
 * which keeps its parentheses. */
static int go_name(const char *s, size_t n)
{
	const char *p = memmem(s, n, ".(", 2);

	if (!p)
		return 0;
	size_t i = (size_t)(p - s) + 2;
	return memmem(s + i, n - i, ").", 2) != NULL;
}

enum {
	M_KERNEL = 1, /* the module is the kernel's (for _[k]) */
	M_JIT = 2,    /* ... or JIT code (for _[j]) */
};

static int module_kind(const char *m, size_t n)
{
	int kind = 0;

	if (((n && m[0] == '[') ||
	     (n >= 7 && !memcmp(m + n - 7, "vmlinux", 7))) &&
	    !has(m, n, "unknown"))
		kind |= M_KERNEL;
	/* perf map files (m:/tmp/perf-\d+\.map:), and jitdump's
	 * jitted-PID-N.so (ember's addition) */
	for (const char *p = m;
	     (p = memmem(p, n - (size_t)(p - m), "/tmp/perf-", 10)); p++) {
		size_t i = (size_t)(p - m) + 10, j = i;
		while (j < n && folded_digit(m[j]))
			j++;
		if (j > i && j + 4 <= n && !memcmp(m + j, ".map", 4)) {
			kind |= M_JIT;
			break;
		}
	}
	if (n >= 3 && !memcmp(m + n - 3, ".so", 3) && has(m, n, "/jitted-"))
		kind |= M_JIT;
	return kind;
}

/* The characters that make a name need cleaning. */
static const unsigned char special_char[256] = {
    [';'] = 1,
    ['('] = 1,
    ['"'] = 1,
    ['\''] = 1,
};

/*
 * One part of a symbol (between "->"), cleaned as the script's
 * tidy_generic and tidy_java do: [unknown] named after the module, ';'
 * made ':', the argument list cut, quotes dropped, and Java's L prefix
 * dropped.  The result is s itself when nothing changes, else in tmp.
 */
void rec_clean_part(const char *s, size_t n, const struct ember_perf_frame *f,
		    int flags, struct ember_buf *tmp, const char **out,
		    size_t *outn)
{
	int special = 0;

	if (n == 9 && !memcmp(s, "[unknown]", 9)) {
		const char *m = f->dso;
		size_t mn = f->dso_len;
		ember_buf_reset(tmp);
		ember_buf_addch(tmp, '[');
		if (mn == 9 && !memcmp(m, "[unknown]", 9)) {
			ember_buf_adds(tmp, "unknown");
		} else {
			const char *sl = memrchr(m, '/', mn);
			if (sl) {
				mn -= (size_t)(sl + 1 - m);
				m = sl + 1;
			}
			ember_buf_add(tmp, m, mn);
		}
		if (flags & EMBER_PERF_ADDRS) {
			ember_buf_adds(tmp, " <");
			ember_buf_add(tmp, f->addr, f->addr_len);
			ember_buf_addch(tmp, '>');
		}
		ember_buf_addch(tmp, ']');
		s = tmp->buf;
		n = tmp->len;
		special = 1;
	}
	for (size_t i = 0; i < n && !special; i++)
		special = special_char[(unsigned char)s[i]];
	if (special) {
		if (s != tmp->buf) {
			ember_buf_reset(tmp);
			ember_buf_add(tmp, s, n);
		}
		char *b = tmp->buf;
		size_t m = tmp->len, o = 0;
		for (size_t i = 0; i < m; i++)
			if (b[i] == ';')
				b[i] = ':';
		if (memchr(b, '(', m) && !go_name(b, m))
			m = scan_top(b, m, 0);
		for (size_t i = 0; i < m; i++)
			if (b[i] != '"' && b[i] != '\'')
				b[o++] = b[i];
		ember_buf_setlen(tmp, o);
		s = tmp->buf;
		n = o;
	}
	if ((flags & EMBER_PERF_JAVA) && n && s[0] == 'L' &&
	    memchr(s, '/', n)) {
		s++;
		n--;
	}
	*out = s;
	*outn = n;
}

static int hex_digit(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

static int alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') ||
	       ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

int rec_rust_fix(const char *s, size_t n, struct ember_buf *out)
{
	static const char *const esc[][2] = {
	    {"$SP$", "@"},  {"$BP$", "*"},  {"$RF$", "&"},  {"$LT$", "<"},
	    {"$GT$", ">"},  {"$LP$", "("},  {"$RP$", ")"},  {"$C$", ","},
	    {"$u7e$", "~"}, {"$u20$", " "}, {"$u27$", "'"}, {"$u3d$", "="},
	    {"$u5b$", "["}, {"$u5d$", "]"}, {"$u7b$", "{"}, {"$u7d$", "}"},
	    {"$u3b$", ";"}, {"$u2b$", "+"}, {"$u21$", "!"}, {"$u22$", "\""},
	};

	if (n < 17 || s[n - 17] != 'h')
		return 0;
	for (size_t i = n - 16; i < n; i++)
		if (!hex_digit((unsigned char)s[i]))
			return 0;
	n -= 17;
	if (n >= 2 && s[n - 2] == ':' && s[n - 1] == ':')
		n -= 2;
	if (n >= 2 && s[0] == '_' && s[1] == '$')
		s++, n--;
	ember_buf_reset(out);
	for (size_t i = 0; i < n;) {
		if (s[i] == '.') {
			int two = i + 1 < n && s[i + 1] == '.';
			ember_buf_adds(out, two ? "::" : ".");
			i += two ? 2 : 1;
		} else if (s[i] == '$') {
			size_t k = 0, m = 0;
			for (; k < ARRAY_SIZE(esc); k++) {
				m = strlen(esc[k][0]);
				if (n - i >= m && !memcmp(s + i, esc[k][0], m))
					break;
			}
			if (k == ARRAY_SIZE(esc)) {
				/* unknown: the rest as it is */
				ember_buf_add(out, s + i, n - i);
				break;
			}
			ember_buf_adds(out, esc[k][1]);
			i += m;
		} else {
			ember_buf_addch(out, s[i++]);
		}
	}
	return 1;
}

/* inferno's kernel modules: [...] (not [unknown]), *.ko, a vmlinux file */
static int inferno_kernel(const char *m, size_t n)
{
	if (n == 9 && !memcmp(m, "[unknown]", 9))
		return 0;
	if ((n && m[0] == '[') || (n >= 3 && !memcmp(m + n - 3, ".ko", 3)))
		return 1;
	for (size_t i = n; i >= 7; i--) {
		if (memcmp(m + i - 7, "vmlinux", 7))
			continue;
		for (size_t j = i - 7; j < n; j++)
			if (!alnum((unsigned char)m[j]) && !strchr("-._", m[j]))
				return 0;
		return 1;
	}
	return 0;
}

/* One "->" part as inferno names it, in tmp: [unknown] after the module,
 * ';' made ':', cut at the first '(' outside brackets but a Go method's
 * ".(" and "(anonymous namespace)", Java's L dropped. */
static void inferno_part(const char *s, size_t n,
			 const struct ember_perf_frame *f, int flags,
			 struct ember_buf *tmp)
{
	ember_buf_reset(tmp);
	if (n == 9 && !memcmp(s, "[unknown]", 9)) {
		const char *m = f->dso;
		size_t mn = f->dso_len;
		int addrs = !!(flags & EMBER_PERF_ADDRS);
		if (mn == 9 && !memcmp(m, "[unknown]", 9) && !addrs) {
			ember_buf_add(tmp, s, n);
		} else {
			if (mn == 9 && !memcmp(m, "[unknown]", 9)) {
				m = "unknown";
				mn = 7;
			}
			const char *sl = memrchr(m, '/', mn);
			if (sl) {
				mn -= (size_t)(sl + 1 - m);
				m = sl + 1;
			}
			ember_buf_addch(tmp, '[');
			ember_buf_add(tmp, m, mn);
			if (addrs) {
				ember_buf_adds(tmp, " <");
				ember_buf_add(tmp, f->addr, f->addr_len);
				ember_buf_addch(tmp, '>');
			}
			ember_buf_addch(tmp, ']');
		}
	} else {
		ember_buf_add(tmp, s, n);
	}
	char *b = tmp->buf;
	size_t m = tmp->len, dot = (size_t)-1;
	int depth = 0;
	for (size_t i = 0; i < m; i++) {
		if (b[i] == ';')
			b[i] = ':';
		else if (strchr("<{[", b[i]))
			depth++;
		else if (strchr(">}])", b[i]))
			depth--;
		else if (b[i] == '.')
			dot = i + 1;
		else if (b[i] == '(') {
			if (!depth && dot != i &&
			    !starts(b + i, m - i, "(anonymous namespace)")) {
				m = i;
				break;
			}
			depth++;
		}
	}
	ember_buf_setlen(tmp, m);
	if ((flags & EMBER_PERF_JAVA) && m && tmp->buf[0] == 'L' &&
	    memchr(tmp->buf, '/', m)) {
		memmove(tmp->buf, tmp->buf + 1, m - 1);
		ember_buf_setlen(tmp, m - 1);
	}
}

/* inferno-collapse-perf's frames of a frame line, innermost first. */
static int inferno_names(const struct ember_perf_frame *f, int flags,
			 struct ember_buf *tmp, struct ember_buf *tmp2,
			 rec_emit_fn emit, void *ctx)
{
	const char *s = f->sym;
	size_t n = f->sym_len;
	struct ember_buf fixed = EMBER_BUF_INIT;
	int count = 0;

	/* an offset of hex digits, either case */
	const char *off = NULL;
	for (size_t i = n; i >= 3 && !off; i--)
		if (!memcmp(s + i - 3, "+0x", 3))
			off = s + i - 3;
	if (off) {
		size_t k = (size_t)(off - s) + 3;
		while (k < n && hex_digit((unsigned char)s[k]))
			k++;
		if (k == n)
			n = (size_t)(off - s);
	}
	if (n && s[0] == '(')
		return 0;
	if (rec_rust_fix(s, n, &fixed)) {
		s = fixed.buf;
		n = fixed.len;
	}
	/* parts at each "->", pushed leaf (last) first */
	size_t starts[64], ends[64], np = 0, i = 0;
	for (;;) {
		const char *a = np < 63 ? memmem(s + i, n - i, "->", 2) : NULL;
		starts[np] = i;
		ends[np++] = a ? (size_t)(a - s) : n;
		if (!a)
			break;
		i = (size_t)(a - s) + 2;
	}
	for (size_t k = np; k-- > 0;) {
		inferno_part(s + starts[k], ends[k] - starts[k], f, flags, tmp);
		const char *suffix = NULL;
		if (k) {
			if (!has(tmp->buf, tmp->len, "_[i]"))
				suffix = "_[i]";
		} else if ((flags & EMBER_PERF_KERNEL) &&
			   inferno_kernel(f->dso, f->dso_len)) {
			suffix = "_[k]";
		} else if ((flags & EMBER_PERF_JIT) &&
			   (module_kind(f->dso, f->dso_len) & M_JIT) &&
			   !has(tmp->buf, tmp->len, "_[j]")) {
			suffix = "_[j]";
		}
		ember_buf_reset(tmp2);
		ember_buf_add(tmp2, tmp->buf, tmp->len);
		if (suffix)
			ember_buf_adds(tmp2, suffix);
		emit(ctx, tmp2->buf, tmp2->len);
		count++;
	}
	ember_buf_release(&fixed);
	return count;
}

/* Calls emit for each frame a perf frame line becomes, innermost inlined
 * frame first (the order they are pushed in, leaf first); returns how
 * many.  A part of the symbol between "->" is an inlined frame (_[i]). */
int rec_perf_names(const struct ember_perf_frame *f, int flags,
		   struct ember_buf *tmp, struct ember_buf *tmp2,
		   rec_emit_fn emit, void *ctx)
{
	if (flags & EMBER_PERF_INFERNO)
		return inferno_names(f, flags, tmp, tmp2, emit, ctx);

	const char *s = f->sym;
	size_t n = rec_strip_offset(f->sym, f->sym_len);
	size_t cut[64], ncut = 0;
	int kind = -1, count = 0;

	/* perf's "(...)" pseudo-frames are left out, but not C++'s
	 * "(anonymous namespace)::f", which the script drops with them */
	if (!n || (s[0] == '(' && !starts(s, n, "(anonymous namespace)")))
		return 0;
	/* parts: Perl's split drops empty trailing parts */
	if (has_arrow(s, n)) {
		size_t i = 0;
		while (ncut < ARRAY_SIZE(cut) - 1) {
			size_t j = i + scan_top(s + i, n - i, 1);
			cut[ncut++] = j;
			if (j >= n)
				break;
			i = j + 2;
		}
		while (ncut) {
			size_t from = ncut > 1 ? cut[ncut - 2] + 2 : 0;
			if (cut[ncut - 1] > from)
				break;
			ncut--;
		}
		if (!ncut)
			return 0;
	} else {
		cut[ncut++] = n;
	}
	for (size_t k = ncut; k-- > 0;) {
		size_t from = k ? cut[k - 1] + 2 : 0;
		const char *name;
		size_t len;
		rec_clean_part(s + from, cut[k] - from, f, flags, tmp, &name,
			       &len);
		const char *suffix = NULL;
		if (k) {
			if (!has(name, len, "_[i]"))
				suffix = "_[i]";
		} else if (flags & (EMBER_PERF_KERNEL | EMBER_PERF_JIT)) {
			if (kind < 0)
				kind = module_kind(f->dso, f->dso_len);
			if ((flags & EMBER_PERF_KERNEL) && (kind & M_KERNEL))
				suffix = "_[k]";
			else if ((flags & EMBER_PERF_JIT) && (kind & M_JIT) &&
				 !has(name, len, "_[j]"))
				suffix = "_[j]";
		}
		if (suffix) {
			ember_buf_reset(tmp2);
			ember_buf_add(tmp2, name, len);
			ember_buf_adds(tmp2, suffix);
			name = tmp2->buf;
			len = tmp2->len;
		}
		emit(ctx, name, len);
		count++;
	}
	return count;
}

struct names_out {
	struct ember_buf *out;
	size_t start;
	int n;
};

static void emit_public(void *ctx, const char *s, size_t n)
{
	struct names_out *o = ctx;
	/* parts come innermost first: insert each at the start */
	struct ember_buf *b = o->out;
	size_t add = n + (o->n ? 1 : 0);

	ember_buf_grow(b, add);
	memmove(b->buf + o->start + add, b->buf + o->start, b->len - o->start);
	memcpy(b->buf + o->start, s, n);
	if (o->n)
		b->buf[o->start + n] = ';';
	ember_buf_setlen(b, b->len + add);
	o->n++;
}

int ember_perf_frame_names(const struct ember_perf_frame *f, int flags,
			   struct ember_buf *out)
{
	struct ember_buf tmp = EMBER_BUF_INIT, tmp2 = EMBER_BUF_INIT;
	struct names_out o = {out, out->len, 0};
	int n = rec_perf_names(f, flags, &tmp, &tmp2, emit_public, &o);

	ember_buf_release(&tmp);
	ember_buf_release(&tmp2);
	return n;
}

/* ---- Java ---- */

/* "long com.x.Y.m(int, java.lang.String)": a return type, one space, the
 * class and method joined by the last dot, the parameters. */
int rec_java_agent_name(struct ember_buf *out, const char *s, size_t n)
{
	const char *end = s + n, *sp, *paren, *dot = NULL;

	if (n < 6 || end[-1] != ')')
		return 0;
	sp = memchr(s, ' ', n);
	if (!sp || sp == s || memchr(s, '(', (size_t)(sp - s)))
		return 0;
	paren = memchr(sp + 1, '(', (size_t)(end - sp - 1));
	if (!paren)
		return 0;
	for (const char *p = sp + 1; p < paren; p++) {
		if (*p == ' ' || *p == ';')
			return 0;
		if (*p == '.')
			dot = p;
	}
	if (!dot || dot == sp + 1 || dot + 1 == paren)
		return 0;
	ember_buf_addch(out, 'L');
	for (const char *p = sp + 1; p < dot; p++)
		ember_buf_addch(out, *p == '.' ? '/' : *p);
	ember_buf_adds(out, ";::");
	ember_buf_add(out, dot + 1, (size_t)(paren - dot - 1));
	return 1;
}
