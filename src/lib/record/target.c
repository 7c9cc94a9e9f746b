/*
 * What gets profiled: a command started here, held before exec until its
 * events are open (a "cork" pipe, as perf does, so that counting starts at
 * exec and the fork glue is not profiled), or processes that already run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/java.h"
#include "record/target.h"

/* -only-functions: plain --perf-basic-prof also makes V8 write an
 * isolate-*.log into the working directory */
static const char node_flags[] =
    "--perf-basic-prof-only-functions --interpreted-frames-native-stack";

char *rec_jit_node_options(const char *old)
{
	struct ember_buf b = EMBER_BUF_INIT;

	if (old && strstr(old, "--perf-basic-prof"))
		return ember_xstrdup(old);
	if (old && *old) {
		ember_buf_adds(&b, old);
		ember_buf_addch(&b, ' ');
	}
	ember_buf_adds(&b, node_flags);
	return ember_buf_detach(&b, NULL);
}

/*
 * Python: PYTHON_PERF_JIT_SUPPORT (-X perf_jit), which only 3.13 and later
 * read, and not PYTHONPERFSUPPORT (-X perf): with either, CPython calls
 * each Python function through its trampoline, from C, and 3.12 counts
 * every such call as two levels of its C recursion limit of 1500
 * (C_RECURSION_LIMIT, PY_EVAL_C_STACK_UNITS), so a recursion deeper than
 * about 750 calls, fine without it, raises RecursionError; 3.13's limit
 * is 10000 (about 5000 calls), beyond its default recursion limit of
 * 1000.  Both write the same py:: names.
 */
static const char *const runtime_vars[] = {
    "PYTHON_PERF_JIT_SUPPORT", /* Python 3.13+: jit-PID.dump in /tmp */
    "DOTNET_PerfMapEnabled",   /* .NET: perf map */
};

static void set_jit_env(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(runtime_vars); i++)
		setenv(runtime_vars[i], "1", 0);
	char *opts = rec_jit_node_options(getenv("NODE_OPTIONS"));
	setenv("NODE_OPTIONS", opts, 1);
	free(opts);
	/* JAVA_TOOL_OPTIONS, not JDK_JAVA_OPTIONS: every JVM reads it, not
	 * only the java launcher's (javac, build tools' daemons...) */
	opts = rec_java_tool_options(getenv("JAVA_TOOL_OPTIONS"));
	setenv("JAVA_TOOL_OPTIONS", opts, 1);
	free(opts);
}

int rec_jit_env_is_ours(char *const *argv)
{
	static const char *const user_vars[] = {"PYTHONPERFSUPPORT",
						"PYTHON_PERF_JIT_SUPPORT",
						"DOTNET_PerfMapEnabled"};
	const char *node = getenv("NODE_OPTIONS");

	for (size_t i = 0; i < ARRAY_SIZE(user_vars); i++)
		if (getenv(user_vars[i]))
			return 0;
	if (node && strstr(node, "--perf-"))
		return 0;
	if (rec_java_asks_perfmap(argv))
		return 0;
	for (size_t i = 0; argv && argv[i]; i++) {
		const char *a = argv[i];
		if (!strncmp(a, "--perf-", 7) || !strncmp(a, "-Xperf", 6) ||
		    (!strcmp(a, "-X") && argv[i + 1] &&
		     !strncmp(argv[i + 1], "perf", 4)))
			return 0;
	}
	return 1;
}

/* Removes path if it is a regular file of ours written since t. */
static int remove_if_new(const char *path, double t)
{
	struct stat st;

	if (lstat(path, &st) || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() ||
	    (double)st.st_mtim.tv_sec + 1e-9 * (double)st.st_mtim.tv_nsec <
		t - 1)
		return 0;
	return !unlink(path);
}

size_t rec_jit_files_remove(const char *dir, int pid, double since)
{
	char path[4096];
	size_t n = 0;

	if (!dir)
		dir = "/tmp";
	snprintf(path, sizeof(path), "%s/perf-%d.map", dir, pid);
	n += (size_t)remove_if_new(path, since);
	snprintf(path, sizeof(path), "%s/jit-%d.dump", dir, pid);
	n += (size_t)remove_if_new(path, since);
	return n;
}

static void write_all(int fd, const void *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p = (const char *)p + w;
		n -= (size_t)w;
	}
}

int rec_child_fork(struct rec_child *c, char *const *argv, int jit_env,
		   int stdout_fd, int *err)
{
	int go[2], ep[2];

	memset(c, 0, sizeof(*c));
	c->pid = -1;
	c->go_fd = c->err_fd = c->pidfd = -1;
	if (pipe2(go, O_CLOEXEC))
		goto fail0;
	if (pipe2(ep, O_CLOEXEC))
		goto fail1;
	c->pid = fork();
	if (c->pid < 0)
		goto fail2;
	if (c->pid == 0) {
		char byte;
		ssize_t n;
		close(go[1]);
		close(ep[0]);
		do
			n = read(go[0], &byte, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(127); /* the profiler gave up */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (jit_env)
			set_jit_env();
		if (stdout_fd >= 0 && stdout_fd != 1 && dup2(stdout_fd, 1) < 0)
			_exit(127);
		execvp(argv[0], argv);
		int e = errno;
		write_all(ep[1], &e, sizeof(e));
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	c->go_fd = go[1];
	c->err_fd = ep[0];
	c->pidfd = rec_pidfd_open(c->pid);
	return 0;
fail2:
	close(ep[0]);
	close(ep[1]);
fail1:
	close(go[0]);
	close(go[1]);
fail0:
	*err = errno;
	return EMBER_EIO;
}

int rec_child_go(struct rec_child *c)
{
	int e = 0;
	ssize_t n;

	write_all(c->go_fd, "x", 1);
	close(c->go_fd);
	c->go_fd = -1;
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	return n == (ssize_t)sizeof(e) ? e : 0;
}

int rec_child_reap(struct rec_child *c, int block)
{
	if (c->pid <= 0 || c->reaped)
		return c->reaped;
	for (;;) {
		pid_t r = waitpid(c->pid, &c->status, block ? 0 : WNOHANG);
		if (r == c->pid) {
			c->reaped = 1;
			break;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) { /* not our child any more: treat as gone */
			c->reaped = 1;
			c->status = 0;
		}
		break;
	}
	if (c->reaped && c->pidfd >= 0) {
		close(c->pidfd);
		c->pidfd = -1;
	}
	if (c->reaped) {
		if (c->go_fd >= 0)
			close(c->go_fd);
		if (c->err_fd >= 0)
			close(c->err_fd);
		c->go_fd = c->err_fd = -1;
	}
	return c->reaped;
}

void rec_child_kill(struct rec_child *c, int sig)
{
	if (c->pid > 0 && !c->reaped)
		kill(c->pid, sig);
}

int rec_pidfd_open(int pid)
{
#ifdef SYS_pidfd_open
	long fd = syscall(SYS_pidfd_open, pid, 0);
	if (fd >= 0) {
		fcntl((int)fd, F_SETFD, FD_CLOEXEC);
		return (int)fd;
	}
#endif
	(void)pid;
	return -1;
}
