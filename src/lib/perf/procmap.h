/*
 * The processes, threads and mapped files a recording meets (procmap.c):
 * their mappings as MMAP2 records and /proc/PID/maps tell them.
 */
#ifndef EMBER_PERF_PROCMAP_H
#define EMBER_PERF_PROCMAP_H

#include "intern.h"
#include "symbols/elf.h"
#include "symbols/symtab.h"
#include "unwind/unwind.h"

enum rec_dso_kind {
	REC_DSO_FILE,
	REC_DSO_VDSO,
	REC_DSO_ANON,	 /* anonymous executable memory: JIT code */
	REC_DSO_SPECIAL, /* [vsyscall] and the like: no symbols */
};

/* A mapped file (or the vdso), shared by every process that maps it. */
struct rec_dso {
	char *path;	  /* as the kernel named it, " (deleted)" cut */
	const char *base; /* the basename, for "[libc.so.6]" */
	uint64_t dev, ino;
	int kind;
	int deleted;
	uint32_t id;
	/* filled by the symbolizer */
	int loaded, usable;
	struct rec_elf elf;
	struct rec_elf debug; /* separate debug file, if any */
	int has_debug;
	struct rec_symtab syms;
	/* the build-id the recording saw, when it told (perf.data) */
	uint8_t want_id[20];
	uint8_t want_len;
	int rebuilt; /* found by build-id, not at its path */
	/* the last process that mapped it, to read it as that process sees
	 * it (another mount namespace) */
	struct rec_proc *proc;
};

struct rec_map {
	struct ember_unwind_mapping m; /* start, end, pgoff, dev, ino, path */
	struct rec_dso *dso;
	int owner_pid; /* the pid that mapped it (names "perf-PID.map") */
};

/* One process image: a pid between fork (or exec) and exit (or exec). */
struct rec_proc {
	int pid;
	uint32_t id;		 /* index in the process list */
	struct rec_proc *parent; /* forked from (for its perf map) */
	struct rec_map *maps;	 /* sorted by start, no overlaps */
	size_t nmaps, amaps;
	uint32_t map_gen; /* bumped by each mapping added (events.c's caches) */
	uint32_t comm;	  /* interned comm of the main thread */
	struct rec_perfmap_owner owner;
	int exited;
	/* the symbolizer's perf map */
	int perfmap_state; /* 0 not tried, else REC_PERFMAP_* + 1 */
	struct rec_symtab perfmap;
	/* its jitdump (jit-PID.dump, owned), found by the MMAP2 of it */
	struct ember_jitdump *jd;
	uint64_t jd_checked; /* sample time it was last re-read at */
	/* a process in a container: its /tmp (an O_PATH descriptor, or -1)
	 * and its pid there, kept from when it was first seen while it ran,
	 * so that its perf map outlives its mount namespace */
	int root_seen;
	int tmp_fd, nspid;
	/* the unwinder's copy of its perf map (CPython's trampolines, once
	 * the process is gone), and when it was read (monotonic seconds) */
	struct rec_symtab *code_map;
	double code_map_read;
};

struct rec_thread {
	int tid;
	struct rec_proc *proc;
	uint32_t comm; /* interned */
};

/* All processes, threads and files seen. */
struct rec_world {
	struct rec_proc **procs; /* every instance ever, by id */
	size_t nprocs, aprocs;
	struct rec_proc **pid_slots; /* the current instance by pid */
	size_t pid_mask, pid_used;
	struct rec_thread **threads; /* open addressing by tid */
	size_t tid_mask, tid_used;
	struct rec_dso **dsos;
	size_t ndsos, adsos;
	struct rec_dso **dso_slots;
	size_t dso_mask;
	struct ember_intern comms; /* thread names */
	double clock_offset;	   /* realtime - monotonic, seconds */
	size_t held_roots;	   /* descriptors kept (hold_root) */
};

void rec_world_init(struct rec_world *w);
void rec_world_release(struct rec_world *w);
/* The current instance of pid, created (with no mappings) if unknown. */
struct rec_proc *rec_world_proc(struct rec_world *w, int pid);
struct rec_proc *rec_world_find_proc(struct rec_world *w, int pid);
/* A new instance for pid: a new process (fork) or a new image (exec).
 * parent, when given, lends its mappings (fork). */
struct rec_proc *rec_world_new_proc(struct rec_world *w, int pid,
				    struct rec_proc *parent, int copy_maps);
struct rec_thread *rec_world_thread(struct rec_world *w, int pid, int tid);
struct rec_thread *rec_world_find_thread(struct rec_world *w, int tid);
void rec_world_set_comm(struct rec_world *w, struct rec_thread *t,
			const char *comm, size_t len);
/* Adds an executable mapping (MMAP2 or a /proc/PID/maps line); the name
 * decides whether it is a file, the vdso or anonymous (JIT) memory.
 * Returns 1 when it replaced (part of) an older mapping. */
int rec_world_mmap(struct rec_world *w, struct rec_proc *p, uint64_t start,
		   uint64_t len, uint64_t pgoff, uint64_t dev, uint64_t ino,
		   const char *name, size_t namelen, int owner_pid);
const struct rec_map *rec_proc_find_map(const struct rec_proc *p,
					uint64_t addr);
/* An ember_unwind_find_fn over a rec_proc (ctx). */
const struct ember_unwind_mapping *rec_proc_unwind_find(void *ctx,
							uint64_t addr);
/* Reads /proc/PID/maps (dir NULL: /proc) into p; EMBER_ENOENT if gone. */
int rec_world_read_maps(struct rec_world *w, struct rec_proc *p,
			const char *dir) EMBER_WUR;
/* Parses maps text (for tests as well). */
void rec_world_parse_maps(struct rec_world *w, struct rec_proc *p,
			  const char *text, size_t n);
/* Fills owner.uid and owner.start from /proc/PID (when it still runs). */
void rec_world_read_owner(struct rec_world *w, struct rec_proc *p);

/* /proc/PID of p if p still runs (not another process under its pid), or
 * -1. */
int rec_proc_open_live(const struct rec_proc *p);
/* While p runs: when it sees another root than ember (a container), keeps
 * its /tmp and its pid there for its perf map.  Once per instance. */
void rec_world_hold_root(struct rec_world *w, struct rec_proc *p);
/* Reads p's perf map into st (initialised by the caller): from the /tmp
 * kept for it, else its /tmp through /proc/PID/root while it runs (dir
 * NULL), else dir (NULL: /tmp).  Returns REC_PERFMAP_*; why says why a map
 * was refused. */
int rec_proc_load_perfmap(struct rec_proc *p, const char *dir,
			  struct rec_symtab *st, struct ember_buf *why);

/* Whether p runs a HotSpot JVM (maps libjvm.so). */
int rec_proc_is_jvm(const struct rec_proc *p);

#endif
