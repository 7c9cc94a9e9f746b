/*
 * Interpreters' own stacks (interp/): one reader per runtime behind one
 * interface.  A reader tells whether a process runs its interpreter (from
 * the files it maps and their dynamic symbols), configures the BPF
 * program that reads the interpreter's frames at each sample
 * (interp-abi.h), says which native frames are its eval loop, and names
 * the raw frames the program sends, reading the process's memory while
 * it runs (names cached, and checked against the frame's first line).
 */
#ifndef EMBER_INTERP_INTERP_H
#define EMBER_INTERP_INTERP_H

#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "interp/interp-abi.h"

struct rec_interp_proc;
struct rec_elf;

/* The eval loop of an interpreter: a range of file offsets of one file,
 * where a run of interpreter frames goes in the native stack. */
struct rec_interp_eval {
	char *path; /* as the process names it */
	uint64_t dev, ino;
	uint64_t lo, hi; /* file offsets [lo, hi) */
};

/* A run of code units (from unit on, to the next one's) on one line. */
struct rec_interp_line {
	uint32_t unit;
	uint32_t line; /* 0: none */
};

/* One runtime's reader.  The files of one process were found to map
 * something of this runtime; detect reads the rest. */
struct rec_interp_ops {
	const char *runtime; /* "CPython" */
	/* whether a mapped file (its base name) may be this runtime's */
	int (*maybe)(const char *base);
	/* fills ip (cfg, eval, version) from the ELF file e, mapped by
	 * the process at bias; 0, EMBER_ENOENT (not this runtime), or an
	 * error with why */
	int (*detect)(struct rec_interp_proc *ip, struct rec_elf *e,
		      uint64_t bias, struct ember_buf *why);
	/* appends the name of frame f; 0, or -1 if it cannot be read */
	int (*name)(struct rec_interp_proc *ip,
		    const struct ember_interp_frame *f, struct ember_buf *out);
	/* 1 when f only marks where the eval loop was entered (skipped);
	 * 2 when f is the outermost frame of its eval loop's run */
	int (*boundary)(const struct rec_interp_proc *ip,
			const struct ember_interp_frame *f);
	/* appends the line table of f's code (struct rec_interp_line,
	 * by unit); 0, or -1 if it cannot be read */
	int (*lines)(struct rec_interp_proc *ip,
		     const struct ember_interp_frame *f, struct ember_buf *out);
	/* the code unit f executes (UINT64_MAX: not in its code) */
	uint64_t (*unit)(const struct rec_interp_proc *ip,
			 const struct ember_interp_frame *f);
};

struct rec_interp_proc {
	int pid;
	const struct rec_interp_ops *ops;
	char version[16]; /* "3.12.1" */
	struct ember_interp_cfg cfg;
	struct rec_interp_eval eval;
	/* the runtime's own (CPython: offsets in code and string objects) */
	uint64_t u[16];
	struct rec_interp_names *names; /* name cache */
	uint64_t name_reads, name_fails;
};

/* The runtime that process pid runs (through procfd, /proc/PID): 0 with
 * *out set, EMBER_ENOENT when it runs none ember reads, or an error with
 * why (a runtime's version ember does not know). */
int rec_interp_detect(int pid, int procfd, struct rec_interp_proc **out,
		      struct ember_buf *why);
void rec_interp_proc_free(struct rec_interp_proc *ip);
/* Whether any reader may read a process mapping a file of that base name
 * (a cheap filter before rec_interp_detect). */
int rec_interp_maybe(const char *base);
/* The name of frame f ("py::qualname:file.py"), cached with its code's
 * line table, and in *line the line it executes (0: unknown); NULL when
 * its code cannot be read.  Valid until the next call. */
const char *rec_interp_frame_name(struct rec_interp_proc *ip,
				  const struct ember_interp_frame *f,
				  size_t *len, uint32_t *line);

/* Reads n bytes at addr of process pid; 0 or -1. */
int rec_interp_read(int pid, uint64_t addr, void *dst, size_t n);

extern const struct rec_interp_ops rec_interp_cpython;

#endif
