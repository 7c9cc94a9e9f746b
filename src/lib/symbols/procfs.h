/*
 * A process's files as the process itself names them (procfs.c): through
 * /proc/PID/root, under its own namespace's PID, while it still runs.
 */
#ifndef EMBER_SYMBOLS_PROCFS_H
#define EMBER_SYMBOLS_PROCFS_H

#include <stdint.h>

/* /proc/PID as a directory descriptor, if pid still runs the process that
 * started at start (realtime seconds; 0 or less: not checked), else -1.
 * The descriptor stays bound to that process even if the pid is reused. */
int rec_procfs_open(int pid, double start);
/* Its start time (realtime seconds), or 0 if unknown. */
double rec_procfs_start(int procfd);
/* The pid the process has in its own PID namespace (the last field of
 * NSpid in its status), or pid when that cannot be read. */
int rec_procfs_nspid(int procfd, int pid);
/* 1 when the process sees another mount namespace (or root directory)
 * than ember, 0 the same, -1 when that cannot be told. */
int rec_procfs_other_root(int procfd);
/* Opens path, absolute as the process names it, inside the process's
 * root directory: symbolic links resolve within that root (or are
 * refused), never into ember's own file system; flags as for open(2)
 * (O_NOFOLLOW refuses a link as the last component).  -1 and errno set on
 * failure. */
int rec_procfs_open_in_root(int procfd, const char *path, int flags);
/* The same below rootfd without openat2 (kernels before 5.6, seccomp
 * filters): each directory opened without following a link, "." and ".."
 * refused. */
int rec_procfs_walk_in_root(int rootfd, const char *path, int flags);
/* Opens, read-only, the file a process maps at [start, end) from path (as
 * it names it), device dev and inode ino (0: unknown): ember's own path
 * when that is the file, else /proc/PID/map_files, else the path inside
 * the process's root when that is the file or the process sees another
 * root, else ember's path anyway.  procfd -1: ember's path only. */
int rec_procfs_open_mapped(int procfd, const char *path, uint64_t start,
			   uint64_t end, uint64_t dev, uint64_t ino);

/* The tids of a process (from /proc/PID/task); returns how many. */
size_t rec_list_tasks(int pid, int **tids);
/* The process (thread group) a thread id belongs to; pid if unknown. */
int rec_tgid(int pid);
/* Every pid in /proc. */
size_t rec_list_pids(int **pids);

#endif
