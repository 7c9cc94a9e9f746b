/*
 * eu-stack output (elfutils), as stackcollapse-elfutils.pl reads it:
 * "PID N - process" and "TID N:" headers, then "#N  0xADDR func" frames,
 * leaf first.  Each header ends the stack before it, which counts once,
 * under PID=N and TID=N root frames with --pid and --tid.
 */
#include <stdlib.h>

#include "collapse.h"

struct eu_state {
	struct collapse_sink *k;
	int with_pid, with_tid;
	struct cl_frames v; /* leaf first */
	char pid[32], tid[32];
	size_t npid, ntid;
};

static void flush(struct eu_state *st)
{
	char b[40];

	if (!st->v.n)
		return;
	if (st->with_tid) {
		memcpy(b, "TID=", 4);
		memcpy(b + 4, st->tid, st->ntid);
		cl_frames_push(st->k, &st->v, b, 4 + st->ntid);
	}
	if (st->with_pid) {
		memcpy(b, "PID=", 4);
		memcpy(b + 4, st->pid, st->npid);
		cl_frames_push(st->k, &st->v, b, 4 + st->npid);
	}
	cl_frames_reverse(&st->v);
	cl_add_u64(st->k, st->v.f, st->v.n, 1);
	st->v.n = 0;
}

/* m/^(PID|TID) ([0-9]*)/: the digits (Perl keeps them as text) */
static int header(const char *s, size_t n, const char *what, char *id,
		  size_t *nid)
{
	size_t i = 4;

	if (!cl_starts(s, n, what))
		return 0;
	while (i < n && cl_digit(s[i]) && i - 4 < 31)
		i++;
	*nid = i - 4;
	memcpy(id, s + 4, *nid);
	return 1;
}

static void eu_parse(void *arg, const char *p, size_t len)
{
	struct eu_state *st = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s), i = 1;
		st->k->n.lines++;
		if (cl_starts(s, n, "PID ")) {
			flush(st);
			header(s, n, "PID ", st->pid, &st->npid);
			continue;
		}
		if (cl_starts(s, n, "TID ")) {
			flush(st);
			header(s, n, "TID ", st->tid, &st->ntid);
			continue;
		}
		/* m/^#[0-9]* *0x[0-9a-f]* (.*)/, else [unknown] */
		if (!n || s[0] != '#')
			continue;
		while (i < n && cl_digit(s[i]))
			i++;
		size_t d = i;
		while (i < n && s[i] == ' ')
			i++;
		/* "#10x1": a digit given back makes the "0x" */
		if (i == d && i > 1 && s[i - 1] == '0' && i < n && s[i] == 'x')
			i--;
		if (!cl_starts(s + i, n - i, "0x"))
			continue;
		i += 2;
		while (i < n &&
		       (cl_digit(s[i]) || (s[i] >= 'a' && s[i] <= 'f')))
			i++;
		if (i < n && s[i] == ' ')
			cl_frames_push_rev(st->k, &st->v, s + i + 1, n - i - 1);
		else
			cl_frames_push(st->k, &st->v, "[unknown]", 9);
	}
}

static void eu_end(void *arg)
{
	flush(arg);
}

static void *eu_new(const struct ember_collapse_options *o,
		    struct collapse_sink *k)
{
	struct eu_state *st = ember_xcalloc(1, sizeof(*st));

	st->k = k;
	st->with_pid = o->elfutils_pid;
	st->with_tid = o->elfutils_tid;
	return st;
}

static void eu_free(void *arg)
{
	struct eu_state *st = arg;

	if (st)
		free(st->v.f);
	free(st);
}

/* eu-stack starts with "PID N - process" (or "TID N:" with -1). */
static int eu_detect(const char *p, size_t len)
{
	const char *end = p + len, *s;
	size_t n, i = 4;

	if (p == end)
		return 0;
	n = cl_line(&p, end, &s);
	if (!cl_starts(s, n, "PID ") && !cl_starts(s, n, "TID "))
		return 0;
	while (i < n && cl_digit(s[i]))
		i++;
	return i > 4 && (cl_starts(s + i, n - i, " - process") ||
			 (s[0] == 'T' && i + 1 == n && s[i] == ':'));
}

const struct ember_collapser ember_collapser_elfutils = {
    .name = "elfutils",
    .summary = "eu-stack output (stackcollapse-elfutils.pl)",
    .detect = eu_detect,
    .state_new = eu_new,
    .state_free = eu_free,
    .parse = eu_parse,
    .end = eu_end,
};
