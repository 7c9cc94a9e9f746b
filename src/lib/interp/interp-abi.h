/*
 * What the BPF program (record/interp.bpf.c) and ember share: a process's
 * interpreter configuration, set by user space, and the raw interpreter
 * frames of one sample, sent by the program.  Included by BPF C (types of
 * vmlinux.h) and by C (linux/types.h): fixed-size types only.
 */
#ifndef EMBER_INTERP_ABI_H
#define EMBER_INTERP_ABI_H

#define EMBER_INTERP_MAX_FRAMES	 128
#define EMBER_INTERP_MAX_THREADS 64	/* tstates searched for a new thread */
#define EMBER_INTERP_NONE	 0xffff /* an offset the version does not have */

/* The interpreter of one process (key: its pid in ember's namespace).
 * Offsets are bytes; EMBER_INTERP_NONE where a version lacks the field. */
struct ember_interp_cfg {
	__u64 runtime;	 /* address of _PyRuntime */
	__u64 pidns_dev; /* the process's PID namespace (0: ember's) */
	__u64 pidns_ino;
	__u16 interp_head;    /* runtime -> first PyInterpreterState * */
	__u16 threads_head;   /* interpreter -> first PyThreadState * */
	__u16 ts_next;	      /* thread state -> next */
	__u16 ts_tid;	      /* thread state -> native_thread_id */
	__u16 ts_frame;	      /* thread state -> cframe or current_frame */
	__u16 cframe_frame;   /* cframe -> current_frame (NONE: no cframe) */
	__u16 f_code;	      /* frame -> code object */
	__u16 f_previous;     /* frame -> previous */
	__u16 f_instr;	      /* frame -> prev_instr / instr_ptr */
	__u16 f_owner;	      /* frame -> owner (char) */
	__u16 f_entry;	      /* frame -> is_entry (3.11), NONE */
	__u16 co_firstlineno; /* code -> co_firstlineno (int) */
	__u32 pad;
};

/* One interpreter frame, innermost first in a sample. */
struct ember_interp_frame {
	__u64 code;  /* the code object's address */
	__u64 instr; /* the instruction pointer in it */
	__s32 firstlineno;
	__u8 owner;
	__u8 entry; /* 3.11 is_entry */
	__u16 pad;
};

/* Flags of a sample. */
#define EMBER_INTERP_TRUNCATED 1 /* more frames than MAX_FRAMES */
#define EMBER_INTERP_FAULT     2 /* a frame could not be read */
/* no frames: a process ember did not configure was sampled (once per
 * pid and name), in case it runs an interpreter; its name (comm, 16
 * bytes) follows the sample's head */
#define EMBER_INTERP_ASK 4

/* The frames of one sample: written at the sample, before the kernel
 * writes its own perf record of it (same task, a moment later). */
struct ember_interp_sample {
	__u64 time; /* bpf_ktime_get_ns: CLOCK_MONOTONIC */
	__u32 pid, tid, cpu;
	__u16 nframes;
	__u16 flags;
	struct ember_interp_frame frames[EMBER_INTERP_MAX_FRAMES];
};

/* Counters of the program (per CPU, summed by user space). */
enum {
	EMBER_INTERP_STAT_SAMPLES, /* samples of configured processes */
	EMBER_INTERP_STAT_NO_TSTATE,
	EMBER_INTERP_STAT_FAULTS,
	EMBER_INTERP_STAT_RING_FULL,
	EMBER_INTERP_STAT_COUNT
};

#endif
