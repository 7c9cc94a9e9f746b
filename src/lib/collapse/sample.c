/*
 * macOS `sample` call graphs, as stackcollapse-sample.awk reads them:
 * after "Call graph:", each line "    + ! 825 func  (in module) + 4 [0x..]"
 * is a frame whose depth is where its count starts (two columns a level);
 * when the depth falls back, the frames from the deepest to that depth
 * are printed, each as a line of its own with its self count (its count
 * minus its callees'), in input order as the script prints them.
 * MODULES=0 (the awk operand) leaves out the "module`" prefixes.
 *
 * As inferno-collapse-sample (o->inferno), another reader: a frame's
 * depth is its count of indent characters (" +|:!", two a level); when
 * the depth falls back, and at "Total number in stack", the stack so far
 * is set (not added) to the count of its last frame, unless that frame
 * ends in one of the waiting functions; the stacks print sorted.  Names
 * are what comes before the first '(', Rust's half-demangled names
 * repaired; a line in no such shape refuses the input.
 *
 * The script's arrays are kept by depth as awk keeps them, a number
 * ((column - 4) / 2, half levels included) that is printed with its
 * callers at whole depths 1, 2, ... up to it.  A count is kept as its
 * text until a callee's is taken from it, as awk keeps input fields.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "collapse.h"

#define MAX_DEPTH 4096 /* deeper lines are skipped as bad */

struct level {
	double depth;
	struct ember_buf name, time; /* time: text, or the number */
	int computed;
	double value;
};

struct sample_state {
	struct collapse_sink *k;
	int modules;
	/* inferno's reader */
	int inferno, started, done;
	uint64_t samples;
	struct cl_istack stack;
	struct cl_occ occ;
	int found;
	double nest, level; /* _NEST, _LEVEL */
	struct level *lv;
	size_t n, alloc;
	struct ember_buf fn, tmp;
};

static const char *const ignored[] = {
    "libsystem_kernel`__psynch_cvwait",
    "libsystem_kernel`__select",
    "libsystem_kernel`__semwait_signal",
    "libsystem_kernel`__ulock_wait",
    "libsystem_kernel`__wait4",
    "libsystem_kernel`__workq_kernreturn",
    "libsystem_kernel`kevent",
    "libsystem_kernel`mach_msg_trap",
    "libsystem_kernel`read",
    "libsystem_kernel`semaphore_wait_trap",
    "__psynch_cvwait",
    "__select",
    "__semwait_signal",
    "__ulock_wait",
    "__wait4",
    "__workq_kernreturn",
    "kevent",
    "mach_msg_trap",
    "read",
    "semaphore_wait_trap",
};

static struct level *find(struct sample_state *st, double d)
{
	for (size_t i = 0; i < st->n; i++)
		if (st->lv[i].depth == d)
			return &st->lv[i];
	return NULL;
}

static struct level *get(struct sample_state *st, double d)
{
	struct level *l = find(st, d);

	if (l)
		return l;
	if (st->n == st->alloc) {
		size_t a = st->alloc ? st->alloc * 2 : 16;
		st->lv = ember_xreallocarray(st->lv, a, sizeof(*st->lv));
		for (size_t i = st->alloc; i < a; i++) {
			ember_buf_init(&st->lv[i].name, 0);
			ember_buf_init(&st->lv[i].time, 0);
		}
		st->alloc = a;
	}
	l = &st->lv[st->n++];
	l->depth = d;
	ember_buf_reset(&l->name);
	ember_buf_reset(&l->time);
	l->computed = 0;
	l->value = 0;
	return l;
}

static void del(struct sample_state *st, double d)
{
	struct level *l = find(st, d);

	if (!l)
		return;
	struct level t = *l;
	*l = st->lv[--st->n];
	st->lv[st->n] = t; /* keeps its buffers for reuse */
}

/* awk's number of a string: the decimal number at its start */
static double awk_num(const char *s, size_t n)
{
	char num[64];
	size_t m = 0;

	for (size_t i = 0; i < n && m < sizeof(num) - 1; i++) {
		if (!cl_digit((unsigned char)s[i]) && s[i] != '.' &&
		    !(i == 0 && (s[i] == '-' || s[i] == '+')))
			break;
		num[m++] = s[i];
	}
	num[m] = '\0';
	return strtod(num, NULL);
}

static void add_time(struct ember_buf *o, const struct level *l)
{
	if (!l) /* an element never set: "" */
		return;
	if (!l->computed) {
		ember_buf_add(o, l->time.buf, l->time.len);
	} else if (l->value == floor(l->value) && fabs(l->value) < 1e18) {
		ember_buf_addf(o, "%.0f", l->value);
	} else {
		ember_buf_addf(o, "%.6g", l->value);
	}
}

static int is_ignored(const struct level *l)
{
	if (!l)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(ignored); i++)
		if (strlen(ignored[i]) == l->name.len &&
		    !memcmp(ignored[i], l->name.buf, l->name.len))
			return 1;
	return 0;
}

/* printStack(FROM, TO) */
static void print_stack(struct sample_state *st, double from, double to)
{
	struct ember_buf *o = &st->k->out;
	int print = !is_ignored(find(st, from));

	for (double l = from; l >= to; l--) {
		if (print) {
			struct level *e = find(st, 0);
			if (e)
				ember_buf_add(o, e->name.buf, e->name.len);
			for (double i = 1; i <= l; i++) {
				e = find(st, i);
				ember_buf_addch(o, ';');
				if (e)
					ember_buf_add(o, e->name.buf,
						      e->name.len);
			}
			ember_buf_addch(o, ' ');
			add_time(o, find(st, l));
			ember_buf_addch(o, '\n');
			st->k->n.records++;
		}
		del(st, l);
	}
}

/* awk's fields (blanks and tabs apart) */
static size_t field(const char *s, size_t n, size_t k, const char **f)
{
	size_t nf = 0, i = 0;

	for (;;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == n)
			return 0;
		size_t a = i;
		while (i < n && s[i] != ' ' && s[i] != '\t')
			i++;
		if (nf++ == k) {
			*f = s + a;
			return i - a;
		}
	}
}

static void frame(struct sample_state *st, const char *s, size_t n, size_t d)
{
	const char *f1 = NULL, *f2 = NULL, *t = NULL;
	size_t tn, n1, n2;
	double nest = ((double)d + 1 - 5) / 2;

	if (nest > MAX_DEPTH) {
		cl_bad(st->k, s, n);
		return;
	}
	/* sub(/^[^0-9]*\/, ""): from the first digit */
	s += d;
	n -= d;
	tn = field(s, n, 0, &t);
	n1 = field(s, n, 1, &f1);
	n2 = field(s, n, 2, &f2);
	ember_buf_reset(&st->fn);
	ember_buf_add(&st->fn, f1, n1);
	if (!(n2 == 0 || (n2 == 3 && !memcmp(f2, "(in", 3)))) {
		ember_buf_addch(&st->fn, '.');
		ember_buf_add(&st->fn, f2, n2);
	}
	/* match($0, /\(in [^)]*\)/), ".dylib" taken out */
	const char *m = st->modules ? memmem(s, n, "(in ", 4) : NULL;
	const char *c = m ? memchr(m + 4, ')', (size_t)(s + n - m - 4)) : NULL;
	if (c) {
		ember_buf_reset(&st->tmp);
		for (const char *q = m + 4; q < c;) {
			if (c - q >= 6 && !memcmp(q, ".dylib", 6)) {
				q += 6;
				continue;
			}
			ember_buf_addch(&st->tmp, *q++);
		}
		ember_buf_addch(&st->tmp, '`');
		ember_buf_add(&st->tmp, st->fn.buf, st->fn.len);
		ember_buf_reset(&st->fn);
		ember_buf_add(&st->fn, st->tmp.buf, st->tmp.len);
	}
	if (nest <= st->level)
		print_stack(st, st->level, nest);
	struct level *l = get(st, nest);
	ember_buf_reset(&l->name);
	ember_buf_add(&l->name, st->fn.buf, st->fn.len);
	ember_buf_reset(&l->time);
	ember_buf_add(&l->time, t, tn);
	l->computed = 0;
	l->value = awk_num(t, tn);
	if (nest > 0) {
		double v = l->value;
		struct level *p = get(st, nest - 1);
		p->value -= v;
		p->computed = 1;
	}
	st->nest = nest;
	st->level = nest;
}

/* ---- inferno's reader ---- */

static int indent_char(char c)
{
	return c == ' ' || c == '+' || c == '|' || c == ':' || c == '!';
}

static void inf_write_stack(struct sample_state *st)
{
	const struct cl_istack *s = &st->stack;

	if (s->n) {
		const char *last =
		    s->text.buf + (s->n > 1 ? s->ends[s->n - 2] + 1 : 0);
		size_t ln = s->text.len - (size_t)(last - s->text.buf);
		/* the names without "libsystem_kernel`": ends_with */
		for (size_t i = ARRAY_SIZE(ignored) / 2;
		     i < ARRAY_SIZE(ignored); i++) {
			size_t m = strlen(ignored[i]);
			if (ln >= m && !memcmp(last + ln - m, ignored[i], m))
				return;
		}
	}
	cl_occ_set(&st->occ, s->text.buf, s->text.len, st->samples);
}

/* Rust's u64::from_str */
static int rust_u64(const char *s, size_t n, uint64_t *v)
{
	if (n && s[0] == '+')
		s++, n--;
	if (!n)
		return 0;
	*v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!cl_digit((unsigned char)s[i]) ||
		    *v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return 0;
		*v = *v * 10 + (uint64_t)(s[i] - '0');
	}
	return 1;
}

static void inf_line(struct sample_state *st, const char *s, size_t n)
{
	struct collapse_sink *k = st->k;
	size_t i = 4;

	while (i < n && indent_char(s[i]))
		i++;
	if (i == n) {
		cl_inferno_error(k, "stack line with only indent characters", s,
				 n);
		return;
	}
	size_t indent = i - 4;
	if (indent % 2) {
		cl_inferno_error(k, "odd number of indentation characters", s,
				 n);
		return;
	}
	size_t prev = st->stack.n, depth = indent / 2 + 1;
	if (depth <= prev) {
		inf_write_stack(st);
		for (size_t j = 0; j <= prev - depth; j++)
			cl_istack_pop(&st->stack);
	} else if (depth > prev + 1) {
		cl_inferno_error(k, "skipped indentation level", s, n);
		return;
	}
	/* "<samples> <function> (in <module>) ..." */
	const char *p = s + i, *end = s + n;
	while (p < end && cl_space((unsigned char)*p))
		p++;
	const char *sp = memchr(p, ' ', (size_t)(end - p));
	if (!sp) {
		cl_inferno_error(k, "cannot parse stack line", s, n);
		return;
	}
	size_t tn = cl_trim_end(p, (size_t)(sp - p));
	const char *rest = sp + 1;
	size_t rn = (size_t)(end - rest);
	const char *open = memchr(rest, '(', rn);
	size_t fn = cl_trim_end(rest, open ? (size_t)(open - rest) : rn);
	const char *mod = "";
	size_t mn = 0;
	if (st->modules) {
		const char *after = rest, *q = rest;
		while ((q = memmem(q, (size_t)(end - q), "(in ", 4)))
			after = q += 4;
		const char *close = memchr(after, ')', (size_t)(end - after));
		if (close) {
			mod = after;
			mn = (size_t)(close - after);
		}
		if (mn >= 6 && !memcmp(mod + mn - 6, ".dylib", 6))
			mn -= 6;
	}
	uint64_t v;
	if (!rust_u64(p, tn, &v)) {
		cl_inferno_error(k, "invalid samples field", s, n);
		return;
	}
	st->samples = v;
	ember_buf_reset(&st->fn);
	if (mn) {
		ember_buf_add(&st->fn, mod, mn);
		ember_buf_addch(&st->fn, '`');
	}
	ember_buf_reset(&st->tmp);
	if (rec_rust_fix(rest, fn, &st->tmp))
		ember_buf_add(&st->fn, st->tmp.buf, st->tmp.len);
	else
		ember_buf_add(&st->fn, rest, fn);
	cl_istack_push(&st->stack, st->fn.buf, st->fn.len, 0);
}

static void inf_parse(struct sample_state *st, const char *s, size_t n)
{
	if (st->done || st->k->n.error[0])
		return;
	if (!st->started) {
		st->started = cl_starts(s, n, "Call graph:");
		return;
	}
	n = cl_trim_end(s, n);
	if (!n)
		return;
	if (cl_starts(s, n, "    ")) {
		inf_line(st, s, n);
	} else if (cl_starts(s, n, "Total number in stack")) {
		inf_write_stack(st);
		cl_occ_write(&st->occ, st->k);
		st->done = 1;
	} else {
		cl_inferno_error(st->k, "stack line without four spaces", s, n);
	}
}

static void sample_end(void *arg)
{
	struct sample_state *st = arg;

	if (!st->inferno)
		return;
	if (st->started && !st->done)
		cl_inferno_error(st->k,
				 "input ended before the end of the call graph",
				 "", 0);
	st->started = st->done = 0;
	st->samples = 0;
	cl_occ_clear(&st->occ);
	while (st->stack.n)
		cl_istack_pop(&st->stack);
}

static void sample_parse(void *arg, const char *p, size_t len)
{
	struct sample_state *st = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		st->k->n.lines++;
		if (st->inferno) {
			inf_parse(st, s, n);
			continue;
		}
		if (cl_starts(s, n, "Call graph"))
			st->found = 1;
		if (cl_starts(s, n, "Total number")) {
			st->found = 0;
			print_stack(st, st->nest, 0);
		}
		if (st->found && cl_starts(s, n, "    ")) {
			size_t d = 4;
			while (d < n && !cl_digit((unsigned char)s[d]))
				d++;
			if (d < n)
				frame(st, s, n, d);
		}
	}
}

static void *sample_new(const struct ember_collapse_options *o,
			struct collapse_sink *k)
{
	struct sample_state *st = ember_xcalloc(1, sizeof(*st));

	st->k = k;
	st->modules = !o->sample_no_modules;
	st->inferno = o->inferno;
	cl_istack_init(&st->stack);
	cl_occ_init(&st->occ);
	st->level = -1;
	ember_buf_init(&st->fn, 0);
	ember_buf_init(&st->tmp, 0);
	return st;
}

static void sample_free(void *arg)
{
	struct sample_state *st = arg;

	if (!st)
		return;
	for (size_t i = 0; i < st->alloc; i++) {
		ember_buf_release(&st->lv[i].name);
		ember_buf_release(&st->lv[i].time);
	}
	free(st->lv);
	ember_buf_release(&st->fn);
	ember_buf_release(&st->tmp);
	cl_istack_release(&st->stack);
	cl_occ_release(&st->occ);
	free(st);
}

/* sample's report: "Analysis of sampling" first, "Call graph:" below. */
static int sample_detect(const char *p, size_t len)
{
	const char *end = p + len, *s;
	size_t n;

	if (p == end)
		return 0;
	n = cl_line(&p, end, &s);
	return cl_starts(s, n, "Analysis of sampling ") &&
	       (cl_starts(p, (size_t)(end - p), "Call graph:") ||
		memmem(p, (size_t)(end - p), "\nCall graph:", 12));
}

const struct ember_collapser ember_collapser_sample = {
    .name = "sample",
    .summary = "macOS sample call graphs (stackcollapse-sample.awk)",
    .order = CL_INPUT,
    .detect = sample_detect,
    .state_new = sample_new,
    .state_free = sample_free,
    .parse = sample_parse,
    .end = sample_end,
};
