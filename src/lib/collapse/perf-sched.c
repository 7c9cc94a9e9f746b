/*
 * Off-CPU time from perf's scheduler events, as stackcollapse-perf-sched.awk
 * folds `perf script` of sched:sched_switch and sched:sched_stat_sleep /
 * sched_stat_blocked: a task's stack when it switches out, keyed by its
 * pid, is charged the delay of the stat event that reports it waking
 * (in microseconds, rounded down), under the task's name; with
 * record_wake_stack the waker's stack and name follow, and with recurse
 * the waker's own last sleep, as a chain.
 *
 * The awk script's rules run on every line in turn, and so here: a line
 * may both open an event and be a frame of another (perf's comm column is
 * right-aligned).  A pid is "set" as the script's string compares it:
 * anything but "0" after an event line, nothing after a blank line.
 * State by pid: the stack of its last switch (until a wakeup takes it),
 * the chain of its last wakeup (recurse), and whether a wakeup of it was
 * seen (recurse's "last_wake_time[waker] > last_switch_time[...]", an
 * array the script never fills).  Memory: by pid and distinct stack.
 */
#include <stdlib.h>

#include "collapse.h"

struct pid_ent {
	struct ember_buf switch_stack, chain;
	int has_switch, woken;
};

struct sched_state {
	struct collapse_sink *k;
	int record_tid, record_wake_stack, recurse;
	struct ember_intern pids;
	struct pid_ent *ents;
	size_t aents;
	struct ember_intern stacks; /* stack_times' keys */
	double *times;
	size_t atimes;
	/* the switch being read */
	int sw_set;
	struct ember_buf sw_pid;
	struct cl_revjoin sw_stack; /* built by prepending */
	/* the wakeup being read */
	int st_set;
	struct ember_buf st_pid, st_comm, wake_comm, wake_pid, wake_stack;
	int wake_time; /* get_perf_timestamp() was not empty */
	double delay;
	struct ember_buf tmp, key;
};

static struct pid_ent *pid_ent(struct sched_state *st, const char *s, size_t n)
{
	uint32_t id = ember_intern(&st->pids, s, n);

	if (id >= st->aents) {
		size_t o = st->aents;
		EMBER_GROW(st->ents, (size_t)id + 1, st->aents);
		memset(st->ents + o, 0, (st->aents - o) * sizeof(*st->ents));
		for (size_t i = o; i < st->aents; i++) {
			ember_buf_init(&st->ents[i].switch_stack, 0);
			ember_buf_init(&st->ents[i].chain, 0);
		}
	}
	return &st->ents[id];
}

/* match($0, v "=[^[:space:]]+"): the value after the first "v=" that
 * has one ("" if none). */
static void captured(const char *s, size_t n, const char *v,
		     struct ember_buf *out)
{
	size_t m = strlen(v);

	ember_buf_reset(out);
	for (const char *p = s; p + m + 1 < s + n;) {
		const char *q = memmem(p, (size_t)(s + n - p), v, m);
		if (!q || q + m + 1 >= s + n)
			return;
		if (q[m] == '=' && !cl_space((unsigned char)q[m + 1])) {
			const char *e = q + m + 1;
			while (e < s + n && !cl_space((unsigned char)*e))
				e++;
			ember_buf_add(out, q + m + 1, (size_t)(e - q - m - 1));
			return;
		}
		p = q + 1;
	}
}

/* match($0, " [^ :]+:") found something */
static int has_timestamp(const char *s, size_t n)
{
	for (size_t i = 0; i + 2 < n; i++) {
		if (s[i] != ' ')
			continue;
		size_t j = i + 1;
		while (j < n && s[j] != ' ' && s[j] != ':')
			j++;
		if (j > i + 1 && j < n && s[j] == ':')
			return 1;
	}
	return 0;
}

/* awk's fields: runs of anything but blanks, tabs (and newlines) */
static size_t fields(const char *s, size_t n, const char **f, size_t *fl,
		     size_t max)
{
	size_t nf = 0, i = 0;

	for (;;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == n)
			return nf;
		size_t a = i;
		while (i < n && s[i] != ' ' && s[i] != '\t')
			i++;
		if (nf < max) {
			f[nf] = s + a;
			fl[nf] = i - a;
		}
		nf++;
	}
}

/* get_function_name(): $2 ... $(NF-1), joined by one blank ($2 alone
 * when NF is 2, "" when less) */
static void function_name(const char *s, size_t n, struct ember_buf *out)
{
	const char *f[256];
	size_t fl[256];
	size_t nf = fields(s, n, f, fl, 256);

	ember_buf_reset(out);
	if (nf > 256)
		nf = 256; /* a frame line of 256 words: cut there */
	if (nf >= 2)
		ember_buf_add(out, f[1], fl[1]);
	for (size_t i = 2; i + 1 < nf; i++) {
		ember_buf_addch(out, ' ');
		ember_buf_add(out, f[i], fl[i]);
	}
}

static int is_set(const struct ember_buf *pid)
{
	return !(pid->len == 1 && pid->buf[0] == '0');
}

static void stat_done(struct sched_state *st)
{
	struct pid_ent *e = pid_ent(st, st->st_pid.buf, st->st_pid.len);
	struct ember_buf *stack = &st->key;

	if (!e->has_switch)
		return;
	e->woken = st->wake_time;
	ember_buf_reset(stack);
	ember_buf_add(stack, e->switch_stack.buf, e->switch_stack.len);
	if (st->recurse || st->record_wake_stack) {
		ember_buf_addch(stack, ';');
		ember_buf_add(stack, st->wake_stack.buf, st->wake_stack.len);
		ember_buf_addch(stack, ';');
		ember_buf_add(stack, st->wake_comm.buf, st->wake_comm.len);
		if (st->record_tid) {
			ember_buf_addch(stack, '-');
			ember_buf_add(stack, st->wake_pid.buf,
				      st->wake_pid.len);
		}
	}
	if (st->recurse) {
		struct pid_ent *w =
		    pid_ent(st, st->wake_pid.buf, st->wake_pid.len);
		e = pid_ent(st, st->st_pid.buf, st->st_pid.len);
		if (w->woken) {
			ember_buf_add(stack, ";-;", 3);
			ember_buf_add(stack, w->chain.buf, w->chain.len);
		}
		ember_buf_reset(&e->chain);
		ember_buf_add(&e->chain, stack->buf, stack->len);
	}
	e->has_switch = 0;
	ember_buf_reset(&e->switch_stack);
	/* stack_times[comm[-pid] ";" stack] += delay */
	ember_buf_reset(&st->tmp);
	ember_buf_add(&st->tmp, st->st_comm.buf, st->st_comm.len);
	if (st->record_tid) {
		ember_buf_addch(&st->tmp, '-');
		ember_buf_add(&st->tmp, st->st_pid.buf, st->st_pid.len);
	}
	ember_buf_addch(&st->tmp, ';');
	ember_buf_add(&st->tmp, stack->buf, stack->len);
	uint32_t id = ember_intern(&st->stacks, st->tmp.buf, st->tmp.len);
	if (id >= st->atimes) {
		size_t o = st->atimes;
		EMBER_GROW(st->times, (size_t)id + 1, st->atimes);
		memset(st->times + o, 0, (st->atimes - o) * sizeof(*st->times));
	}
	st->times[id] += st->delay;
}

/* awk's int(): towards zero */
static double trunc0(double d)
{
	return d < 0 ? -__builtin_floor(-d) : __builtin_floor(d);
}

/* awk's int() of a string: the decimal number at its start (no hex, no
 * "inf" or "nan", as gawk reads input) */
static double awk_int(const char *s)
{
	char num[64];
	size_t i = 0, m = 0;

	while (s[i] == ' ' || s[i] == '\t')
		i++;
	if (s[i] == '+' || s[i] == '-')
		num[m++] = s[i++];
	while (m < sizeof(num) - 8 &&
	       (cl_digit((unsigned char)s[i]) || s[i] == '.'))
		num[m++] = s[i++];
	if ((s[i] == 'e' || s[i] == 'E') &&
	    (cl_digit((unsigned char)s[i + 1]) ||
	     ((s[i + 1] == '+' || s[i + 1] == '-') &&
	      cl_digit((unsigned char)s[i + 2])))) {
		num[m++] = s[i++];
		num[m++] = s[i++];
		while (m < sizeof(num) - 1 && cl_digit((unsigned char)s[i]))
			num[m++] = s[i++];
	}
	num[m] = '\0';
	return trunc0(strtod(num, NULL));
}

static void line(struct sched_state *st, const char *s, size_t n)
{
	int comment = n && s[0] == '#';
	int frame = n && cl_space((unsigned char)s[0]);

	if (!comment && memmem(s, n, "sched:sched_switch", 18)) {
		captured(s, n, "prev_pid", &st->sw_pid);
		st->sw_set = is_set(&st->sw_pid);
		cl_revjoin_set(&st->sw_stack, "", 0);
	}
	if (st->sw_set && frame) {
		/* switchstack = name ";" switchstack, or name if empty */
		function_name(s, n, &st->tmp);
		if (cl_revjoin_len(&st->sw_stack))
			cl_revjoin_prepend(&st->sw_stack, st->tmp.buf,
					   st->tmp.len);
		else
			cl_revjoin_set(&st->sw_stack, st->tmp.buf, st->tmp.len);
	}
	if (st->sw_set && !n) {
		struct pid_ent *e = pid_ent(st, st->sw_pid.buf, st->sw_pid.len);
		ember_buf_reset(&e->switch_stack);
		cl_revjoin_write(&st->sw_stack, &e->switch_stack);
		e->has_switch = 1;
		ember_buf_reset(&e->chain); /* delete last_switch_stacks[] */
		st->sw_set = 0;
		cl_revjoin_set(&st->sw_stack, "", 0);
	}
	if (!comment && (memmem(s, n, "sched:sched_stat_sleep", 22) ||
			 memmem(s, n, "sched:sched_stat_blocked", 24))) {
		const char *f[2];
		size_t fl[2], nf = fields(s, n, f, fl, 2);
		ember_buf_reset(&st->wake_comm);
		ember_buf_reset(&st->wake_pid);
		if (nf >= 1)
			ember_buf_add(&st->wake_comm, f[0], fl[0]);
		if (nf >= 2)
			ember_buf_add(&st->wake_pid, f[1], fl[1]);
		st->wake_time = has_timestamp(s, n);
		captured(s, n, "comm", &st->st_comm);
		captured(s, n, "pid", &st->st_pid);
		captured(s, n, "delay", &st->tmp);
		st->delay = awk_int(st->tmp.buf);
		st->st_set = is_set(&st->st_pid);
		ember_buf_reset(&st->wake_stack);
	}
	if (st->st_set && frame) {
		function_name(s, n, &st->tmp);
		if (st->wake_stack.len)
			ember_buf_addch(&st->wake_stack, ';');
		ember_buf_add(&st->wake_stack, st->tmp.buf, st->tmp.len);
	}
	if (st->st_set && !n) {
		stat_done(st);
		st->st_set = 0;
		ember_buf_reset(&st->wake_comm);
		ember_buf_reset(&st->wake_pid);
		ember_buf_reset(&st->st_comm);
	}
}

static void sched_parse(void *arg, const char *p, size_t len)
{
	struct sched_state *st = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		st->k->n.lines++;
		line(st, s, n);
	}
}

/* The END block: each stack with a whole microsecond or more. */
static void sched_end(void *arg)
{
	struct sched_state *st = arg;
	size_t n = ember_intern_count(&st->stacks);
	struct cl_frames v = {0};

	for (size_t i = 0; i < n; i++) {
		double us = trunc0(st->times[i] / 1000);
		if (!(us > 0))
			continue;
		size_t kn;
		const char *key =
		    ember_intern_str(&st->stacks, (uint32_t)i, &kn);
		v.n = 0;
		cl_frames_push(st->k, &v, key, kn);
		cl_add_u64(st->k, v.f, v.n,
			   us < 18446744073709551616.0 ? (uint64_t)us
						       : UINT64_MAX - 1);
	}
	free(v.f);
	ember_intern_release(&st->stacks);
	ember_intern_init(&st->stacks);
	if (st->atimes)
		memset(st->times, 0, st->atimes * sizeof(*st->times));
}

static void *sched_new(const struct ember_collapse_options *o,
		       struct collapse_sink *k)
{
	struct sched_state *st = ember_xcalloc(1, sizeof(*st));
	struct ember_buf *bufs[] = {
	    &st->sw_pid,   &st->st_pid,	    &st->st_comm, &st->wake_comm,
	    &st->wake_pid, &st->wake_stack, &st->tmp,	  &st->key};

	st->k = k;
	st->record_tid = o->sched_record_tid;
	st->record_wake_stack = o->sched_record_wake_stack;
	st->recurse = o->sched_recurse;
	ember_intern_init(&st->pids);
	ember_intern_init(&st->stacks);
	for (size_t i = 0; i < ARRAY_SIZE(bufs); i++)
		ember_buf_init(bufs[i], 0);
	cl_revjoin_init(&st->sw_stack);
	return st;
}

static void sched_free(void *arg)
{
	struct sched_state *st = arg;

	if (!st)
		return;
	struct ember_buf *bufs[] = {
	    &st->sw_pid,   &st->st_pid,	    &st->st_comm, &st->wake_comm,
	    &st->wake_pid, &st->wake_stack, &st->tmp,	  &st->key};
	for (size_t i = 0; i < ARRAY_SIZE(bufs); i++)
		ember_buf_release(bufs[i]);
	cl_revjoin_release(&st->sw_stack);
	for (size_t i = 0; i < st->aents; i++) {
		ember_buf_release(&st->ents[i].switch_stack);
		ember_buf_release(&st->ents[i].chain);
	}
	free(st->ents);
	free(st->times);
	ember_intern_release(&st->pids);
	ember_intern_release(&st->stacks);
	free(st);
}

const struct ember_collapser ember_collapser_perf_sched = {
    .name = "perf-sched",
    .summary = "off-CPU time from perf script of sched_switch and "
	       "sched_stat_* events (stackcollapse-perf-sched.awk)",
    .detect = NULL, /* perf script text: perf's own (guess gives perf) */
    .state_new = sched_new,
    .state_free = sched_free,
    .parse = sched_parse,
    .end = sched_end,
};
