/*
 * bpftrace maps of stacks (@[kstack] = count(), @[ustack, comm], ...), as
 * stackcollapse-bpftrace.pl reads them: "@[" opens a key, each line up to
 * the one with "]: N" is a frame, leaf first (a "]: N" line's text before
 * "]" is the root frame); "@[, comm]: N" keys are a stack of one frame.
 * Each key becomes one line in input order, as the script prints it.
 */
#include <stdlib.h>

#include "collapse.h"

struct bt_state {
	struct collapse_sink *k;
	int in_stack;
	struct ember_buf text; /* the frames' bytes */
	size_t *off;	       /* where each frame starts in text */
	size_t n, alloc;
};

/* /(.*)\]: (\d+)/ from s: the last "]: " followed by a digit; the text
 * before it and the digits. */
static int key_end(const char *s, size_t n, size_t *tn, const char **d,
		   size_t *dn)
{
	for (size_t i = n; i >= 3; i--) {
		size_t j = i - 3;
		if (s[j] != ']' || s[j + 1] != ':' || s[j + 2] != ' ' ||
		    i >= n || !cl_digit(s[i]))
			continue;
		size_t e = i;
		while (e < n && cl_digit(s[e]))
			e++;
		*tn = j;
		*d = s + i;
		*dn = e - i;
		return 1;
	}
	return 0;
}

static void push(struct bt_state *st, const char *s, size_t n)
{
	EMBER_GROW(st->off, st->n + 1, st->alloc);
	st->off[st->n++] = st->text.len;
	ember_buf_add(&st->text, s, n);
}

static void emit(struct bt_state *st, const char *d, size_t dn)
{
	struct ember_buf *o = &st->k->out;

	for (size_t i = st->n; i-- > 0;) {
		size_t e = i + 1 < st->n ? st->off[i + 1] : st->text.len;
		ember_buf_add(o, st->text.buf + st->off[i], e - st->off[i]);
		if (i)
			ember_buf_addch(o, ';');
	}
	ember_buf_addch(o, ' ');
	ember_buf_add(o, d, dn);
	ember_buf_addch(o, '\n');
	st->k->n.records++;
	st->n = 0;
	ember_buf_reset(&st->text);
}

static void bt_parse(void *arg, const char *p, size_t len)
{
	struct bt_state *st = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s, *d;
		size_t n = cl_line(&p, end, &s), tn, dn;
		st->k->n.lines++;
		if (!st->in_stack) {
			if (n == 2 && s[0] == '@' && s[1] == '[') {
				st->in_stack = 1;
			} else if (cl_starts(s, n, "@[,") && n > 3 &&
				   cl_space(s[3]) &&
				   key_end(s + 4, n - 4, &tn, &d, &dn)) {
				push(st, s + 4, tn);
				emit(st, d, dn);
			}
			continue;
		}
		if (key_end(s, n, &tn, &d, &dn)) {
			/* m/^,?\s?(.*)\]: (\d+)/ */
			size_t i = 0;
			if (i < tn && s[i] == ',')
				i++;
			if (i < tn && cl_space(s[i]))
				i++;
			if (tn > i)
				push(st, s + i, tn - i);
			emit(st, d, dn);
			st->in_stack = 0;
		} else {
			while (n && cl_space(s[0]))
				s++, n--;
			push(st, s, n);
		}
	}
}

static void bt_end(void *arg)
{
	struct bt_state *st = arg;

	if (st->in_stack)
		st->k->n.truncated++;
	st->in_stack = 0;
	st->n = 0;
	ember_buf_reset(&st->text);
}

static void *bt_new(const struct ember_collapse_options *o,
		    struct collapse_sink *k)
{
	struct bt_state *st = ember_xcalloc(1, sizeof(*st));

	(void)o;
	st->k = k;
	ember_buf_init(&st->text, 0);
	return st;
}

static void bt_free(void *arg)
{
	struct bt_state *st = arg;

	if (!st)
		return;
	free(st->off);
	ember_buf_release(&st->text);
	free(st);
}

/* "Attaching N probe" first, or a map key "@[" line. */
static int bt_detect(const char *p, size_t len)
{
	const char *end = p + len;

	for (int lines = 0; p < end && lines < 20; lines++) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		if (cl_starts(s, n, "Attaching ") && memmem(s, n, " probe", 6))
			return 1;
		if ((n == 2 && s[0] == '@' && s[1] == '[') ||
		    cl_starts(s, n, "@[, "))
			return 1;
		if (n)
			return 0;
	}
	return 0;
}

const struct ember_collapser ember_collapser_bpftrace = {
    .name = "bpftrace",
    .summary = "bpftrace stack maps, @[kstack] = count() "
	       "(stackcollapse-bpftrace.pl)",
    .order = CL_INPUT,
    .detect = bt_detect,
    .state_new = bt_new,
    .state_free = bt_free,
    .parse = bt_parse,
    .end = bt_end,
};
