/*
 * Reads the interpreter frames of the sampled thread at each sample of
 * ember's sampling event: the thread state of the interrupted thread
 * (remembered per thread, else searched in the interpreter's thread
 * list), then its frame chain, innermost first.  Only raw addresses go to
 * user space, which names them; the perf sample itself is still written
 * by the kernel (the program returns 1).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "interp/interp-abi.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32); /* pid */
	__type(value, struct ember_interp_cfg);
} interp_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);   /* tid */
	__type(value, __u64); /* its PyThreadState */
} interp_tstate SEC(".maps");

/* the processes told of (EMBER_INTERP_ASK): a new name is a new image */
struct ask_key {
	__u32 pid;
	char comm[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, struct ask_key);
	__type(value, __u8);
} interp_asked SEC(".maps");

struct scratch {
	struct ember_interp_sample s;
	__u8 frame[256]; /* 80 read, fields at offsets < 128 */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} interp_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, EMBER_INTERP_STAT_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} interp_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} interp_events SEC(".maps");

static void count(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&interp_stats, &which);

	if (v)
		*v += 1;
}

static __u64 read_ptr(__u64 addr)
{
	__u64 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (const void *)addr))
		return 0;
	return v;
}

/* The thread's id as the interpreter knows it (its own PID namespace). */
static __u32 ns_tid(const struct ember_interp_cfg *c, __u32 tid)
{
	struct bpf_pidns_info ns;

	if (!c->pidns_ino)
		return tid;
	if (bpf_get_ns_current_pid_tgid(c->pidns_dev, c->pidns_ino, &ns,
					sizeof(ns)))
		return 0;
	return ns.pid;
}

static __u64 find_tstate(const struct ember_interp_cfg *c, __u32 tid)
{
	__u32 want = ns_tid(c, tid);
	__u64 *known = bpf_map_lookup_elem(&interp_tstate, &tid);
	__u64 ts;

	if (!want)
		return 0;
	if (known) {
		ts = *known;
		if (ts && read_ptr(ts + c->ts_tid) == want)
			return ts;
		bpf_map_delete_elem(&interp_tstate, &tid);
	}
	__u64 interp = read_ptr(c->runtime + c->interp_head);
	if (!interp)
		return 0;
	ts = read_ptr(interp + c->threads_head);
	for (int i = 0; i < EMBER_INTERP_MAX_THREADS && ts; i++) {
		if (read_ptr(ts + c->ts_tid) == want) {
			bpf_map_update_elem(&interp_tstate, &tid, &ts, BPF_ANY);
			return ts;
		}
		ts = read_ptr(ts + c->ts_next);
	}
	return 0;
}

/* The field at off (< 120) of the frame read into b. */
static __u64 field64(const __u8 *b, __u32 off)
{
	__u64 v;

	__builtin_memcpy(&v, b + (off & 127), sizeof(v));
	return v;
}

/* Tells user space, once per pid and name, of a process it did not
 * configure: an interpreter that started since is configured at once,
 * not when its records have been read. */
static void ask(__u32 pid, __u32 tid)
{
	struct ask_key k = {};
	__u8 one = 1;

	k.pid = pid;
	bpf_get_current_comm(k.comm, sizeof(k.comm));
	if (bpf_map_lookup_elem(&interp_asked, &k) ||
	    bpf_map_update_elem(&interp_asked, &k, &one, BPF_NOEXIST))
		return;
	/* a sample's head, without frames */
	struct {
		__u64 time;
		__u32 pid, tid, cpu;
		__u16 nframes, flags;
		char comm[16];
	} s = {};
	_Static_assert(
	    __builtin_offsetof(typeof(s), comm) ==
		__builtin_offsetof(struct ember_interp_sample, frames),
	    "a sample's head");
	__builtin_memcpy(s.comm, k.comm, sizeof(s.comm));
	s.time = bpf_ktime_get_ns();
	s.pid = pid;
	s.tid = tid;
	s.flags = EMBER_INTERP_ASK;
	bpf_ringbuf_output(&interp_events, &s, sizeof(s), 0);
}

SEC("perf_event")
int ember_interp_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32, tid = (__u32)id, zero = 0;
	struct ember_interp_cfg *c = bpf_map_lookup_elem(&interp_cfg, &pid);
	struct scratch *sc;

	if (!pid)
		return 1;
	if (!c) {
		ask(pid, tid);
		return 1;
	}
	sc = bpf_map_lookup_elem(&interp_scratch, &zero);
	if (!sc)
		return 1;
	count(EMBER_INTERP_STAT_SAMPLES);
	__u64 ts = find_tstate(c, tid);
	if (!ts) {
		count(EMBER_INTERP_STAT_NO_TSTATE);
		return 1;
	}
	__u64 f = read_ptr(ts + c->ts_frame);
	if (f && c->cframe_frame != EMBER_INTERP_NONE)
		f = read_ptr(f + c->cframe_frame);
	struct ember_interp_sample *s = &sc->s;
	__u32 n = 0;
	s->flags = 0;
	for (int i = 0; i < EMBER_INTERP_MAX_FRAMES; i++) {
		if (!f || (f & 7))
			break;
		if (bpf_probe_read_user(sc->frame, 80, (const void *)f)) {
			s->flags |= EMBER_INTERP_FAULT;
			break;
		}
		struct ember_interp_frame *o = &s->frames[i & 127];
		o->code = field64(sc->frame, c->f_code);
		o->instr = field64(sc->frame, c->f_instr);
		o->owner = sc->frame[c->f_owner & 127];
		o->entry = c->f_entry == EMBER_INTERP_NONE
			       ? 0
			       : sc->frame[c->f_entry & 127];
		o->firstlineno = 0;
		if (o->code)
			bpf_probe_read_user(
			    &o->firstlineno, sizeof(o->firstlineno),
			    (const void *)(o->code + c->co_firstlineno));
		n = i + 1;
		f = field64(sc->frame, c->f_previous);
	}
	if (f && n == EMBER_INTERP_MAX_FRAMES)
		s->flags |= EMBER_INTERP_TRUNCATED;
	if (s->flags & EMBER_INTERP_FAULT)
		count(EMBER_INTERP_STAT_FAULTS);
	s->time = bpf_ktime_get_ns();
	s->pid = pid;
	s->tid = tid;
	s->cpu = bpf_get_smp_processor_id();
	s->nframes = n;
	__u64 size = __builtin_offsetof(struct ember_interp_sample, frames) +
		     (__u64)(n & 255) * sizeof(struct ember_interp_frame);
	if (size > sizeof(*s))
		size = sizeof(*s);
	if (bpf_ringbuf_output(&interp_events, s, size, 0))
		count(EMBER_INTERP_STAT_RING_FULL);
	return 1;
}
