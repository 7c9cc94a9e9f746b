/*
 * Reader of perf jitdump files (jit-PID.dump, written by JIT runtimes such
 * as CPython 3.13 -X perf_jit and node --perf-prof): code loads and moves,
 * names, line tables and unwinding info, read incrementally while the
 * runtime appends to the file.  Internal to libember.
 */
#ifndef EMBER_JITDUMP_H
#define EMBER_JITDUMP_H

#include "internal.h"

/* One line-table entry (JIT_CODE_DEBUG_INFO): code from addr on belongs
 * to file:line. */
struct ember_jit_line {
	uint64_t addr;
	int32_t line, discrim;
	const char *file;
};

/*
 * One piece of JIT code (a JIT_CODE_LOAD, or a JIT_CODE_MOVE of one).
 * Entries stay valid, at the same address, until ember_jitdump_free().
 */
struct ember_jit_code {
	uint64_t addr, size; /* the code is [addr, addr + size) */
	uint64_t vma;
	uint64_t index;	   /* code_index, unique per load */
	uint64_t time;	   /* timestamp of the LOAD or MOVE */
	uint64_t end_time; /* moved away at; UINT64_MAX while still there */
	uint32_t pid, tid;
	const char *name;
	/* JIT_CODE_UNWINDING_INFO for this code (NULL when none, or when
	 * it held no FDE): .eh_frame and .eh_frame_hdr as perf places them,
	 * at addr + ALIGN8(size) and right after the .eh_frame. */
	const uint8_t *eh_frame, *eh_frame_hdr;
	size_t eh_frame_len, eh_frame_hdr_len;
	uint64_t eh_frame_addr, eh_frame_hdr_addr;
	const struct ember_jit_line *lines; /* JIT_CODE_DEBUG_INFO */
	size_t nlines;
	uint64_t code_off; /* where the code bytes are in the dump, or
			    * UINT64_MAX */
};

struct ember_jitdump_info {
	uint32_t version, elf_mach, pid;
	uint64_t timestamp, flags; /* flags & 1: TSC timestamps */
	uint64_t bytes;		   /* parsed so far (whole records) */
	uint64_t records, bad_records;
	int closed; /* JIT_CODE_CLOSE seen */
};

struct ember_jitdump;

/* Opens a jitdump file and reads the records already there.  Returns 0,
 * EMBER_ENOENT/EMBER_EIO, or EMBER_EFORMAT when it is not a jitdump. */
int ember_jitdump_open(const char *path, struct ember_jitdump **out) EMBER_WUR;
/* The same from an open file, which it takes over (closed on failure). */
int ember_jitdump_open_fd(int fd, struct ember_jitdump **out) EMBER_WUR;
/* A jitdump held in memory (the bytes are copied): tests and fuzzing. */
int ember_jitdump_from_memory(const void *p, size_t n,
			      struct ember_jitdump **out) EMBER_WUR;
void ember_jitdump_free(struct ember_jitdump *jd);

/*
 * Reads the records appended since the last call.  A record still being
 * written is left for the next call.  Returns the number of code entries
 * added, or EMBER_EIO/EMBER_EFORMAT.  Cheap when nothing was appended
 * (one fstat).
 */
int ember_jitdump_update(struct ember_jitdump *jd) EMBER_WUR;

const struct ember_jitdump_info *
ember_jitdump_info(const struct ember_jitdump *jd);

/* Code entries in the order they were loaded. */
size_t ember_jitdump_count(const struct ember_jitdump *jd);
const struct ember_jit_code *ember_jitdump_get(const struct ember_jitdump *jd,
					       size_t i);

/*
 * The code covering addr at time t (the dump's clock; UINT64_MAX for "the
 * latest"): among the entries covering addr, the last one loaded at or
 * before t and not moved away by t; else the latest one.  NULL if none.
 */
const struct ember_jit_code *ember_jitdump_find(struct ember_jitdump *jd,
						uint64_t addr, uint64_t t);

/* The source line of addr inside c: 0 with *file and *line set, or
 * EMBER_ENOENT. */
int ember_jitdump_line(const struct ember_jit_code *c, uint64_t addr,
		       const char **file, int *line);

/* Copies up to n code bytes of c starting at addr; returns how many
 * (0 when the dump holds no code for it). */
size_t ember_jitdump_read_code(struct ember_jitdump *jd,
			       const struct ember_jit_code *c, uint64_t addr,
			       void *buf, size_t n);

#endif
