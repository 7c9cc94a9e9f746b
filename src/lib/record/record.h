/*
 * The profiler's internal interfaces: symbol tables, ELF files, debug-file
 * lookup, kernel symbols, perf maps, per-process mappings, perf_event rings
 * and the launch of targets.  Internal to libember; ember.h's record API is
 * built on them.
 */
#ifndef EMBER_RECORD_H
#define EMBER_RECORD_H

#include <sys/types.h>

#include "internal.h"
#include "record/unwind.h"

/* ---- symbol tables (symtab.c) ----------------------------------------- */

/*
 * A sorted array of [start, end) symbols.  Names point into memory the
 * owner keeps alive (an ELF string table, or the table's arena).  Symbols
 * added with the same start are resolved as perf resolves aliases, so that
 * frame names match `perf script`'s.
 */
struct rec_sym {
	uint64_t start, end;
	const char *name;
	char *demangled; /* lazily, see rec_symtab_name */
	uint32_t seq;	 /* order of addition */
	uint8_t bind;	 /* STB_LOCAL, STB_GLOBAL, STB_WEAK */
	uint8_t demangle_done;
	uint8_t module; /* kallsyms: a module's symbol */
	uint8_t sized;	/* its size came with it */
};

enum rec_symtab_kind {
	REC_SYMTAB_ELF,	     /* aliases as perf: sized, global, fewer '_' */
	REC_SYMTAB_KALLSYMS, /* the same, and sizes from the next symbol */
	REC_SYMTAB_PERFMAP,  /* JIT code: the last entry covering wins */
};

struct rec_symtab {
	struct rec_sym *syms;
	size_t n, alloc;
	struct ember_arena arena; /* names added with copy=1 */
	int kind;
	int demangle; /* names are C++/Rust symbols to demangle */
};

void rec_symtab_init(struct rec_symtab *st, int kind);
void rec_symtab_release(struct rec_symtab *st);
/* size 0: up to the next symbol.  The name is copied when copy is set. */
void rec_symtab_add(struct rec_symtab *st, uint64_t start, uint64_t size,
		    const char *name, size_t len, int bind, int copy);
/* Sorts and resolves aliases; call once after the last add. */
void rec_symtab_finish(struct rec_symtab *st);
const struct rec_sym *rec_symtab_find(const struct rec_symtab *st,
				      uint64_t addr);
/* The symbol's name as perf prints it: demangled (once) when the table
 * holds mangled names. */
const char *rec_symtab_name(struct rec_symtab *st, const struct rec_sym *s);
/* C++ or Rust name demangled as perf does (no parameters), or NULL. */
char *rec_demangle(const char *name);

/* ---- ELF files (elf.c) -------------------------------------------------- */

struct rec_load {
	uint64_t off, filesz, vaddr;
};

struct rec_elf {
	int fd;
	void *elf; /* Elf * */
	void *mem; /* an in-memory image (the vdso), owned */
	int type;  /* ET_EXEC, ET_DYN */
	struct rec_load loads[16];
	size_t nloads;
	uint8_t build_id[64];
	size_t build_id_len;
	char *debuglink;
	uint32_t debuglink_crc;
	int has_symtab, has_dynsym;
};

int rec_elf_open(struct rec_elf *e, const char *path) EMBER_WUR;
/* An image in memory (copied). */
int rec_elf_open_mem(struct rec_elf *e, const void *p, size_t n) EMBER_WUR;
void rec_elf_close(struct rec_elf *e);
/* File offset to the address symbols and CFI use; 0 or EMBER_ENOENT. */
int rec_elf_off_to_vaddr(const struct rec_elf *e, uint64_t off,
			 uint64_t *vaddr);
/* Adds the functions of .symtab (dynsym=0) or .dynsym (dynsym=1); names
 * stay in the ELF file's memory.  Returns how many. */
size_t rec_elf_symbols(struct rec_elf *e, struct rec_symtab *st, int dynsym);
/* Adds "name@plt" for each PLT slot, as perf synthesizes them. */
size_t rec_elf_plt_symbols(struct rec_elf *e, struct rec_symtab *st);

/* ---- separate debug files (debuginfo.c) ------------------------------- */

/* Opens the separate debug file of e (by build-id, then .gnu_debuglink
 * next to path, in its .debug/ and under the debug root), or returns
 * EMBER_ENOENT.  root NULL means /usr/lib/debug. */
int rec_debuginfo_open(const struct rec_elf *e, const char *path,
		       const char *root, struct rec_elf *out,
		       char **found) EMBER_WUR;
/* The CRC-32 .gnu_debuglink uses, of a whole file. */
int rec_file_crc32(int fd, uint32_t *crc) EMBER_WUR;

/* ---- kernel symbols (kallsyms.c) -------------------------------------- */

/* Loads kernel text symbols from a kallsyms file (NULL: /proc/kallsyms).
 * EMBER_EPERM when the addresses are hidden (kernel.kptr_restrict). */
int rec_kallsyms_load(struct rec_symtab *st, const char *path) EMBER_WUR;
/* Parses kallsyms text already in memory (for tests). */
size_t rec_kallsyms_parse(struct rec_symtab *st, const char *p, size_t n);

/* ---- perf maps (perfmap.c) -------------------------------------------- */

/* What the profiler knows of the process that should have written a map. */
struct rec_perfmap_owner {
	int pid;
	uid_t uid;
	int uid_known;
	double start, end; /* realtime seconds; end 0 = still running */
};

enum {
	REC_PERFMAP_OK,
	REC_PERFMAP_MISSING,
	REC_PERFMAP_NOT_REGULAR, /* a symlink, a directory ... */
	REC_PERFMAP_FOREIGN,	 /* owned by another user */
	REC_PERFMAP_STALE,	 /* written before the process started */
	REC_PERFMAP_NEWER,	 /* written after the process ended */
};

/* Loads /tmp/perf-PID.map (dir NULL: /tmp) if it can be trusted for the
 * owner; returns a REC_PERFMAP_* verdict, and in why a message for the
 * cases that deserve a warning. */
int rec_perfmap_load(struct rec_symtab *st, const char *dir,
		     const struct rec_perfmap_owner *owner,
		     struct ember_buf *why);
/* Parses perf map text ("START SIZE NAME" lines); returns entries added,
 * and the count of malformed lines in *bad. */
size_t rec_perfmap_parse(struct rec_symtab *st, const char *p, size_t n,
			 size_t *bad);

/* ---- processes and their mappings (procmap.c) ------------------------- */

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
	uint32_t comm; /* interned comm of the main thread */
	struct rec_perfmap_owner owner;
	int exited;
	/* the symbolizer's perf map */
	int perfmap_state; /* 0 not tried, else REC_PERFMAP_* + 1 */
	struct rec_symtab perfmap;
	/* its jitdump (jit-PID.dump, owned), found by the MMAP2 of it */
	struct ember_jitdump *jd;
	uint64_t jd_checked; /* sample time it was last re-read at */
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

/* ---- perf_event_open (perf.c) ----------------------------------------- */

struct rec_event_desc {
	const char *name, *alias;
	uint32_t type;
	uint64_t config;
	int clock; /* period in ns */
};
/* Looks an event name up (perf's names and aliases); NULL if unknown. */
const struct rec_event_desc *rec_event_lookup(const char *name);
/* The names, for messages. */
const char *rec_event_names(void);

struct rec_ring {
	int fd;
	int cpu;
	void *base;
	size_t size; /* mapping size: header page + data */
	uint64_t data_size;
	char *scratch; /* for records that wrap around */
	size_t ascratch;
};

/* Maps the ring of fd (1 + pages pages); 0 or an EMBER_E* code with errno
 * set. */
int rec_ring_map(struct rec_ring *r, int fd, int cpu, size_t pages) EMBER_WUR;
void rec_ring_unmap(struct rec_ring *r);
/* Calls fn for each record in the ring, then frees their space. Stops
 * and returns nonzero on a corrupt ring. */
typedef void (*rec_record_fn)(void *ctx, const void *rec, size_t size);
int rec_ring_drain(struct rec_ring *r, rec_record_fn fn, void *ctx);

/* sysctl values; -1 if unreadable */
long rec_sysctl_long(const char *name);
/* The online CPUs into *cpus (malloc'd); returns how many, or 0. */
size_t rec_online_cpus(int **cpus);

/* ---- targets (target.c) ------------------------------------------------ */

struct rec_child {
	pid_t pid;
	int go_fd;  /* write a byte to let it exec */
	int err_fd; /* exec's errno, or EOF on success */
	int pidfd;
	int reaped;
	int status; /* waitpid status */
};

/* Forks argv[0]; the child waits until rec_child_go.  jit_env sets the
 * variables that make Python and Node write perf maps. */
int rec_child_fork(struct rec_child *c, char *const *argv, int jit_env,
		   int *err) EMBER_WUR;
/* Lets the child exec; returns 0, or the errno of a failed exec. */
int rec_child_go(struct rec_child *c);
/* Non-blocking (block=0) or blocking reap; 1 once reaped. */
int rec_child_reap(struct rec_child *c, int block);
void rec_child_kill(struct rec_child *c, int sig);
/* The environment additions jit_env makes, for a given old value. */
char *rec_jit_node_options(const char *old);

/* The tids of a process (from /proc/PID/task); returns how many. */
size_t rec_list_tasks(int pid, int **tids);
/* The process (thread group) a thread id belongs to; pid if unknown. */
int rec_tgid(int pid);
/* Every pid in /proc. */
size_t rec_list_pids(int **pids);
/* A pidfd for pid, or -1. */
int rec_pidfd_open(int pid);

/* ---- frames and the recording session (events.c, record.c) ---------- */

enum rec_frame_kind {
	REC_FRAME_ROOT,	     /* obj: id in the session's roots */
	REC_FRAME_KERNEL,    /* addr: kernel address */
	REC_FRAME_DSO,	     /* obj: dso id, addr: file offset */
	REC_FRAME_JIT,	     /* obj: process instance id, addr */
	REC_FRAME_UNKNOWN,   /* not in any executable mapping */
	REC_FRAME_TRUNCATED, /* the unwinder stopped short of the root */
};

struct rec_frame {
	uint64_t addr;
	/* JIT frames of a process with a jitdump: the time its code was
	 * loaded (or moved) there, 0 when the dump did not have it yet */
	uint64_t stamp;
	uint64_t seen; /* not in the key: the first sample's time */
	uint32_t obj;
	uint32_t kind;
};

/* Unique frames: (kind, obj, addr) -> dense id. */
struct rec_frames {
	struct rec_frame *v;
	size_t n, alloc;
	uint32_t *slots; /* id + 1, 0 empty */
	size_t mask;
};
void rec_frames_init(struct rec_frames *f);
void rec_frames_release(struct rec_frames *f);
uint32_t rec_frames_id(struct rec_frames *f, uint32_t kind, uint32_t obj,
		       uint64_t addr);
/* The same with a JIT code's load time (stamp) as part of the key; seen
 * is kept from the first call for a frame. */
uint32_t rec_frames_id_at(struct rec_frames *f, uint32_t kind, uint32_t obj,
			  uint64_t addr, uint64_t stamp, uint64_t seen);

/* ---- off-CPU time (offcpu.c) ------------------------------------------- */

struct perf_event_attr;
struct rec_offcpu;
/* Finds the sched:sched_switch tracepoint (mounting tracefs if need be);
 * 0, or an EMBER_E* code with the reason in why. */
int rec_offcpu_new(struct rec_offcpu **o, uint64_t min_block_us,
		   struct ember_buf *why) EMBER_WUR;
void rec_offcpu_free(struct rec_offcpu *o);
/* Makes a's event the switch tracepoint, with switch records. */
void rec_offcpu_attr(const struct rec_offcpu *o, struct perf_event_attr *a);
/* Whether a sample's raw data is the tracepoint's (not a CPU sample's). */
int rec_offcpu_is_switch(const struct rec_offcpu *o, const void *raw, size_t n);

/* One queued perf record, for the time-ordered merge of the rings. */
struct rec_qent {
	uint64_t time, seq;
	void *rec;
};

struct ember_record {
	struct ember_record_options o;
	char **argv;
	int *pids;
	const struct rec_event_desc *ev;
	uint64_t sample_type, regs_mask;
	struct rec_offcpu *off; /* --off-cpu, --wall */
	int kinds[2];		/* the events per target and CPU: */
	int nkinds;		/* REC_EV_*, the first carries side-band */
	int dwarf;		/* user stacks from copies: sample_type has
				 * REGS_USER and STACK_USER */
	struct ember_unwinder *unwinder; /* when dwarf */
	char fallback[160]; /* why AUTO fell back to frame pointers */
	int *cpus;
	size_t ncpus;
	int *fds;
	size_t nfds, afds;
	struct rec_ring *rings; /* one per CPU */
	struct rec_child child;
	int have_child;
	int *pidfds; /* of the attached processes, -1 unknown */
	struct rec_world world;
	struct rec_frames frames;
	struct ember_intern roots;
	struct ember_stacks stacks; /* of frame ids, root first */
	struct rec_qent *q;
	size_t nq, aq;
	uint64_t seq, round_max, prev_round_max;
	uint64_t *ubuf;
	uint32_t *ibuf;
	struct ember_record_stats stats;
	volatile int stop;
	int started, ran, corrupt;
	double t_start, t_stop; /* monotonic seconds */
	char err[768];
};

enum { REC_EV_SAMPLE, REC_EV_SWITCH };

/* A thread left the CPU at time: ids (room for one more) is its stack,
 * raw the tracepoint's data (offcpu.c). */
void rec_offcpu_out(struct ember_record *r, int tid, uint64_t time,
		    const void *raw, size_t rawlen, uint32_t *ids, size_t n);
/* A thread runs again at time: its wait is charged. */
void rec_offcpu_in(struct ember_record *r, int tid, uint64_t time);
/* Charges the waits still going on at end. */
void rec_offcpu_finish(struct ember_record *r, uint64_t end);

/* Handles one perf record, in time order (events.c). */
void rec_handle(struct ember_record *r, const void *rec, size_t size);
/* The record's time from its sample_id (0 when it has none). */
uint64_t rec_time(const struct ember_record *r, const void *rec, size_t size);
/* Fills what /proc tells of running processes: -p and -a (events.c). */
void rec_synthesize_pid(struct ember_record *r, int pid);
/* The jitdump of p's JIT code: its own, or a forked parent's. */
struct ember_jitdump *rec_proc_jitdump(const struct rec_proc *p);
/* Whether a mapped file's name is a jitdump's: "jit-PID.dump" in any
 * directory. */
int rec_is_jitdump_name(const char *path, size_t len);

/* Names every frame (symbolize.c): frame i becomes the folded frames
 * (*ids)[off[i] .. off[i + 1]) (malloc'd; off has frames.n + 1 slots). */
void rec_symbolize(struct ember_record *r, struct ember_intern *names,
		   uint32_t **ids, size_t *off);

enum {
	REC_FOLD_JAVA = 1,   /* a java process: Lcom/x/Y;.m -> com/x/Y:.m */
	REC_FOLD_KERNEL = 2, /* --kernel: _[k] */
	REC_FOLD_JIT = 4,    /* --jit: _[j] */
};
/* What `ember collapse perf` makes of a perf script frame line "ADDR SYM
 * (DSO)": frame names appended to out, callers first, joined by ';'.
 * Returns how many (0: perf's "(...)" pseudo-frames are left out). */
int rec_fold_frame(struct ember_buf *out, const char *sym, size_t n,
		   const char *dso, size_t dn, int flags);

#endif
