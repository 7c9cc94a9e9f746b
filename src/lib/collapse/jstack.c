/*
 * jstack thread dumps, as stackcollapse-jstack.pl reads them: a thread
 * is a '"name" ...' line, a "java.lang.Thread.State: S" line and
 * "at pkg.Class.method(File.java:N)" frames, leaf first, up to a blank
 * line.  Only RUNNABLE threads count, and not those the script takes for
 * background or waiting ones (compiler threads, the signal dispatcher,
 * epoll waits, socket accepts and reads); the thread's name is the root
 * frame, without its "-N" suffix unless --include-tid.
 */
#include <stdlib.h>

#include "layout.h"

enum { ST_NONE, ST_RUNNABLE, ST_OTHER };

struct jstack_state {
	struct cl_thread t;
	int state;
};

/* Whether s holds pat, where '.' in pat stands for any byte. */
static int has_dots(const char *s, size_t n, const char *pat, size_t *at)
{
	size_t m = strlen(pat);

	for (size_t i = 0; i + m <= n; i++) {
		size_t j = 0;
		while (j < m && (pat[j] == '.' || pat[j] == s[i + j]))
			j++;
		if (j == m) {
			*at = i + m;
			return 1;
		}
	}
	return 0;
}

static int ends(const char *s, size_t n, const char *lit)
{
	size_t m = strlen(lit);
	return n >= m && !memcmp(s + n - m, lit, m);
}

/* The thread ends: its stack counts if it was running. */
static void thread_end(struct jstack_state *st)
{
	cl_thread_end(&st->t, st->state == ST_RUNNABLE);
	st->state = ST_NONE;
}

static void thread_line(struct jstack_state *st, const char *s, size_t n)
{
	const char *q = memchr(s + 1, '"', n - 1);
	size_t nn = q ? (size_t)(q - s - 1) : n - 1, at;
	const char *name = s + 1;

	if (!st->t.o->java_no_tname) {
		size_t tn = nn, i = nn;
		if (!st->t.o->java_tid) {
			/* s/-\d+$// */
			while (i && cl_digit(name[i - 1]))
				i--;
			if (i < nn && i && name[i - 1] == '-')
				tn = i - 1;
		}
		cl_thread_name(&st->t, name, tn);
	}
	if (has_dots(name, nn, "C. CompilerThread", &at) ||
	    memmem(name, nn, "Signal Dispatcher", 17) ||
	    memmem(name, nn, "Service Thread", 14) ||
	    memmem(name, nn, "Attach Listener", 15))
		st->state = ST_OTHER;
}

static void frame_line(struct jstack_state *st, const char *f, size_t fn)
{
	const char *sock;

	cl_thread_frame(&st->t, &f, &fn);
	if (memmem(f, fn, "epollWait", 9) || memmem(f, fn, "EPoll.wait", 10))
		st->state = ST_OTHER;
	if (ends(f, fn, "socketAccept") || ends(f, fn, "socketRead0") ||
	    ((sock = memmem(f, fn, "Socket", 6)) &&
	     ends(sock + 6, fn - (size_t)(sock + 6 - f), "accept0")))
		st->state = ST_OTHER;
}

static void jstack_parse(void *arg, const char *p, size_t len)
{
	struct jstack_state *st = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s, *f;
		size_t n = cl_line(&p, end, &s), fn, at;
		st->t.k->n.lines++;
		if (n && s[0] == '#')
			continue;
		if (!n) {
			thread_end(st);
		} else if (s[0] == '"') {
			thread_line(st, s, n);
		} else if (has_dots(s, n, "java.lang.Thread.State: ", &at) &&
			   at < n && !cl_space(s[at])) {
			if (st->state == ST_NONE) {
				size_t e = at;
				while (e < n && !cl_space(s[e]))
					e++;
				st->state =
				    e - at == 8 &&
					    !memcmp(s + at, "RUNNABLE", 8)
					? ST_RUNNABLE
					: ST_OTHER;
			}
		} else if (cl_java_at(s, n, &f, &fn)) {
			frame_line(st, f, fn);
		} else {
			size_t i = 0;
			while (i < n && cl_space(s[i]))
				i++;
			if ((i < n && s[i] == '-') ||
			    (n >= 5 && s[0] == '2' && cl_digit(s[1]) &&
			     cl_digit(s[2]) && cl_digit(s[3]) && s[4] == '-') ||
			    cl_starts(s, n, "Full thread dump") ||
			    cl_starts(s, n, "JNI global references:"))
				continue;
			cl_bad(st->t.k, s, n);
		}
	}
}

/* A thread not followed by a blank line is not counted, as in the
 * script. */
static void jstack_end(void *arg)
{
	struct jstack_state *st = arg;

	cl_thread_end(&st->t, 0);
	st->state = ST_NONE;
}

static void *jstack_new(const struct ember_collapse_options *o,
			struct collapse_sink *k)
{
	struct jstack_state *st = ember_xcalloc(1, sizeof(*st));

	cl_thread_init(&st->t, o, k);
	return st;
}

static void jstack_free(void *arg)
{
	struct jstack_state *st = arg;

	if (!st)
		return;
	cl_thread_release(&st->t);
	free(st);
}

/* "Full thread dump" or a thread's state line among the first lines. */
static int jstack_detect(const char *p, size_t len)
{
	const char *end = p + len;

	for (int lines = 0; p < end && lines < 200; lines++) {
		const char *s;
		size_t n = cl_line(&p, end, &s), at;
		if (cl_starts(s, n, "Full thread dump ") ||
		    has_dots(s, n, "java.lang.Thread.State: ", &at))
			return 1;
	}
	return 0;
}

const struct ember_collapser ember_collapser_jstack = {
    .name = "jstack",
    .summary = "Java thread dumps, jstack (stackcollapse-jstack.pl)",
    .detect = jstack_detect,
    .state_new = jstack_new,
    .state_free = jstack_free,
    .parse = jstack_parse,
    .end = jstack_end,
};
