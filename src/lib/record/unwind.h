/*
 * User-stack unwinding from a sample's registers and stack copy (DWARF
 * CFI from .eh_frame, jitdump CFI, known JIT trampolines, frame pointers).
 * Internal to libember: the profiler is its only client.
 */
#ifndef EMBER_UNWIND_H
#define EMBER_UNWIND_H

#include "internal.h"

/* One mapping of the target process, as its /proc/PID/maps line or MMAP2
 * record describes it. */
struct ember_unwind_mapping {
	uint64_t start, end, pgoff;
	uint64_t dev, ino;
	const char *path; /* backing file; NULL or "//anon" for anonymous */
	int exec;
};

/* The profiler's view of a process: the mapping holding addr, or NULL. */
typedef const struct ember_unwind_mapping *(*ember_unwind_find_fn)(
	void *ctx, uint64_t addr);

struct ember_unwind_regs {
	uint64_t ip, sp, bp;
};

struct ember_unwinder;
struct ember_unwinder *ember_unwinder_new(void);
void ember_unwinder_free(struct ember_unwinder *u);

/*
 * Walks the user stack of one sample.  stack holds stack_len bytes copied
 * from regs->sp upwards.  Writes the frames' addresses, the sampled ip
 * first and then each return address, into ips (at most max) and returns
 * how many; *truncated is set when the walk had to stop before the
 * stack's end (the caller then adds a "[truncated]" frame).
 */
size_t ember_unwind(struct ember_unwinder *u, int pid,
		    const struct ember_unwind_regs *regs, const uint8_t *stack,
		    size_t stack_len, ember_unwind_find_fn find, void *ctx,
		    uint64_t *ips, size_t max, int *truncated);

#endif
