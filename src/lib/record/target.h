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
	/* the Python variable the child got (jit_env): PYTHONPERFSUPPORT,
	 * PYTHON_PERF_JIT_SUPPORT, or NULL */
	const char *python_var;
};

/* Forks the command of argv, after its leading NAME=value words (which
 * set its environment); the child waits until rec_child_go.  jit_env
 * sets the variables that make Python, Node and Java write perf maps
 * (where the user did not); stdout_fd >= 0 becomes the child's standard
 * output. */
int rec_child_fork(struct rec_child *c, char *const *argv, int jit_env,
		   int stdout_fd, int *err) EMBER_WUR;
/* Lets the child exec; returns 0, or the errno of a failed exec. */
int rec_child_go(struct rec_child *c);
/* Non-blocking (block=0) or blocking reap; 1 once reaped. */
int rec_child_reap(struct rec_child *c, int block);
void rec_child_kill(struct rec_child *c, int sig);
/* How many leading words of argv are NAME=value (NAME a shell
 * identifier): the command's environment, as env(1) and shells take them. */
size_t rec_argv_assignments(char *const *argv);
/* NAME's value for the command of argv: its own assignment, else ours. */
const char *rec_command_getenv(char *const *argv, const char *name);
/* The Python version a program or library name says, major * 100 +
 * minor ("python3.13", "/usr/bin/python3.12", "libpython3.13.so.1.0":
 * 313), or -1. */
int rec_python_version(const char *name);
/* The Python version the command of argv runs, by its name, its real
 * path or its "#!" interpreter; -1 if not known. */
int rec_command_python(char *const *argv);
/* The variable that makes the command's Python write what names its
 * functions (PYTHONPERFSUPPORT or PYTHON_PERF_JIT_SUPPORT), or NULL
 * where the user asked for perf support already. */
const char *rec_jit_python_var(char *const *argv);
/* The environment additions jit_env makes, for a given old value. */
char *rec_jit_node_options(const char *old);
/* Whether the JIT maps of a command would exist only because of jit_env:
 * neither our environment nor the command line asks for them. */
int rec_jit_env_is_ours(char *const *argv);
/* Removes the perf map (which & REC_JIT_MAP) and jitdump (REC_JIT_DUMP)
 * of pid in dir (NULL: /tmp) that are ours and were written since the
 * realtime since; returns how many. */
enum { REC_JIT_MAP = 1, REC_JIT_DUMP = 2 };
size_t rec_jit_files_remove(const char *dir, int pid, double since, int which);

/* A pidfd for pid, or -1. */
int rec_pidfd_open(int pid);

#endif
