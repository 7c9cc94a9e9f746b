/*
 * The interpreter frames' BPF program, seen from the session: loading it
 * (embedded in ember as a libbpf skeleton), running it on each sampling
 * event, configuring one map entry per process that runs an interpreter
 * ember reads (detected from the processes' mapped files as the consumer
 * learns of them), and draining its ring buffer into the consumer's
 * merge.  Built without libbpf, every call says so.
 */
#include <errno.h>
#include <stdio.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "perf/events.h"
#include "perf/interp.h"
#include "record/interp.h"
#include "symbols/procfs.h"

#ifdef EMBER_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "interp.skel.h"
#endif

/* Whether p maps a file some interpreter reader may read. */
static int maybe_interp(const struct rec_proc *p)
{
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct rec_dso *d = p->maps[i].dso;
		if (d && d->base && rec_interp_maybe(d->base))
			return 1;
	}
	return 0;
}

struct rec_interp_bpf {
#ifdef EMBER_BPF
	struct interp_bpf *skel;
	struct ring_buffer *rb;
#endif
	uint8_t *seen; /* by process instance id: 1 looked at */
	size_t nseen;
	size_t *nmaps; /* the mappings it had when looked at */
	uint8_t *tries;
	unsigned calls;
	int *pids; /* configured in the program */
	size_t npids, apids;
	/* processes the program told of, to look at (pid, comm) */
	struct ask {
		int pid;
		char comm[16];
	} * asks;
	size_t nasks, aasks;
	int *retried; /* pid, times told again, ... */
	size_t nretried, aretried;
	struct rec_events *ev;
	size_t procs;
	int child_tries; /* the command looked at directly */
	char why[256];
};

#ifndef EMBER_BPF

int rec_interp_bpf_new(struct rec_interp_bpf **out, struct ember_buf *why)
{
	*out = NULL;
	ember_buf_adds(why, "ember was built without BPF (clang, bpftool or "
			    "libbpf-dev missing at build time)");
	return EMBER_ENOTSUP;
}

void rec_interp_bpf_free(struct rec_interp_bpf *b)
{
	free(b);
}

int rec_interp_bpf_attach(struct rec_interp_bpf *b, int fd,
			  struct ember_buf *why)
{
	return EMBER_ENOTSUP;
}

void rec_interp_bpf_update(struct rec_interp_bpf *b, struct rec_events *ev,
			   int child)
{
}

void rec_interp_bpf_poll(struct rec_interp_bpf *b, struct rec_events *ev)
{
}

void rec_interp_bpf_counts(struct rec_interp_bpf *b, uint64_t out[4])
{
	memset(out, 0, 4 * sizeof(*out));
}

size_t rec_interp_bpf_procs(const struct rec_interp_bpf *b, const char **why)
{
	*why = NULL;
	return 0;
}

#else

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

int rec_interp_bpf_new(struct rec_interp_bpf **out, struct ember_buf *why)
{
	struct rec_interp_bpf *b;
	const char *no;
	int err;

	*out = NULL;
	if (!rec_libbpf_ready(&no)) {
		ember_buf_adds(why, no);
		return EMBER_ENOTSUP;
	}
	b = ember_xcalloc(1, sizeof(*b));
	libbpf_set_print(quiet);
	b->skel = interp_bpf__open();
	if (!b->skel) {
		ember_buf_addf(why, "cannot open the BPF program: %s",
			       strerror(errno));
		free(b);
		return EMBER_ENOTSUP;
	}
	err = interp_bpf__load(b->skel);
	if (err) {
		int e = -err;
		ember_buf_addf(why, "cannot load the BPF program: %s%s",
			       strerror(e),
			       e == EPERM || e == EACCES
				   ? " (Python frames need BPF: root, or "
				     "CAP_BPF and CAP_PERFMON, on Linux 5.8 "
				     "or later)"
			       : e == EINVAL || e == ENOSYS
				   ? " (it needs Linux 5.8 or later)"
				   : "");
		interp_bpf__destroy(b->skel);
		free(b);
		return e == EPERM || e == EACCES ? EMBER_EPERM : EMBER_ENOTSUP;
	}
	*out = b;
	return 0;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct rec_interp_bpf *b = ctx;
	struct ember_interp_sample s;
	const size_t head = offsetof(struct ember_interp_sample, frames);

	if (size >= head) {
		memcpy(&s, data, head);
		if (s.flags & EMBER_INTERP_ASK) {
			if (size < head + 16)
				return 0;
			EMBER_GROW(b->asks, b->nasks + 1, b->aasks);
			struct ask *a = &b->asks[b->nasks++];
			a->pid = (int)s.pid;
			memcpy(a->comm, (const char *)data + head, 16);
			a->comm[15] = '\0';
			return 0;
		}
	}
	if (b->ev->interp)
		rec_interp_merge_add(b->ev->interp, data, size);
	return 0;
}

void rec_interp_bpf_free(struct rec_interp_bpf *b)
{
	if (!b)
		return;
	ring_buffer__free(b->rb);
	interp_bpf__destroy(b->skel);
	free(b->seen);
	free(b->nmaps);
	free(b->tries);
	free(b->pids);
	free(b->asks);
	free(b->retried);
	free(b);
}

int rec_interp_bpf_attach(struct rec_interp_bpf *b, int fd,
			  struct ember_buf *why)
{
	int prog = bpf_program__fd(b->skel->progs.ember_interp_sample);

	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog)) {
		ember_buf_addf(why,
			       "cannot run the BPF program on the sampling "
			       "event: %s",
			       strerror(errno));
		return EMBER_ENOTSUP;
	}
	return 0;
}

/* Whether pid is configured with an interpreter the merge holds. */
static int configured(struct rec_interp_bpf *b, struct rec_events *ev, int pid,
		      const struct rec_proc *p)
{
	for (size_t i = 0; i < b->npids; i++)
		if (b->pids[i] == pid)
			return rec_interp_merge_has_pid(ev->interp, pid) ||
			       (p && rec_interp_merge_proc(ev->interp, p->id));
	return 0;
}

/* Looks at p: 0 configured, EMBER_ENOENT not (yet) an interpreter,
 * another error when it is one ember does not read. */
static int configure(struct rec_interp_bpf *b, struct rec_events *ev,
		     struct rec_proc *p, int pid)
{
	struct ember_buf why = EMBER_BUF_INIT;
	struct rec_interp_proc *ip;
	int procfd = rec_procfs_open(pid, 0);

	if (procfd < 0)
		return EMBER_ENOENT;
	int err = rec_interp_detect(pid, procfd, &ip, &why);
	close(procfd);
	if (err) {
		if (err != EMBER_ENOENT && !b->why[0])
			snprintf(b->why, sizeof(b->why), "%s", why.buf);
		ember_buf_release(&why);
		return err;
	}
	ember_buf_release(&why);
	__u32 key = (__u32)pid;
	if (bpf_map__update_elem(b->skel->maps.interp_cfg, &key, sizeof(key),
				 &ip->cfg, sizeof(ip->cfg), BPF_ANY)) {
		rec_interp_proc_free(ip);
		return EMBER_EIO;
	}
	size_t i = 0;
	while (i < b->npids && b->pids[i] != pid)
		i++;
	if (i == b->npids) {
		EMBER_GROW(b->pids, b->npids + 1, b->apids);
		b->pids[b->npids++] = pid;
		b->procs++;
	}
	if (p)
		rec_interp_merge_add_proc(ev->interp, p->id, ip);
	else
		rec_interp_merge_add_pid(ev->interp, pid, ip);
	return 0;
}

void rec_interp_bpf_update(struct rec_interp_bpf *b, struct rec_events *ev,
			   int child)
{
	struct rec_world *w = &ev->world;

	if (!ev->interp)
		ev->interp = rec_interp_merge_new();
	b->calls++;
	/* the command, looked at directly for its first seconds, before its
	 * records tell it mapped an interpreter: its first samples get
	 * their frames too */
	if (child > 0 && b->child_tries >= 0 && b->child_tries++ < 100 &&
	    !configured(b, ev, child, rec_world_find_proc(w, child)) &&
	    configure(b, ev, NULL, child) != EMBER_ENOENT)
		b->child_tries = -1;
	if (w->nprocs > b->nseen) {
		b->seen = ember_xrealloc(b->seen, w->nprocs);
		b->nmaps =
		    ember_xrealloc(b->nmaps, w->nprocs * sizeof(*b->nmaps));
		memset(b->seen + b->nseen, 0, w->nprocs - b->nseen);
		b->tries = ember_xrealloc(b->tries, w->nprocs);
		memset(b->tries + b->nseen, 0, w->nprocs - b->nseen);
		memset(b->nmaps + b->nseen, 0,
		       (w->nprocs - b->nseen) * sizeof(*b->nmaps));
		b->nseen = w->nprocs;
	}
	for (size_t i = 0; i < w->nprocs; i++) {
		struct rec_proc *p = w->procs[i];
		/* a process of the interpreter's files not read at first is
		 * looked at again, now and then, a few times */
		int again = !(b->calls % 25) && b->tries[i] < 8;
		if (b->seen[i] || p->exited ||
		    (p->nmaps == b->nmaps[i] && !again))
			continue;
		b->tries[i] += again;
		/* looked at again when it maps more, until it is one */
		b->nmaps[i] = p->nmaps;
		if (!maybe_interp(p))
			continue;
		b->seen[i] = configured(b, ev, p->pid, p) ||
			     configure(b, ev, p, p->pid) != EMBER_ENOENT;
	}
	/* a pid that exec'd something else keeps no configuration */
	for (size_t i = 0; i < b->npids; i++) {
		struct rec_proc *p = rec_world_find_proc(w, b->pids[i]);
		if ((p && rec_interp_merge_proc(ev->interp, p->id)) ||
		    rec_interp_merge_has_pid(ev->interp, b->pids[i]))
			continue;
		__u32 key = (__u32)b->pids[i];
		bpf_map__delete_elem(b->skel->maps.interp_cfg, &key,
				     sizeof(key), 0);
		b->pids[i--] = b->pids[--b->npids];
	}
	rec_interp_bpf_poll(b, ev);
}

void rec_interp_bpf_poll(struct rec_interp_bpf *b, struct rec_events *ev)
{
	if (!ev->interp)
		ev->interp = rec_interp_merge_new();
	b->ev = ev;
	if (!b->rb)
		b->rb =
		    ring_buffer__new(bpf_map__fd(b->skel->maps.interp_events),
				     on_record, b, NULL);
	if (b->rb)
		ring_buffer__consume(b->rb);
	/* the processes sampled but not configured, looked at directly:
	 * an interpreter started meanwhile gets its frames from now on,
	 * before its records are read */
	for (size_t i = 0; i < b->nasks; i++) {
		const struct ask *a = &b->asks[i];
		size_t k = 0;
		while (k < b->npids && b->pids[k] != a->pid)
			k++;
		if (k < b->npids ||
		    configure(b, ev, NULL, a->pid) != EMBER_ENOENT ||
		    !rec_interp_maybe(a->comm))
			continue;
		/* named like an interpreter, not one yet (its libraries
		 * still loading): told again at a later sample, a few
		 * times */
		k = 0;
		while (k < b->nretried && b->retried[k] != a->pid)
			k += 2;
		if (k == b->nretried) {
			EMBER_GROW(b->retried, b->nretried + 2, b->aretried);
			b->retried[b->nretried++] = a->pid;
			b->retried[b->nretried++] = 0;
		}
		if (b->retried[k + 1]++ >= 20)
			continue;
		struct {
			__u32 pid;
			char comm[16];
		} key;
		memset(&key, 0, sizeof(key));
		key.pid = (__u32)a->pid;
		memcpy(key.comm, a->comm, sizeof(key.comm));
		bpf_map__delete_elem(b->skel->maps.interp_asked, &key,
				     sizeof(key), 0);
	}
	b->nasks = 0;
}

void rec_interp_bpf_counts(struct rec_interp_bpf *b, uint64_t out[4])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v = ember_xcalloc(ncpu > 0 ? (size_t)ncpu : 1, sizeof(*v));

	for (__u32 k = 0; k < 4; k++) {
		out[k] = 0;
		if (ncpu <= 0 || bpf_map__lookup_elem(
				     b->skel->maps.interp_stats, &k, sizeof(k),
				     v, (size_t)ncpu * sizeof(*v), 0))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[k] += v[c];
	}
	free(v);
}

size_t rec_interp_bpf_procs(const struct rec_interp_bpf *b, const char **why)
{
	*why = b->why[0] ? b->why : NULL;
	return b->procs;
}

#endif

void rec_interp_finish(struct rec_interp_bpf *b, struct rec_events *ev,
		       struct ember_record_stats *st, char *off)
{
	const struct rec_interp_stats *is =
	    ev->interp ? rec_interp_merge_stats(ev->interp) : NULL;
	const char *why = NULL;
	int seen = 0;

	if (b) {
		uint64_t c[4];
		rec_interp_bpf_counts(b, c);
		st->interp_no_tstate = c[1];
		st->interp_ring_full = c[3];
		st->interp_procs = rec_interp_bpf_procs(b, &why);
		if (why)
			snprintf(off, 256, "%s", why);
	}
	if (is) {
		st->interp_samples = is->samples;
		st->interp_merged = is->merged;
		st->interp_eval = is->eval;
		st->interp_eval_merged = is->eval_merged;
		st->interp_unmatched = is->unmatched;
		st->interp_mismatched = is->mismatched;
	}
	for (size_t i = 0; i < ev->world.nprocs && !seen; i++)
		seen = maybe_interp(ev->world.procs[i]);
	if (off[0] && !st->interp_procs && seen) {
		st->interp_off = off;
		ember_log(EMBER_LOG_WARN,
			  "Python frames were not read: %s; stacks show the "
			  "interpreter's C frames only",
			  off);
	}
}
