/*
 * Off-CPU time: how long each thread of the target waited, charged to the
 * stack at which it stopped running.
 *
 * The sched:sched_switch tracepoint, sampled at every switch (period 1)
 * with the same callchain, registers and stack copy as CPU samples, fires
 * while the thread that leaves the CPU is still current: a task-bound
 * event sees exactly its own switch-outs, with the kernel stack down to
 * __schedule, the user registers saved at syscall entry, and prev_state
 * (S, D, or R when preempted).  The same event asks for context-switch
 * records (context_switch=1); their switch-in record is the moment the
 * thread runs again.  The wait is the difference of the two times, exact
 * to the nanosecond, with no sampling.
 *
 * Where tracefs is not there to name the tracepoint, the context-switches
 * software event stands in: it fires at the same place, with the same
 * stacks, but without prev_state.  Its switch-out record, which follows
 * the sample, still tells a preempted thread (R) apart, so the stack is
 * held until then; every other wait is "[off-cpu: blocked]", sleeping and
 * uninterruptible alike.  Samples tell their event by PERF_SAMPLE_ID.  A
 * thread's exit ends what it waits for: its last switch is no wait.
 *
 * Between the two, the thread's stack (with a last frame naming the
 * state, "[off-cpu: S]") is already in the session's stack table with
 * count 0; `pending` maps the tid to that entry and the switch-out time.
 * The table is open addressing by tid; entries are kept when a wait ends
 * (active = 0), as a thread blocks again and again.
 *
 * With --wall, a thread's CPU samples weigh the time it ran since its
 * previous one, as its switches tell (`ran`, the runs ended since, and
 * the one going on since `in`), not their period: the timer of a thread
 * that switches often fires more often than once per period of its CPU
 * time (twice as often at 40,000 switches a second), and the periods then
 * overlap its waits.  Run and wait split each thread's life at the same
 * moments, the switch-outs and switch-ins.  Where no switch-in was seen
 * (a thread running when the recording starts, records lost), a sample
 * weighs its period.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf/events.h"
#include "perf/samples.h"
#include "perf/offcpu.h"

struct pending {
	int tid; /* 0: empty slot */
	int active;
	int exited;    /* context switches: no more waits */
	int on;	       /* on CPU since `in`, as the switches tell */
	uint64_t time; /* switch-out, ns */
	uint64_t in;   /* switch-in, or the last CPU sample since */
	uint64_t ran;  /* ns on CPU since the last CPU sample, before `in` */
	size_t stack;  /* entry in the session's stacks */
};

#define BLOCKED 9 /* marker index: S or D, not told apart */

struct rec_offcpu {
	uint64_t id; /* the tracepoint's */
	/* where sched_switch's fields are in the raw record */
	size_t pid_off, state_off, state_size;
	uint64_t min_block_ns;
	struct pending *slots;
	size_t mask, used;
	uint32_t marker[11]; /* frame id + 1 per state, 0: not yet */
	/* the context-switches event instead */
	int cs;
	uint64_t *ids; /* its events' ids */
	size_t nids, aids;
	int sorted;
	uint32_t *held; /* a switch-out's stack, until its record */
	size_t nheld, aheld;
	int held_tid; /* 0: none */
	uint64_t held_time;
};

static const char *const tracefs_dirs[] = {
    "/sys/kernel/tracing",
    "/sys/kernel/debug/tracing",
};

static int read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;

	if (fd < 0)
		return -1;
	while (n + 1 < size) {
		ssize_t k = read(fd, buf + n, size - 1 - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	buf[n] = '\0';
	return (int)n;
}

/* "field:TYPE NAME;\toffset:N;\tsize:N;" -> offset and size of NAME */
static int format_field(const char *fmt, const char *name, size_t *off,
			size_t *size)
{
	size_t nl = strlen(name);

	for (const char *p = fmt; (p = strstr(p, "field:")); p++) {
		const char *semi = strchr(p, ';');
		if (!semi || (size_t)(semi - p) < nl + 1 ||
		    memcmp(semi - nl, name, nl) || semi[-(long)nl - 1] != ' ')
			continue;
		const char *o = strstr(semi, "offset:");
		const char *s = strstr(semi, "size:");
		if (!o || !s)
			return -1;
		*off = strtoul(o + 7, NULL, 10);
		*size = strtoul(s + 5, NULL, 10);
		return 0;
	}
	return -1;
}

int rec_offcpu_new_from(struct rec_offcpu **out, const char *id,
			const char *format, uint64_t min_block_us)
{
	struct rec_offcpu *o = ember_xcalloc(1, sizeof(*o));
	size_t sz;

	*out = NULL;
	o->id = strtoull(id, NULL, 10);
	if (!o->id || o->id > 0xffff ||
	    format_field(format, "prev_pid", &o->pid_off, &sz) || sz != 4 ||
	    format_field(format, "prev_state", &o->state_off, &o->state_size) ||
	    (o->state_size != 4 && o->state_size != 8) || o->pid_off > 4096 ||
	    o->state_off > 4096) {
		free(o);
		return EMBER_EINVAL;
	}
	o->min_block_ns = min_block_us * 1000;
	o->mask = 255;
	o->slots = ember_xcalloc(o->mask + 1, sizeof(*o->slots));
	*out = o;
	return 0;
}

/* Reads the tracepoint's id and layout from tracefs, mounting it (as perf
 * does) when nothing is mounted and we may. */
int rec_offcpu_new(struct rec_offcpu **out, uint64_t min_block_us,
		   struct ember_buf *why)
{
	char path[128], id[64], format[4096];
	const char *dir = NULL;

	*out = NULL;
	for (int pass = 0; pass < 2 && !dir; pass++) {
		for (size_t i = 0; i < ARRAY_SIZE(tracefs_dirs) && !dir; i++) {
			snprintf(path, sizeof(path),
				 "%s/events/sched/sched_switch/id",
				 tracefs_dirs[i]);
			if (!access(path, F_OK))
				dir = tracefs_dirs[i];
		}
		if (!dir && !pass &&
		    mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL))
			break;
	}
	if (!dir) {
		ember_buf_addf(why,
			       "the sched:sched_switch tracepoint is not "
			       "available: tracefs is not mounted (mount it "
			       "with 'mount -t tracefs nodev "
			       "/sys/kernel/tracing', or run as root)");
		return EMBER_ENOTSUP;
	}
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", dir);
	if (read_small(path, id, sizeof(id)) <= 0) {
		ember_buf_addf(why,
			       "cannot read '%s': %s (off-CPU profiling "
			       "needs root or CAP_PERFMON)",
			       path, strerror(errno));
		return EMBER_EPERM;
	}
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/format",
		 dir);
	if (read_small(path, format, sizeof(format)) <= 0 ||
	    rec_offcpu_new_from(out, id, format, min_block_us)) {
		ember_buf_addf(why,
			       "cannot read the layout of "
			       "sched:sched_switch from '%s'",
			       path);
		return EMBER_ENOTSUP;
	}
	return 0;
}

int rec_offcpu_new_cs(struct rec_offcpu **out, uint64_t min_block_us)
{
	struct rec_offcpu *o = ember_xcalloc(1, sizeof(*o));

	o->cs = 1;
	o->min_block_ns = min_block_us * 1000;
	o->mask = 255;
	o->slots = ember_xcalloc(o->mask + 1, sizeof(*o->slots));
	*out = o;
	return 0;
}

int rec_offcpu_states(const struct rec_offcpu *o)
{
	return !o->cs;
}

void rec_offcpu_free(struct rec_offcpu *o)
{
	if (!o)
		return;
	free(o->slots);
	free(o->ids);
	free(o->held);
	free(o);
}

void rec_offcpu_attr(const struct rec_offcpu *o, struct perf_event_attr *a)
{
	if (o->cs) {
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	} else {
		a->type = PERF_TYPE_TRACEPOINT;
		a->config = o->id;
	}
	a->freq = 0;
	a->sample_period = 1;
	/* the tracepoint fires in the kernel: excluding it drops them all */
	a->exclude_kernel = 0;
	a->context_switch = 1;
}

void rec_offcpu_add_id(struct rec_offcpu *o, uint64_t id)
{
	EMBER_GROW(o->ids, o->nids + 1, o->aids);
	o->ids[o->nids++] = id;
	o->sorted = 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int rec_offcpu_is_switch(struct rec_offcpu *o, const void *raw, size_t n,
			 uint64_t id)
{
	uint16_t type;

	if (o && o->cs) {
		/* one event per CPU, and per thread with -p */
		if (!o->sorted)
			qsort(o->ids, o->nids, sizeof(*o->ids), cmp_u64);
		o->sorted = 1;
		return bsearch(&id, o->ids, o->nids, sizeof(*o->ids),
			       cmp_u64) != NULL;
	}
	if (!o || !raw || n < 2)
		return 0;
	memcpy(&type, raw, 2);
	return type == o->id && n >= o->state_off + o->state_size &&
	       n >= o->pid_off + 4;
}

static struct pending *slot(struct rec_offcpu *o, int tid)
{
	size_t i = ((uint32_t)tid * 0x9e3779b1u) & o->mask;

	while (o->slots[i].tid && o->slots[i].tid != tid)
		i = (i + 1) & o->mask;
	if (!o->slots[i].tid) {
		if ((o->used + 1) * 2 > o->mask) {
			struct pending *old = o->slots;
			size_t n = o->mask + 1;
			o->mask = o->mask * 2 + 1;
			o->slots = ember_xcalloc(o->mask + 1, sizeof(*old));
			for (size_t k = 0; k < n; k++)
				if (old[k].tid)
					*slot(o, old[k].tid) = old[k];
			free(old);
			return slot(o, tid);
		}
		o->slots[i].tid = tid;
		o->used++;
	}
	return &o->slots[i];
}

/* prev_state as sched_switch prints it: the first of its flags, or R
 * (preempted, or yielding) */
static int state_index(uint64_t state)
{
	state &= 0xff;
	for (int i = 0; i < 8; i++)
		if (state & (1u << i))
			return i + 1;
	return 0;
}

static uint32_t marker(struct rec_events *r, int idx)
{
	static const char *const names[] = {
	    "[off-cpu: R]", "[off-cpu: S]",	 "[off-cpu: D]", "[off-cpu: T]",
	    "[off-cpu: t]", "[off-cpu: X]",	 "[off-cpu: Z]", "[off-cpu: P]",
	    "[off-cpu: I]", "[off-cpu: blocked]"};
	struct rec_offcpu *o = r->off;

	if (!o->marker[idx]) {
		uint32_t id =
		    ember_intern(&r->roots, names[idx], strlen(names[idx]));
		o->marker[idx] =
		    rec_frames_id(&r->frames, REC_FRAME_ROOT, id, 0) + 1;
	}
	return o->marker[idx] - 1;
}

/* A wait begins at time, at stack ids (room for one more), in state
 * idx. */
static void wait_out(struct rec_events *r, int tid, uint64_t time, int idx,
		     uint32_t *ids, size_t n)
{
	ids[n++] = marker(r, idx);
	struct pending *p = slot(r->off, tid);
	p->active = 1;
	p->time = time;
	p->stack = ember_stacks_add(&r->stacks, ids, n, 0, 0);
	r->stats->switches++;
}

/* Context switches: the stack held is a wait, preempted or blocked. */
static void unhold(struct rec_events *r, int preempted)
{
	struct rec_offcpu *o = r->off;

	if (!o->held_tid)
		return;
	wait_out(r, o->held_tid, o->held_time, preempted ? 0 : BLOCKED, o->held,
		 o->nheld);
	o->held_tid = 0;
}

void rec_offcpu_switch_out(struct rec_events *r, int tid, int preempted)
{
	struct rec_offcpu *o = r->off;

	if (o->cs && o->held_tid == tid)
		unhold(r, preempted);
}

void rec_offcpu_exit(struct rec_events *r, int tid)
{
	struct rec_offcpu *o = r->off;

	if (!o->cs || !tid)
		return;
	struct pending *p = slot(o, tid);
	p->active = 0;
	p->exited = 1;
	if (o->held_tid == tid)
		o->held_tid = 0;
}

void rec_offcpu_fork(struct rec_events *r, int tid)
{
	struct rec_offcpu *o = r->off;
	size_t i = ((uint32_t)tid * 0x9e3779b1u) & o->mask;

	/* a thread id used again */
	while (o->slots[i].tid && o->slots[i].tid != tid)
		i = (i + 1) & o->mask;
	if (o->slots[i].tid == tid) {
		o->slots[i].exited = 0;
		o->slots[i].on = 0;
		o->slots[i].ran = 0;
	}
}

/* A thread leaves the CPU at time: what it ran since it came on counts
 * towards its next CPU sample. */
static void leaves(struct rec_offcpu *o, int tid, uint64_t time)
{
	struct pending *p = slot(o, tid);

	if (p->on && time > p->in)
		p->ran += time - p->in;
	p->on = 0;
}

void rec_offcpu_out(struct rec_events *r, int tid, uint64_t time,
		    const void *raw, size_t rawlen, uint32_t *ids, size_t n)
{
	struct rec_offcpu *o = r->off;
	uint64_t state = 0;
	int32_t prev;

	(void)rawlen;
	if (tid)
		leaves(o, tid, time);
	if (o->cs) {
		/* the switch-out record of the one before is missing */
		unhold(r, 0);
		if (!tid || slot(o, tid)->exited)
			return;
		EMBER_GROW(o->held, n + 1, o->aheld);
		memcpy(o->held, ids, n * sizeof(*ids));
		o->nheld = n;
		o->held_tid = tid;
		o->held_time = time;
		return;
	}
	memcpy(&prev, (const char *)raw + o->pid_off, 4);
	if (o->state_size == 8) {
		memcpy(&state, (const char *)raw + o->state_off, 8);
	} else {
		uint32_t s32;
		memcpy(&s32, (const char *)raw + o->state_off, 4);
		state = s32;
	}
	if (prev != tid || !tid)
		return; /* not the target's own switch (or the idle task) */
	int idx = state_index(state);
	if (idx == 5 || idx == 6)
		return; /* X, Z: the thread's last switch, as it exits */
	wait_out(r, tid, time, idx, ids, n);
}

static void charge(struct rec_events *r, struct pending *p, uint64_t time)
{
	uint64_t d = time > p->time ? time - p->time : 0;

	p->active = 0;
	if (d < r->off->min_block_ns || !d) {
		r->stats->short_waits++;
		return;
	}
	r->stacks.ents[p->stack].count += (double)d;
	if (r->prof)
		rec_prof_wait(r, p->tid, p->time, d, (uint32_t)p->stack);
	r->stats->waits++;
	r->stats->offcpu_ns += d;
}

void rec_offcpu_in(struct rec_events *r, int tid, uint64_t time)
{
	if (!tid)
		return;
	struct pending *p = slot(r->off, tid);
	if (p->active)
		charge(r, p, time);
	p->on = 1;
	p->in = time;
}

double rec_offcpu_ran(struct rec_events *r, int tid, uint64_t time,
		      uint64_t period)
{
	double w = (double)period;

	if (!tid)
		return w;
	struct pending *p = slot(r->off, tid);
	if (p->on) {
		w = (double)(p->ran + (time > p->in ? time - p->in : 0));
		p->ran = 0;
	}
	/* running now, whatever the records said */
	p->on = 1;
	p->in = time;
	return w;
}

void rec_offcpu_lost(struct rec_events *r)
{
	struct rec_offcpu *o = r->off;

	o->held_tid = 0;
	/* a wait may have ended, and the thread run and blocked again,
	 * in what was lost: never charge what cannot be known */
	for (size_t i = 0; i <= o->mask; i++)
		if (o->slots[i].tid) {
			if (o->slots[i].active)
				r->stats->lost_waits++;
			o->slots[i].active = 0;
			o->slots[i].on = 0;
			o->slots[i].ran = 0;
		}
}

void rec_offcpu_finish(struct rec_events *r, uint64_t end)
{
	struct rec_offcpu *o = r->off;

	unhold(r, 0);
	/* still waiting when recording stopped: up to then */
	for (size_t i = 0; i <= o->mask; i++)
		if (o->slots[i].tid && o->slots[i].active)
			charge(r, &o->slots[i], end);
}
