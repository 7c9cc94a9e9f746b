/*
 * A recording session: checks the options, opens one sampling event per
 * CPU and target (a command held before exec, the threads of running
 * processes, or every CPU), maps one ring buffer per CPU (the other events
 * of that CPU write into it), which a thread of their own empties
 * (reader.c), and hands the records in time order (perf/order.c) to the
 * consumer of records (perf/events.c); names come once
 * recording stops (perf/symbolize.c).  The session's state is private to this
 * file: the other modules get only what they use.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "perf/events.h"
#include "record/interp.h"
#include "record/java.h"
#include "symbols/jitdump.h"
#include "perf/offcpu.h"
#include "perf/order.h"
#include "record/reader.h"
#include "record/ring.h"
#include "perf/samples.h"
#include "perf/symbolize.h"
#include "record/target.h"
#include "symbols/procfs.h"

#define DEFAULT_PAGES 128  /* 512 KiB per CPU: frame-pointer samples */
#define DWARF_PAGES   2048 /* 8 MiB per CPU: 250 ms of 32 KiB samples */
/* x86-64 perf_regs: what CFI rules use, the callee-saved registers
 * (bx, bp, sp, ip, r12-r15) */
#define REGS_MASK 0xf001c2ull
#define POLL_MS	  100
/* seconds a command has to end after its interrupt, then after SIGTERM */
#define GRACE_S EMBER_RECORD_GRACE
#define TERM_S	2
/* records read and not yet handled, at most (bytes) */
#define BACKLOG (512u << 20)

/* The session. */
struct ember_record {
	struct ember_record_options o;
	char **argv;
	int *pids;
	const struct rec_event_desc *ev;
	int kinds[2];	     /* the events per target and CPU: */
	int nkinds;	     /* REC_EV_*, the first carries side-band */
	char fallback[160];  /* why AUTO fell back to frame pointers */
	size_t switch_stack; /* stack copy at switches */
	char offcpu_cs[256]; /* why context switches, not the tracepoint */
	int *cpus;
	size_t ncpus;
	int *fds;
	size_t nfds, afds;
	struct rec_ring *rings; /* one per CPU */
	struct rec_child child;
	int have_child;
	int jit_maps_ours;	  /* remove the command's JIT maps at the end */
	int *pidfds;		  /* of the attached processes, -1 unknown */
	struct rec_events events; /* what the records build */
	struct rec_order order;	  /* the rings' records in time order */
	struct rec_reader *reader; /* empties the rings, on its thread */
	struct rec_batch *held;	   /* read, some records not yet handled */
	struct ember_record_stats stats;
	volatile sig_atomic_t stop;	/* stop requests */
	volatile sig_atomic_t stop_sig; /* the first's signal, 0 none */
	int started, ran;
	double t_start, t_stop; /* monotonic seconds */
	char err[768];
	/* the result's frame names' modules, for pprof */
	struct rec_nameloc *locs;
	size_t nlocs;
	struct ember_pprof_mapping *maps;
	size_t nmaps;
	uint32_t *loc_map;
	uint64_t *loc_addr;
	char *ids; /* the build-ids in hex, 129 bytes each */
	/* interpreter frames by BPF (record/interp.c), or why not */
	struct rec_interp_bpf *interp;
	char interp_off[256];
	struct ember_record_jit_note *notes;
};

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fail(struct ember_record *r, int err, const char *fmt, ...)
    EMBER_PRINTF(3, 4);

static int fail(struct ember_record *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	return err;
}

void ember_record_options_init(struct ember_record_options *o)
{
	memset(o, 0, sizeof(*o));
	o->event = "cpu-clock";
	o->freq = 999;
	o->jit_env = 1;
	o->child_stdout = -1;
	o->call_graph = EMBER_CALLGRAPH_AUTO;
	o->inline_frames = 1;
}

const char *ember_record_events(void)
{
	return rec_event_names();
}

long ember_record_max_freq(void)
{
	return rec_sysctl_long("kernel.perf_event_max_sample_rate");
}

const char *ember_record_error(const struct ember_record *r)
{
	return r->err[0] ? r->err : "unknown error";
}

const struct ember_record_stats *
ember_record_stats(const struct ember_record *r)
{
	return &r->stats;
}

/* The events of each target and CPU: the sampling event, the switch
 * tracepoint, or both; the first carries the side-band records. */
static int setup_modes(struct ember_record *r)
{
	struct ember_buf why = EMBER_BUF_INIT;
	int err;

	r->kinds[0] = REC_EV_SAMPLE;
	r->nkinds = 1;
	if (r->o.mode == EMBER_RECORD_CPU)
		return 0;
	if (r->o.mode != EMBER_RECORD_OFFCPU && r->o.mode != EMBER_RECORD_WALL)
		return fail(r, EMBER_EINVAL, "unknown recording mode %d",
			    r->o.mode);
	if (r->o.mode == EMBER_RECORD_WALL && !r->ev->clock)
		return fail(r, EMBER_EINVAL,
			    "--wall weighs on-CPU samples in time: it "
			    "takes cpu-clock or task-clock, not '%s'",
			    r->ev->name);
	err = r->o.context_switches
		  ? EMBER_ENOTSUP
		  : rec_offcpu_new(&r->events.off, r->o.min_block_us, &why);
	if (err) {
		/* the context-switches event, which needs no tracefs */
		snprintf(r->offcpu_cs, sizeof(r->offcpu_cs), "%s",
			 r->o.context_switches ? "asked for instead of the "
						 "sched_switch tracepoint"
					       : why.buf);
		r->stats.offcpu_cs = r->offcpu_cs;
		err = rec_offcpu_new_cs(&r->events.off, r->o.min_block_us);
	}
	ember_buf_release(&why);
	if (err)
		return fail(r, err, "cannot count context switches");
	r->stats.weight_us = 1;
	if (r->o.mode == EMBER_RECORD_OFFCPU)
		r->kinds[0] = REC_EV_SWITCH;
	else
		r->kinds[r->nkinds++] = REC_EV_SWITCH;
	return 0;
}

/* The sample-level profile: its weights named as the CLI names them. */
static void start_profile(struct ember_record *r)
{
	int64_t period = (int64_t)r->o.period;

	if (r->o.mode != EMBER_RECORD_CPU) {
		rec_prof_start(&r->events,
			       r->o.mode == EMBER_RECORD_OFFCPU ? "off-cpu"
								: "wall",
			       "nanoseconds", 0);
		return;
	}
	if (r->ev->clock && !period)
		period = (int64_t)llround(1e9 / r->o.freq);
	rec_prof_start(&r->events, r->ev->clock ? "cpu" : r->o.event,
		       r->ev->clock ? "nanoseconds" : "count", period);
}

struct ember_prof *ember_record_profile(struct ember_record *r)
{
	return rec_prof_detach(&r->events);
}

int ember_record_new(struct ember_record **out,
		     const struct ember_record_options *o)
{
	struct ember_record *r = ember_xcalloc(1, sizeof(*r));
	int targets = (o->argv && o->argv[0]) + (o->npids > 0);

	*out = r;
	r->o = *o;
	r->stats.exit_status = -1;
	rec_events_init(&r->events, &r->stats);
	r->events.system_wide = o->system_wide;
	r->events.idle = o->idle;
	r->events.root_pid = o->root_pid;
	r->events.root_tid = o->root_tid;
	rec_order_init(&r->order);
	if (o->argv && o->argv[0]) {
		size_t n = 0;
		while (o->argv[n])
			n++;
		r->argv = ember_xcalloc(n + 1, sizeof(*r->argv));
		for (size_t i = 0; i < n; i++)
			r->argv[i] = ember_xstrdup(o->argv[i]);
		r->o.argv = r->argv;
	}
	if (o->npids) {
		r->pids = ember_xcalloc(o->npids, sizeof(*r->pids));
		memcpy(r->pids, o->pids, o->npids * sizeof(*r->pids));
		r->o.pids = r->pids;
	}
	r->o.event = o->event ? o->event : "cpu-clock";
	if (targets && o->argv && !o->argv[rec_argv_assignments(o->argv)])
		return fail(r, EMBER_EINVAL,
			    "no command after '%s': NAME=value words set the "
			    "environment of the command that follows them",
			    o->argv[0]);
	if (targets > 1)
		return fail(r, EMBER_EINVAL,
			    "give a command or -p PID, not both");
	if (!targets && !o->system_wide)
		return fail(r, EMBER_EINVAL,
			    "nothing to profile: give a command, -p PID or -a");
	if (o->npids && o->system_wide)
		return fail(r, EMBER_EINVAL, "give -p PID or -a, not both");
	for (size_t i = 0; i < o->npids; i++)
		if (o->pids[i] <= 0)
			return fail(r, EMBER_EINVAL, "'%d' is not a process id",
				    o->pids[i]);
	r->ev = rec_event_lookup(r->o.event);
	if (!r->ev)
		return fail(r, EMBER_EINVAL, "unknown event '%s' (events: %s)",
			    r->o.event, rec_event_names());
	r->stats.clock_event = r->ev->clock;
	if (!o->period) {
		if (!(o->freq >= 1) || o->freq > 1e9)
			return fail(r, EMBER_EINVAL,
				    "the frequency must be at least 1 Hz");
		long max = rec_sysctl_long("kernel.perf_event_max_sample_rate");
		if (max > 0 && o->freq > (double)max)
			return fail(r, EMBER_EINVAL,
				    "-F %.0f is above the maximum sample rate "
				    "%ld: lower -F, or raise it with 'sysctl "
				    "kernel.perf_event_max_sample_rate=%.0f'",
				    o->freq, max, ceil(o->freq));
	}
	if (o->duration < 0 || isnan(o->duration))
		return fail(r, EMBER_EINVAL, "the duration must be positive");
	if (o->mmap_pages && (o->mmap_pages & (o->mmap_pages - 1)))
		return fail(r, EMBER_EINVAL,
			    "the ring buffer must be a power of two pages");
	if (o->call_graph < EMBER_CALLGRAPH_AUTO ||
	    o->call_graph > EMBER_CALLGRAPH_FP)
		return fail(r, EMBER_EINVAL, "unknown call-graph mode %d",
			    o->call_graph);
	if (o->stack_size > EMBER_RECORD_STACK_MAX)
		return fail(r, EMBER_EINVAL,
			    "the stack copy is at most %d bytes, not %zu",
			    EMBER_RECORD_STACK_MAX, o->stack_size);
	if (!o->stack_size)
		r->o.stack_size = EMBER_RECORD_STACK_SIZE;
	/* the kernel wants a multiple of 8 (65528 is one) */
	r->o.stack_size = (r->o.stack_size + 7) & ~(size_t)7;
	r->switch_stack =
	    o->stack_size ? r->o.stack_size : EMBER_RECORD_SWITCH_STACK_SIZE;
#if !defined(__x86_64__)
	if (o->call_graph == EMBER_CALLGRAPH_DWARF)
		return fail(r, EMBER_ENOTSUP,
			    "DWARF unwinding is only implemented for x86-64: "
			    "use --call-graph fp");
	r->o.call_graph = EMBER_CALLGRAPH_FP;
	snprintf(r->fallback, sizeof(r->fallback),
		 "DWARF unwinding is only implemented for x86-64");
#endif
	r->events.dwarf = r->o.call_graph != EMBER_CALLGRAPH_FP;
	long page = sysconf(_SC_PAGESIZE);
	if (r->events.dwarf && o->mmap_pages &&
	    o->mmap_pages * (size_t)page < r->o.stack_size + 4096) {
		size_t need = 1;
		while (need * (size_t)page < r->o.stack_size + 4096)
			need *= 2;
		return fail(r, EMBER_EINVAL,
			    "a ring buffer of %zu pages cannot hold a sample "
			    "with a %zu-byte stack copy: use -m %zu or more, "
			    "or a smaller --call-graph dwarf,SIZE",
			    o->mmap_pages, r->o.stack_size, need);
	}
	if (rec_sysctl_long("kernel.perf_event_paranoid") == -1 &&
	    access("/proc/sys/kernel/perf_event_paranoid", F_OK))
		return fail(r, EMBER_ENOTSUP,
			    "this kernel has no perf events "
			    "(/proc/sys/kernel/perf_event_paranoid is "
			    "missing): profiling needs CONFIG_PERF_EVENTS");
	int err = setup_modes(r);
	if (!err && o->profile)
		start_profile(r);
	return err;
}

static void close_all(struct ember_record *r)
{
	for (size_t i = 0; i < r->ncpus && r->rings; i++)
		rec_ring_unmap(&r->rings[i]);
	for (size_t i = 0; i < r->nfds; i++)
		close(r->fds[i]);
	r->nfds = 0;
	if (r->pidfds)
		for (size_t i = 0; i < r->o.npids; i++)
			if (r->pidfds[i] >= 0)
				close(r->pidfds[i]);
	free(r->pidfds);
	r->pidfds = NULL;
}

/* The mapping of a process that held file offset off of module d, as
 * index + 1 in r->maps (added on first use), 0 if none. */
static uint32_t mapping_of(struct ember_record *r, size_t *amaps,
			   const struct rec_dso *d, uint64_t off)
{
	const struct rec_world *w = &r->events.world;

	for (size_t i = 0; i < r->nmaps; i++) {
		const struct ember_pprof_mapping *m = &r->maps[i];
		if (m->file == d->path && off >= m->offset &&
		    off - m->offset < m->limit - m->start)
			return (uint32_t)i + 1;
	}
	for (size_t i = 0; i < w->nprocs; i++) {
		const struct rec_proc *p = w->procs[i];
		for (size_t j = 0; j < p->nmaps; j++) {
			const struct ember_unwind_mapping *m = &p->maps[j].m;
			if (p->maps[j].dso != d || off < m->pgoff ||
			    off - m->pgoff >= m->end - m->start)
				continue;
			EMBER_GROW(r->maps, r->nmaps + 1, *amaps);
			r->maps[r->nmaps] = (struct ember_pprof_mapping){
			    m->start, m->end, m->pgoff, d->path, NULL};
			return (uint32_t)++r->nmaps;
		}
	}
	return 0;
}

void ember_record_mappings(struct ember_record *r, struct ember_profile *p)
{
	const struct rec_world *w = &r->events.world;
	size_t amaps = 0;

	if (!r->loc_map && r->nlocs) {
		r->loc_map = ember_xcalloc(r->nlocs, sizeof(*r->loc_map));
		r->loc_addr = ember_xcalloc(r->nlocs, sizeof(*r->loc_addr));
		for (size_t i = 0; i < r->nlocs; i++) {
			const struct rec_nameloc *l = &r->locs[i];
			if (!l->dso)
				continue;
			const struct rec_dso *d = w->dsos[l->dso - 1];
			uint32_t m = mapping_of(r, &amaps, d, l->off);
			if (!m)
				continue;
			const struct ember_pprof_mapping *pm = &r->maps[m - 1];
			r->loc_map[i] = m;
			r->loc_addr[i] = pm->start + (l->off - pm->offset);
		}
		/* the build-ids the symbolizer read (or the recording saw) */
		r->ids = ember_xcalloc(r->nmaps ? r->nmaps : 1, 129);
		for (size_t i = 0; i < r->nmaps; i++) {
			const struct rec_dso *d = NULL;
			for (size_t j = 0; j < w->ndsos && !d; j++)
				if (w->dsos[j]->path == r->maps[i].file)
					d = w->dsos[j];
			if (!d)
				continue;
			const uint8_t *id = d->want_len ? d->want_id
					    : d->loaded ? d->elf.build_id
							: NULL;
			size_t n = d->want_len ? d->want_len
				   : d->loaded ? d->elf.build_id_len
					       : 0;
			char *s = r->ids + i * 129;
			for (size_t k = 0; id && k < n && k < 64; k++)
				snprintf(s + 2 * k, 3, "%02x", id[k]);
			if (*s)
				r->maps[i].build_id = s;
		}
	}
	p->mappings = r->maps;
	p->nmappings = r->nmaps;
	p->loc_mapping = r->loc_map;
	p->loc_addr = r->loc_addr;
	p->nlocs = r->loc_map ? r->nlocs : 0;
}

void ember_record_free(struct ember_record *r)
{
	if (!r)
		return;
	free(r->locs);
	free(r->maps);
	free(r->loc_map);
	free(r->loc_addr);
	free(r->ids);
	rec_interp_bpf_free(r->interp);
	free(r->notes);
	rec_order_release(&r->order);
	if (r->held)
		rec_reader_done(r->reader, r->held);
	rec_reader_free(r->reader);
	close_all(r);
	if (r->have_child) {
		rec_child_kill(&r->child, SIGKILL);
		rec_child_reap(&r->child, 1);
	}
	free(r->rings);
	free(r->cpus);
	free(r->fds);
	rec_events_release(&r->events);
	if (r->argv)
		for (char **a = r->argv; *a; a++)
			free(*a);
	free(r->argv);
	free(r->pids);
	free(r);
}

void ember_record_stop(struct ember_record *r)
{
	ember_record_stop_signal(r, 0);
}

void ember_record_stop_signal(struct ember_record *r, int sig)
{
	if (!r->stop)
		r->stop_sig = sig;
	r->stop++;
}

/* ---- opening events --------------------------------------------------- */

static void make_attr(struct ember_record *r, struct perf_event_attr *a,
		      int exclude_kernel, int kind)
{
	int sideband = kind == r->kinds[0];

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = r->ev->type;
	a->config = r->ev->config;
	if (r->o.period) {
		a->sample_period = r->o.period;
	} else {
		a->freq = 1;
		a->sample_freq = (uint64_t)r->o.freq;
	}
	r->events.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	if (r->events.off) /* tells the events apart */
		r->events.sample_type |= rec_offcpu_states(r->events.off)
					     ? PERF_SAMPLE_RAW
					     : PERF_SAMPLE_IDENTIFIER;
	r->events.regs_mask = 0;
	if (r->events.dwarf) {
		/* kernel frames from the kernel, user frames from a copy of
		 * the stack and the registers that start the walk */
		r->events.sample_type |=
		    PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		r->events.regs_mask = REGS_MASK;
		a->sample_regs_user = REGS_MASK;
		a->sample_stack_user = (uint32_t)r->o.stack_size;
		a->exclude_callchain_user = 1;
	}
	a->sample_type = r->events.sample_type;
	a->disabled = 1;
	a->inherit = !r->o.system_wide;
	a->enable_on_exec = r->have_child && !r->o.system_wide;
	a->mmap = sideband;
	a->mmap2 = sideband;
	a->comm = sideband;
	a->comm_exec = sideband;
	a->task = sideband;
	a->sample_id_all = 1;
	a->exclude_kernel = exclude_kernel;
	a->exclude_callchain_kernel = exclude_kernel || r->o.no_kernel;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	if (kind == REC_EV_SWITCH) {
		rec_offcpu_attr(r->events.off, a);
		if (r->events.dwarf)
			a->sample_stack_user = (uint32_t)r->switch_stack;
	}
}

static long perf_open(struct perf_event_attr *a, int pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static int open_error(struct ember_record *r, int e, int pid)
{
	long paranoid = rec_sysctl_long("kernel.perf_event_paranoid");

	switch (e) {
	case EACCES:
	case EPERM:
		if (geteuid() == 0)
			return fail(r, EMBER_EPERM,
				    "perf_event_open is not permitted, even as "
				    "root: a container's seccomp profile or a "
				    "security module blocks it (for Docker: "
				    "--cap-add PERFMON, or --security-opt "
				    "seccomp=unconfined)");
		if (r->o.system_wide)
			return fail(
			    r, EMBER_EPERM,
			    "no permission to profile the whole system: "
			    "kernel.perf_event_paranoid is %ld; set it "
			    "to 0 with 'sysctl "
			    "kernel.perf_event_paranoid=0', or run as "
			    "root (or with CAP_PERFMON)",
			    paranoid);
		if (pid > 0 && r->o.npids && paranoid <= 2)
			return fail(r, EMBER_EPERM,
				    "no permission to profile process %d: it "
				    "belongs to another user; run as root, or "
				    "with CAP_PERFMON and CAP_SYS_PTRACE",
				    pid);
		return fail(r, EMBER_EPERM,
			    "no permission to use perf events: "
			    "kernel.perf_event_paranoid is %ld; set it to 1 "
			    "with 'sysctl kernel.perf_event_paranoid=1', or "
			    "run as root (or with CAP_PERFMON)",
			    paranoid);
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		return fail(r, EMBER_ENOTSUP,
			    "event '%s' is not supported on this machine%s; "
			    "try -e cpu-clock",
			    r->ev->name,
			    r->ev->type == PERF_TYPE_HARDWARE
				? " (no hardware counters, as in most "
				  "virtual machines)"
				: "");
	case ESRCH:
		return fail(r, EMBER_ENOENT, "no such process: %d", pid);
	case EMFILE:
	case ENFILE:
		return fail(r, EMBER_EIO,
			    "too many open files (one per thread and CPU): "
			    "raise the limit with 'ulimit -n'");
	case ENOSYS:
		return fail(r, EMBER_ENOTSUP,
			    "perf_event_open is not available: the kernel "
			    "lacks it, or a container blocks it");
	case EINVAL:
		if (!r->o.period)
			return fail(
			    r, EMBER_EINVAL,
			    "perf_event_open refused the event: is -F "
			    "%g above kernel.perf_event_max_sample_rate "
			    "(%ld)?",
			    r->o.freq,
			    rec_sysctl_long("kernel.perf_event_max_"
					    "sample_rate"));
		return fail(r, EMBER_EINVAL,
			    "perf_event_open refused the event: %s",
			    strerror(e));
	default:
		return fail(r, EMBER_EIO, "perf_event_open failed: %s",
			    strerror(e));
	}
}

static void raise_nofile(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static size_t ring_pages(const struct ember_record *r)
{
	if (r->o.mmap_pages)
		return r->o.mmap_pages;
	/* a stack copy at every context switch: four times more */
	size_t more = r->events.off ? 4 : 1;
	if (!r->events.dwarf)
		return DEFAULT_PAGES * more;
	size_t n = DWARF_PAGES * more;
	/* at most 256 MiB in all on machines with many CPUs */
	while (n > DEFAULT_PAGES && n * r->ncpus > 65536)
		n /= 2;
	if (geteuid() != 0) {
		/* unprivileged rings are limited to perf_event_mlock_kb per
		 * CPU, header page included */
		long kb = rec_sysctl_long("kernel.perf_event_mlock_kb");
		long page = sysconf(_SC_PAGESIZE);
		if (kb > 0 && page > 0)
			while (n > 1 && (long)(n + 1) * (page / 1024) > kb)
				n /= 2;
	}
	return n;
}

static long open_one(struct ember_record *r, int pid, int cpu, int kind)
{
	struct perf_event_attr a;

	make_attr(r, &a, r->stats.kernel_excluded, kind);
	a.wakeup_watermark =
	    (uint32_t)(ring_pages(r) * (size_t)sysconf(_SC_PAGESIZE) / 4);
	long fd = perf_open(&a, pid, cpu);
	if (fd < 0 && (errno == EACCES || errno == EPERM) &&
	    !r->stats.kernel_excluded && geteuid() != 0 && !r->events.off) {
		/* perf_event_paranoid 2: user space only */
		make_attr(r, &a, 1, kind);
		a.wakeup_watermark =
		    (uint32_t)(ring_pages(r) * (size_t)sysconf(_SC_PAGESIZE) /
			       4);
		fd = perf_open(&a, pid, cpu);
		if (fd >= 0)
			r->stats.kernel_excluded = 1;
		else
			errno = EACCES;
	}
	return fd;
}

/*
 * The first event decides the mode: when the kernel refuses copies of
 * user stacks (an old kernel, another architecture's perf_regs), AUTO
 * falls back to frame pointers, said in the summary, and DWARF fails
 * with a message; any other error is the event's own.
 */
static long open_first(struct ember_record *r, int pid, int cpu, int *err)
{
	long fd = open_one(r, pid, cpu, r->kinds[0]);
	int e = errno;

	*err = 0;
	if (fd >= 0 || !r->events.dwarf || (e != EINVAL && e != EOPNOTSUPP))
		return fd;
	r->events.dwarf = 0;
	fd = open_one(r, pid, cpu, r->kinds[0]);
	if (fd < 0) {
		/* not the stack copies' fault */
		r->events.dwarf = 1;
		errno = e;
		return fd;
	}
	if (r->o.call_graph == EMBER_CALLGRAPH_DWARF) {
		close((int)fd);
		r->events.dwarf = 1;
		*err = fail(r, EMBER_ENOTSUP,
			    "perf_event_open refused copies of user stacks "
			    "(%s): this kernel cannot unwind by DWARF here; "
			    "use --call-graph fp",
			    strerror(e));
		return -1;
	}
	snprintf(r->fallback, sizeof(r->fallback),
		 "perf_event_open refused copies of user stacks (%s)",
		 strerror(e));
	return fd;
}

/* ---- interpreter frames (record/interp.c) ----------------------------- */

/* Loads the BPF program that reads interpreters' frames; where it cannot
 * be, the reason is told at the end if an interpreter was sampled. */
static void interp_start(struct ember_record *r)
{
	struct ember_buf why = EMBER_BUF_INIT;

	if (r->o.no_interp || r->o.mode == EMBER_RECORD_OFFCPU)
		return;
	if (rec_interp_bpf_new(&r->interp, &why))
		snprintf(r->interp_off, sizeof(r->interp_off), "%s", why.buf);
	ember_buf_release(&why);
}

static void interp_attach(struct ember_record *r, int fd)
{
	struct ember_buf why = EMBER_BUF_INIT;

	if (r->interp && rec_interp_bpf_attach(r->interp, fd, &why)) {
		snprintf(r->interp_off, sizeof(r->interp_off), "%s", why.buf);
		rec_interp_bpf_free(r->interp);
		r->interp = NULL;
	}
	ember_buf_release(&why);
}

/* Opens the event of one target on every CPU; pid -1 is every task.
 * Returns 0, 1 if the target is gone (ESRCH), or an EMBER_E* code. */
static int open_target(struct ember_record *r, int pid, int main_target)
{
	for (size_t i = 0; i < r->ncpus * (size_t)r->nkinds; i++) {
		size_t c = i / (size_t)r->nkinds;
		int kind = r->kinds[i % (size_t)r->nkinds], err = 0;
		long fd = r->nfds ? open_one(r, pid, r->cpus[c], kind)
				  : open_first(r, pid, r->cpus[c], &err);
		if (err)
			return err;
		if (fd < 0) {
			int e = errno;
			if (e == ESRCH && !main_target)
				return 1;
			if (e == ENODEV && r->ev->type == PERF_TYPE_SOFTWARE)
				continue; /* a CPU went offline */
			return open_error(r, e, pid);
		}
		EMBER_GROW(r->fds, r->nfds + 1, r->afds);
		r->fds[r->nfds++] = (int)fd;
		if (kind == REC_EV_SAMPLE)
			interp_attach(r, (int)fd);
		uint64_t id;
		if (kind == REC_EV_SWITCH &&
		    !rec_offcpu_states(r->events.off) &&
		    !ioctl((int)fd, PERF_EVENT_IOC_ID, &id))
			rec_offcpu_add_id(r->events.off, id);
		struct rec_ring *ring = &r->rings[c];
		if (!ring->base) {
			err = rec_ring_map(ring, (int)fd, r->cpus[c],
					   ring_pages(r));
			if (err == EMBER_EPERM)
				return fail(
				    r, err,
				    "cannot map the ring buffer: it "
				    "exceeds kernel.perf_event_mlock_kb "
				    "(%ld KiB); use a smaller -m, or "
				    "raise the sysctl",
				    rec_sysctl_long("kernel.perf_event_"
						    "mlock_kb"));
			if (err)
				return fail(r, err,
					    "cannot map the ring buffer: %s",
					    strerror(errno));
		} else if (ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT,
				 ring->fd)) {
			return fail(r, EMBER_EIO,
				    "cannot share the ring buffer: %s",
				    strerror(errno));
		}
	}
	return 0;
}

static int attach_pid(struct ember_record *r, int pid)
{
	int *tids = NULL, err = 0;
	size_t n, opened = 0;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (access(path, F_OK))
		return fail(r, EMBER_ENOENT, "no such process: %d", pid);
	/* twice: threads started while the first pass opened events */
	int seen_cap = 0;
	int *seen = NULL;
	size_t nseen = 0;
	for (int pass = 0; pass < 2 && !err; pass++) {
		n = rec_list_tasks(pid, &tids);
		if (!n && !pass) {
			free(tids);
			return fail(r, EMBER_ENOENT, "no such process: %d",
				    pid);
		}
		for (size_t i = 0; i < n && !err; i++) {
			int dup = 0;
			for (size_t k = 0; k < nseen && !dup; k++)
				dup = seen[k] == tids[i];
			if (dup)
				continue;
			size_t cap = (size_t)seen_cap;
			EMBER_GROW(seen, nseen + 1, cap);
			seen_cap = (int)cap;
			seen[nseen++] = tids[i];
			err = open_target(r, tids[i], 0);
			if (err == 1)
				err = 0; /* the thread ended meanwhile */
			else if (!err)
				opened++;
		}
		free(tids);
		tids = NULL;
	}
	free(seen);
	if (!err && !opened)
		return fail(r, EMBER_ENOENT, "no such process: %d", pid);
	return err;
}

static void enable_all(struct ember_record *r)
{
	for (size_t i = 0; i < r->nfds; i++)
		ioctl(r->fds[i], PERF_EVENT_IOC_ENABLE, 0);
}

static void disable_all(struct ember_record *r)
{
	for (size_t i = 0; i < r->nfds; i++)
		ioctl(r->fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

int ember_record_start(struct ember_record *r)
{
	int err = 0;

	if (r->started)
		return fail(r, EMBER_EINVAL, "already started");
	r->started = 1;
	r->events.world.clock_offset = now_real() - now_mono();
	r->ncpus = rec_online_cpus(&r->cpus);
	r->rings = ember_xcalloc(r->ncpus, sizeof(*r->rings));
	for (size_t i = 0; i < r->ncpus; i++)
		r->rings[i].fd = -1;
	raise_nofile();

	if (r->o.argv) {
		int e = 0;
		r->jit_maps_ours = r->o.jit_env && !r->o.keep_jit_maps &&
				   !r->o.system_wide &&
				   rec_jit_env_is_ours(r->o.argv);
		if (rec_child_fork(&r->child, r->o.argv, r->o.jit_env,
				   r->o.child_stdout, &e))
			return fail(r, EMBER_EIO, "cannot start '%s': %s",
				    r->o.argv[0], strerror(e));
		r->have_child = 1;
	}
	interp_start(r);
	if (r->o.system_wide)
		err = open_target(r, -1, 1);
	else if (r->have_child)
		err = open_target(r, r->child.pid, 1);
	else
		for (size_t i = 0; i < r->o.npids && !err; i++) {
			/* a thread id stands for its process */
			r->pids[i] = rec_tgid(r->pids[i]);
			err = attach_pid(r, r->o.pids[i]);
		}
	if (err)
		goto fail;
	if (r->events.dwarf)
		r->events.unwinder = ember_unwinder_new();
	r->events.perfmap_dir = r->o.perfmap_dir;
	r->stats.dwarf = r->events.dwarf;
	r->stats.max_stack = rec_sysctl_long("kernel.perf_event_max_stack");
	r->events.max_stack =
	    r->stats.max_stack > 0 ? (uint64_t)r->stats.max_stack : 0;
	r->stats.stack_size = r->events.dwarf ? r->o.stack_size : 0;
	r->stats.switch_stack_size =
	    r->events.dwarf && r->events.off ? r->switch_stack : 0;
	r->stats.fp_fallback = r->fallback[0] ? r->fallback : NULL;

	/* what runs already: its mappings and thread names */
	if (r->o.system_wide) {
		int *pids;
		size_t n = rec_list_pids(&pids);
		for (size_t i = 0; i < n; i++)
			rec_events_synthesize_pid(&r->events, pids[i]);
		free(pids);
	}
	if (r->o.npids) {
		r->pidfds = ember_xcalloc(r->o.npids, sizeof(*r->pidfds));
		for (size_t i = 0; i < r->o.npids; i++) {
			r->pidfds[i] = rec_pidfd_open(r->o.pids[i]);
			if (!r->o.system_wide)
				rec_events_synthesize_pid(&r->events,
							  r->o.pids[i]);
		}
	}
	if (r->interp)
		rec_interp_bpf_update(r->interp, &r->events,
				      r->have_child ? r->child.pid : 0);
	err = rec_reader_start(&r->reader, r->rings, r->ncpus, &r->events,
			       BACKLOG);
	if (err) {
		fail(r, err, "cannot start reading the ring buffers: %s",
		     strerror(errno));
		goto fail;
	}
	r->t_start = now_mono();
	if (!r->have_child || r->o.system_wide)
		enable_all(r);
	/* what started or exec'd while the running processes were read and
	 * before the events were on (no record tells of it), read now: their
	 * records from here on come after */
	if (r->o.system_wide) {
		int *pids, any = 0;
		size_t n = rec_list_pids(&pids);
		for (size_t i = 0; i < n; i++)
			any |= rec_events_synthesize_new(&r->events, pids[i]);
		free(pids);
		if (any && r->interp)
			rec_interp_bpf_update(r->interp, &r->events, 0);
	}
	if (r->have_child) {
		int e = rec_child_go(&r->child);
		if (e) {
			const char *name =
			    r->o.argv[rec_argv_assignments(r->o.argv)];
			rec_child_reap(&r->child, 1);
			r->have_child = 0;
			r->stats.exec_errno = e;
			err = fail(r, e == ENOENT ? EMBER_ENOENT : EMBER_EIO,
				   "cannot run '%s': %s", name,
				   e == ENOENT && !strchr(name, '/')
				       ? "no such command in PATH"
				       : strerror(e));
			goto fail;
		}
	}
	return 0;
fail:
	rec_reader_free(r->reader);
	r->reader = NULL;
	if (r->have_child) {
		rec_child_kill(&r->child, SIGKILL);
		rec_child_reap(&r->child, 1);
		r->have_child = 0;
	}
	close_all(r);
	return err;
}

/* ---- the loop --------------------------------------------------------- */

static void handle(void *ctx, const void *rec, size_t size)
{
	struct ember_record *r = ctx;

	rec_events_handle(&r->events, rec, size);
}

/* Hands the records of the batches read so far to the consumer, in time
 * order; every record of a batch is handled once the round of the next
 * batch is, and the batch goes back to the reader. */
static void process(struct ember_record *r)
{
	struct rec_batch *b = rec_reader_take(r->reader), *next;

	/* the program's records of the samples just read are all written:
	 * it runs before the kernel writes the sample */
	if (r->interp)
		rec_interp_bpf_update(r->interp, &r->events,
				      r->have_child ? r->child.pid : 0);
	for (; b; b = next) {
		next = b->next;
		r->events.corrupt += b->corrupt;
		for (size_t off = 0; off < b->len;) {
			const struct perf_event_header *h =
			    (const void *)(b->data + off);
			rec_order_add_ref(
			    &r->order, rec_events_time(&r->events, h, h->size),
			    h);
			off += h->size;
		}
		rec_order_round(&r->order, handle, r);
		if (r->held)
			rec_reader_done(r->reader, r->held);
		r->held = b;
		if (r->interp && next)
			rec_interp_bpf_poll(r->interp, &r->events);
	}
}

static int targets_gone(struct ember_record *r)
{
	if (r->have_child)
		return rec_child_reap(&r->child, 0);
	if (!r->o.npids)
		return 0;
	for (size_t i = 0; i < r->o.npids; i++) {
		if (r->pidfds[i] >= 0) {
			struct pollfd p = {r->pidfds[i], POLLIN, 0};
			if (poll(&p, 1, 0) == 0)
				return 0;
		} else if (!kill(r->o.pids[i], 0) || errno != ESRCH) {
			return 0;
		}
	}
	return 1;
}

/* Off-CPU and wall modes: waits still going on end now, and every weight
 * (ns of waiting, cpu-clock periods) becomes microseconds. */
static void to_microseconds(struct ember_record *r)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	rec_offcpu_finish(&r->events, (uint64_t)ts.tv_sec * 1000000000u +
					  (uint64_t)ts.tv_nsec);
	r->stats.weight = 0;
	for (size_t i = 0; i < r->events.stacks.n; i++) {
		double *c = &r->events.stacks.ents[i].count;
		*c = floor(*c / 1000 + 0.5);
		r->stats.weight += *c;
	}
}

/* Whether p is the command or one of its children, still running. */
static int of_command(struct ember_record *r, const struct rec_proc *p)
{
	struct rec_world *w = &r->events.world;

	if (p->exited || rec_world_find_proc(w, p->pid) != p)
		return 0;
	for (int depth = 0; p && depth < 64; p = p->parent, depth++)
		if (p->pid == r->child.pid)
			return 1;
	return 0;
}

/* Sends sig to the command and its children, as a terminal sends Ctrl-C
 * to a job (not to ember, nor to the rest of its pipeline). */
static void signal_command(struct ember_record *r, int sig)
{
	struct rec_world *w = &r->events.world;

	rec_child_kill(&r->child, sig);
	for (size_t i = 0; i < w->nprocs; i++)
		if (w->procs[i]->pid != r->child.pid &&
		    of_command(r, w->procs[i]))
			kill(w->procs[i]->pid, sig);
	r->stats.command_stopped = 1;
}

/* Waits up to secs for the command to end, or for another stop request
 * than the asked first; 1 once it ended. */
static int wait_command(struct ember_record *r, double secs, int asked)
{
	double end = now_mono() + secs;

	while (!rec_child_reap(&r->child, 0)) {
		double left = end - now_mono();
		if (left <= 0 || r->stop > asked)
			return 0;
		if (r->child.pidfd >= 0) {
			struct pollfd p = {r->child.pidfd, POLLIN, 0};
			poll(&p, 1, left < 0.1 ? (int)(left * 1000) + 1 : 100);
		} else {
			usleep(10000);
		}
	}
	return 1;
}

/*
 * Recording stopped before the command ended: it gets an interrupt, as
 * from Ctrl-C, and GRACE_S seconds to handle it (its clean-up, and
 * Python's writing of its jitdump), then SIGTERM, then SIGKILL; another
 * stop request (a second Ctrl-C) goes to the next step at once.  A
 * Ctrl-C reached the command already (a terminal interrupts the whole
 * job); SIGTERM or SIGHUP to ember goes on to it.
 */
static void end_command(struct ember_record *r)
{
	int sig = r->stop_sig == SIGINT ? 0
		  : r->stop_sig		? r->stop_sig
					: SIGINT;
	int asked = r->stop;

	if (rec_child_reap(&r->child, 0))
		return;
	if (sig)
		signal_command(r, sig);
	if (wait_command(r, GRACE_S, asked))
		return;
	if (r->stop == asked)
		ember_log(EMBER_LOG_WARN,
			  "the command did not end within %d s of its "
			  "interrupt: ending it",
			  GRACE_S);
	asked = r->stop;
	signal_command(r, SIGTERM);
	if (wait_command(r, TERM_S, asked))
		return;
	signal_command(r, SIGKILL);
	rec_child_reap(&r->child, 1);
}

int ember_record_run(struct ember_record *r)
{
	size_t n = 2 + r->o.npids;
	struct pollfd *pf = ember_xcalloc(n, sizeof(*pf));

	if (!r->started || r->ran) {
		free(pf);
		return fail(r, EMBER_EINVAL, "not started");
	}
	r->ran = 1;
	double deadline = r->o.duration > 0 ? r->t_start + r->o.duration : 0;
	while (!r->stop) {
		size_t k = 0;
		pf[k++] = (struct pollfd){rec_reader_fd(r->reader), POLLIN, 0};
		if (r->have_child && r->child.pidfd >= 0)
			pf[k++] = (struct pollfd){r->child.pidfd, POLLIN, 0};
		for (size_t i = 0; r->pidfds && i < r->o.npids; i++)
			if (r->pidfds[i] >= 0)
				pf[k++] =
				    (struct pollfd){r->pidfds[i], POLLIN, 0};
		/* interpreters found soon after they start */
		int timeout = r->interp ? POLL_MS / 5 : POLL_MS;
		if (deadline) {
			double left = deadline - now_mono();
			if (left <= 0)
				break;
			if (left * 1000 < timeout)
				timeout = (int)(left * 1000) + 1;
		}
		poll(pf, k, timeout);
		process(r);
		if (targets_gone(r))
			break;
	}
	r->t_stop = now_mono();
	disable_all(r);
	rec_reader_stop(r->reader);
	process(r);
	rec_order_flush(&r->order, UINT64_MAX, handle, r);
	if (r->held)
		rec_reader_done(r->reader, r->held);
	r->held = NULL;
	if (r->events.off)
		to_microseconds(r);
	rec_interp_finish(r->interp, &r->events, &r->stats, r->interp_off);
	free(pf);
	if (r->have_child) {
		end_command(r);
		int st = r->child.status;
		r->stats.exit_status = WIFEXITED(st)	 ? WEXITSTATUS(st)
				       : WIFSIGNALED(st) ? 128 + WTERMSIG(st)
							 : 1;
	}
	close_all(r);
	r->stats.seconds = r->t_stop - r->t_start;
	if (r->events.unwinder) {
		const struct ember_unwind_stats *us =
		    ember_unwinder_stats(r->events.unwinder);
		for (int i = 0; i < EMBER_SRC_COUNT && i < 4; i++)
			r->stats.unwind_by_src[i] = us->by_src[i];
		r->stats.unwind_cache_hits = us->cache_hits;
		r->stats.unwind_cache_misses = us->cache_misses;
	}
	if (r->events.corrupt)
		ember_log(EMBER_LOG_WARN,
			  "%d malformed perf records were skipped",
			  r->events.corrupt);
	return 0;
}

/* The Python version p runs (major * 100 + minor), by its program or
 * libpython; 0 when it runs none, -1 when its version is not known. */
static int proc_python(const struct rec_proc *p)
{
	int found = 0;

	for (size_t i = 0; i < p->nmaps; i++) {
		const struct rec_dso *d = p->maps[i].dso;
		const char *b = d && d->base ? d->base : "";
		int v = rec_python_version(b);
		if (v >= 0)
			return v;
		if (!strncmp(b, "python", 6) || !strncmp(b, "libpython", 9))
			found = 1;
	}
	return found ? -1 : 0;
}

/* Which of p's JIT files exist because of the JIT environment (a
 * program writing its own keeps it): REC_JIT_MAP, REC_JIT_DUMP. */
static int jit_files_ours(const struct ember_record *r,
			  const struct rec_proc *p)
{
	const char *py = r->child.python_var;
	int v = proc_python(p);

	if (v) { /* Python: 3.12 reads PYTHONPERFSUPPORT, 3.13 both */
		int map = py && !strcmp(py, "PYTHONPERFSUPPORT");
		if (!py || (v > 0 && v < (map ? 312 : 313)))
			return 0;
		return map ? REC_JIT_MAP : REC_JIT_DUMP;
	}
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct rec_dso *d = p->maps[i].dso;
		const char *b = d && d->base ? d->base : "";
		if (!strcmp(b, "node") || !strcmp(b, "nodejs") ||
		    !strncmp(b, "libnode.so", 10) ||
		    !strcmp(b, "libcoreclr.so") || !strcmp(b, "libjvm.so"))
			return REC_JIT_MAP | REC_JIT_DUMP;
	}
	return 0;
}

/* The perf maps and jitdumps that the command's processes wrote only
 * because ember asked them to, once they are read. */
static void remove_jit_maps(struct ember_record *r)
{
	double since = r->events.world.clock_offset + r->t_start;

	for (size_t i = 0; i < r->events.world.nprocs; i++) {
		const struct rec_proc *p = r->events.world.procs[i];
		int seen = 0, which;
		/* ended, also after the last records were read (-d) */
		int ended = p->exited || (kill(p->pid, 0) && errno == ESRCH);
		if (!ended || !(which = jit_files_ours(r, p)))
			continue;
		/* one file per pid, whatever it exec'd */
		for (size_t j = 0; j < i && !seen; j++)
			seen = r->events.world.procs[j]->pid == p->pid;
		if (!seen)
			r->stats.jit_maps_removed += rec_jit_files_remove(
			    r->o.perfmap_dir, p->pid, since, which);
	}
}

static int proc_runtime(const struct rec_proc *p)
{
	if (proc_python(p))
		return EMBER_RUNTIME_PYTHON;
	if (rec_proc_is_jvm(p))
		return EMBER_RUNTIME_JAVA;
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct rec_dso *d = p->maps[i].dso;
		const char *b = d && d->base ? d->base : "";
		if (!strcmp(b, "node") || !strcmp(b, "nodejs") ||
		    !strncmp(b, "libnode.so", 10))
			return EMBER_RUNTIME_NODE;
		if (!strcmp(b, "libcoreclr.so"))
			return EMBER_RUNTIME_DOTNET;
	}
	return EMBER_RUNTIME_OTHER;
}

/* Whether p's JIT frames had nothing to be named from: no jitdump, and
 * no perf map of its own or of a parent it forked from. */
static int jit_unnamed(const struct rec_proc *p)
{
	if (rec_proc_jitdump(p))
		return 0;
	for (int depth = 0; p && depth < 16; p = p->parent, depth++)
		if (p->perfmap_state != REC_PERFMAP_MISSING + 1)
			return 0;
	return 1;
}

/* After naming: the processes sampled in JIT code that has no names
 * (no perf map), and the Pythons that ran none of their trampolines. */
static void jit_notes(struct ember_record *r)
{
	struct rec_world *w = &r->events.world;
	unsigned char *jit = ember_xcalloc(w->nprocs + 1, 1);
	size_t n = 0, alloc = 0;

	for (size_t i = 0; i < r->events.frames.n; i++) {
		const struct rec_frame *f = &r->events.frames.v[i];
		if (f->kind == REC_FRAME_JIT && f->obj < w->nprocs)
			jit[f->obj] = 1;
	}
	for (size_t i = 0; i < w->nprocs; i++) {
		const struct rec_proc *p = w->procs[i];
		int rt = proc_runtime(p), seen = 0;
		for (size_t j = 0; j < n && !seen; j++)
			seen = r->notes[j].pid == p->pid;
		if (seen ||
		    !(jit[i] ? jit_unnamed(p) : rt == EMBER_RUNTIME_PYTHON))
			continue;
		EMBER_GROW(r->notes, n + 1, alloc);
		r->notes[n++] = (struct ember_record_jit_note){
		    p->pid, rt, rt == EMBER_RUNTIME_PYTHON ? proc_python(p) : 0,
		    jit[i], !r->o.argv};
	}
	free(jit);
	r->stats.jit_notes = r->notes;
	r->stats.njit_notes = n;
}

/* A perf map a JVM wrote because ember asked. */
struct asked_map {
	char path[256];
	dev_t dev;
	ino_t ino;
};

/*
 * The JVMs sampled in their JIT code: a command's write their perf map at
 * exit (-XX:+DumpPerfMapAtExit), the others (-p, -a, and the command's
 * still running) are asked for theirs now.  A map that did not exist
 * before is removed once read, as the command's are.
 */
static size_t java_perfmaps(struct ember_record *r, struct asked_map **asked)
{
	struct rec_world *w = &r->events.world;
	unsigned char *hit = ember_xcalloc(w->nprocs + 1, 1);
	size_t n = 0, alloc = 0;

	*asked = NULL;
	for (size_t i = 0; i < r->events.frames.n; i++) {
		const struct rec_frame *f = &r->events.frames.v[i];
		if (f->kind == REC_FRAME_JIT && f->obj < w->nprocs)
			hit[f->obj] = 1;
	}
	for (size_t i = 0; i < w->nprocs; i++) {
		struct rec_proc *p = w->procs[i];
		struct asked_map m;
		struct stat st;
		if (!hit[i] || !rec_proc_is_jvm(p))
			continue;
		r->stats.jvms++;
		if (p->exited || !r->o.jit_env ||
		    (kill(p->pid, 0) && errno == ESRCH))
			continue;
		if (!rec_java_keeps_fp(p->pid))
			ember_log(EMBER_LOG_WARN,
				  "JVM %d runs without "
				  "-XX:+PreserveFramePointer: its stacks break "
				  "in compiled Java code",
				  p->pid);
		snprintf(m.path, sizeof(m.path), "%s/perf-%d.map",
			 r->o.perfmap_dir ? r->o.perfmap_dir : "/tmp", p->pid);
		int existed = !lstat(m.path, &st);
		struct ember_buf why = EMBER_BUF_INIT;
		int err = rec_java_request_perfmap(p->pid, &why);
		if (err == EMBER_EIO)
			ember_log(EMBER_LOG_WARN,
				  "cannot ask JVM %d for its perf map: %s; "
				  "its Java frames stay unnamed",
				  p->pid, why.buf);
		ember_buf_release(&why);
		if (err || existed || r->o.keep_jit_maps ||
		    lstat(m.path, &st) || !S_ISREG(st.st_mode))
			continue;
		m.dev = st.st_dev;
		m.ino = st.st_ino;
		EMBER_GROW(*asked, n + 1, alloc);
		(*asked)[n++] = m;
	}
	free(hit);
	return n;
}

/* Removes the maps of asked that are still the files the JVMs wrote. */
static void remove_asked_maps(struct ember_record *r,
			      const struct asked_map *asked, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (!lstat(asked[i].path, &st) && st.st_dev == asked[i].dev &&
		    st.st_ino == asked[i].ino && !unlink(asked[i].path))
			r->stats.jit_maps_removed++;
	}
}

int ember_record_result(struct ember_record *r, struct ember_intern *names,
			struct ember_stacks *stacks)
{
	double t0 = now_mono();
	int flags = (r->o.annotate_kernel ? REC_FOLD_KERNEL : 0) |
		    (r->o.annotate_jit ? REC_FOLD_JIT : 0) |
		    (r->o.inline_frames ? REC_FOLD_INLINE : 0) |
		    (r->o.annotate_inline ? REC_FOLD_INLINE_MARK : 0);
	struct asked_map *asked;
	size_t nasked = java_perfmaps(r, &asked);
	int err = rec_symbolize(&r->events, flags, r->o.perfmap_dir, names,
				stacks, &r->locs, &r->nlocs, &r->stats.inlined);

	jit_notes(r);
	if (r->jit_maps_ours)
		remove_jit_maps(r);
	remove_asked_maps(r, asked, nasked);
	free(asked);
	r->stats.stacks = stacks->n;
	r->stats.frames = r->events.frames.n;
	r->stats.processes = r->events.world.nprocs;
	r->stats.threads = r->events.world.tid_used;
	r->stats.post_seconds = now_mono() - t0;
	return err;
}
