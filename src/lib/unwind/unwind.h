/*
 * User-stack unwinding from a sample's registers and stack copy (DWARF
 * CFI from .eh_frame, jitdump CFI, known JIT trampolines, frame pointers).
 * Internal to libember: the profiler is its only client.
 *
 * Use: one unwinder for the whole recording.  For each sample of process
 * pid (the thread group id), pass its user ip/sp/bp and the copy of its
 * user stack, and a callback giving the process's mapping at an address.
 * Unwind while recording: the walk needs the process alive on a rule-cache
 * miss in anonymous executable memory (it reads a few code bytes with
 * process_vm_readv), and mappings must be the sample's; file-backed code
 * is read from the mapped files.
 *
 * With perf_event_open: sample_type |= PERF_SAMPLE_REGS_USER |
 * PERF_SAMPLE_STACK_USER, sample_regs_user = 0xf001c2 (BX, BP, SP, IP,
 * R12-R15: bits 1, 6, 7, 8, 20-23, in that order in the record; 0x1c0
 * for BP, SP, IP alone), sample_stack_user = 32768 (the
 * record's dyn_size is stack_len); skip samples whose regs abi is not
 * PERF_SAMPLE_REGS_ABI_64.  Side-band records: an MMAP2 of a file named
 * jit-PID.dump registers that jitdump (ember_unwinder_set_jitdump); an
 * MMAP2 over an existing mapping calls ember_unwinder_invalidate; exec
 * and exit call ember_unwinder_forget.  Jitdump timestamps compare with
 * sample times when the event uses CLOCK_MONOTONIC (use_clockid).
 */
#ifndef EMBER_UNWIND_H
#define EMBER_UNWIND_H

#include "internal.h"

struct ember_jitdump;

/* One mapping of the target process, as its /proc/PID/maps line or MMAP2
 * record describes it. */
struct ember_unwind_mapping {
	uint64_t start, end, pgoff;
	uint64_t dev;	  /* makedev(maj, min), as st_dev; 0 if unknown */
	uint64_t ino;	  /* 0 if unknown: files are then told apart by path */
	const char *path; /* backing file, "[vdso]"; NULL, "//anon" or any
			   * name not starting with '/' for anonymous memory */
	int exec;
};

/* The profiler's view of a process: the mapping holding addr, or NULL. */
typedef const struct ember_unwind_mapping *(*ember_unwind_find_fn)(
    void *ctx, uint64_t addr);

/* Reads n bytes of process pid's memory at addr into buf; returns how
 * many it could read. */
typedef size_t (*ember_unwind_read_fn)(void *ctx, int pid, uint64_t addr,
				       void *buf, size_t n);

/* The sampled user registers: ip, sp and the callee-saved ones that CFI
 * rules may need (rbx, r12-r15; 0 when not sampled). */
struct ember_unwind_regs {
	uint64_t ip, sp, bp;
	uint64_t bx, r12, r13, r14, r15;
};

/* Where the rule that stepped over a frame came from. */
enum {
	EMBER_SRC_CFI,	   /* .eh_frame of a mapped file */
	EMBER_SRC_JIT,	   /* jitdump unwinding info */
	EMBER_SRC_PATTERN, /* a recognised code sequence */
	EMBER_SRC_FP,	   /* frame-pointer fallback */
	EMBER_SRC_COUNT
};

struct ember_unwind_stats {
	uint64_t samples, frames; /* frames returned, leaf ips included */
	uint64_t truncated;	  /* samples that stopped early */
	uint64_t cache_hits, cache_misses;
	uint64_t by_src[EMBER_SRC_COUNT]; /* frames stepped, by source */
	/* why walks stopped early */
	uint64_t stop_no_exec; /* address outside any executable mapping */
	uint64_t stop_stack;   /* read outside the stack copy */
	uint64_t stop_sp;      /* stack pointer did not move up */
	uint64_t stop_max;     /* max frames reached */
	uint64_t stop_no_rule; /* nothing could unwind the frame */
	uint64_t files, files_failed; /* ELF files loaded / not loadable */
	uint64_t jit_updates;	      /* jitdump re-reads on a miss */
};

/* Flags (ember_unwinder_set_flags), mostly for testing. */
#define EMBER_UNWIND_NO_FP	 1 /* no frame-pointer fallback */
#define EMBER_UNWIND_NO_PATTERNS 2 /* no code-pattern rules */
#define EMBER_UNWIND_NO_CACHE	 4 /* compute every rule afresh */

/* An unwinder is used by one thread at a time. */
struct ember_unwinder;
struct ember_unwinder *ember_unwinder_new(void);
void ember_unwinder_free(struct ember_unwinder *u);
void ember_unwinder_set_flags(struct ember_unwinder *u, unsigned flags);
/* Replaces process_vm_readv for reading code bytes (NULL restores it). */
void ember_unwinder_set_reader(struct ember_unwinder *u,
			       ember_unwind_read_fn fn, void *ctx);

/*
 * Walks the user stack of one sample.  stack holds stack_len bytes copied
 * from regs->sp upwards.  Writes the frames' addresses, the sampled ip
 * first and then each return address, into ips (at most max) and returns
 * how many; *truncated is set when the walk had to stop before the
 * stack's end (the caller then adds a "[truncated]" frame), to
 * EMBER_UNWIND_PAST_COPY when it needed stack beyond the copy.  No frame is
 * ever guessed: every step is validated (the stack pointer moves up and
 * stays in the copy, the return address is in an executable mapping).
 *
 * Symbolize ips[0] as is and ips[i > 0] at ips[i] - 1 (the call
 * instruction).  A frame interrupted by a signal is reported as its ip + 1
 * so that the same rule holds.
 */
#define EMBER_UNWIND_PAST_COPY 2
size_t ember_unwind(struct ember_unwinder *u, int pid,
		    const struct ember_unwind_regs *regs, const uint8_t *stack,
		    size_t stack_len, ember_unwind_find_fn find, void *ctx,
		    uint64_t *ips, size_t max, int *truncated);

/* The mappings of pid changed in a way that may put other code at an
 * address seen before (exec, a new mapping over an old one, JIT code
 * replaced): forget its cached rules. */
void ember_unwinder_invalidate(struct ember_unwinder *u, int pid);
/* The process exited: forget it (its jitdump is not freed). */
void ember_unwinder_forget(struct ember_unwinder *u, int pid);
/* Unwinding info for pid's JIT code (owned by the caller, who keeps it
 * alive while registered; NULL unregisters).  The unwinder re-reads it
 * when it meets JIT code the dump does not cover yet. */
void ember_unwinder_set_jitdump(struct ember_unwinder *u, int pid,
				struct ember_jitdump *jd);

const struct ember_unwind_stats *
ember_unwinder_stats(const struct ember_unwinder *u);

/* CPython's perf trampoline, the code of each "py::" perf map entry. */
extern const uint8_t ember_py_trampoline[11];

#endif
