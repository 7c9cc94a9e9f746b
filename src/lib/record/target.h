/*
 * What a recording profiles (target.c): a command forked and held until
 * its events are open, the tasks of running processes, every pid.
 */
#ifndef EMBER_RECORD_TARGET_H
#define EMBER_RECORD_TARGET_H

#include <sys/types.h>

#include "internal.h"

struct rec_child {
	pid_t pid;
	int go_fd;  /* write a byte to let it exec */
	int err_fd; /* exec's errno, or EOF on success */
	int pidfd;
	int reaped;
	int status; /* waitpid status */
};

/* Forks argv[0]; the child waits until rec_child_go.  jit_env sets the
 * variables that make Python, Node and Java write perf maps; stdout_fd >= 0
 * becomes the child's standard output. */
int rec_child_fork(struct rec_child *c, char *const *argv, int jit_env,
		   int stdout_fd, int *err) EMBER_WUR;
/* Lets the child exec; returns 0, or the errno of a failed exec. */
int rec_child_go(struct rec_child *c);
/* Non-blocking (block=0) or blocking reap; 1 once reaped. */
int rec_child_reap(struct rec_child *c, int block);
void rec_child_kill(struct rec_child *c, int sig);
/* The environment additions jit_env makes, for a given old value. */
char *rec_jit_node_options(const char *old);
/* Whether the JIT maps of a command would exist only because of jit_env:
 * neither our environment nor the command line asks for them. */
int rec_jit_env_is_ours(char *const *argv);
/* Removes the perf map and jitdump of pid in dir (NULL: /tmp) that are
 * ours and were written since the realtime since; returns how many. */
size_t rec_jit_files_remove(const char *dir, int pid, double since);

/* A pidfd for pid, or -1. */
int rec_pidfd_open(int pid);

#endif
