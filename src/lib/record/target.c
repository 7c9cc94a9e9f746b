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

size_t rec_argv_assignments(char *const *argv)
{
	size_t n = 0;

	for (; argv && argv[n]; n++) {
		const char *a = argv[n];
		size_t i = 0;
		if (!(a[0] == '_' || (a[0] >= 'A' && a[0] <= 'Z') ||
		      (a[0] >= 'a' && a[0] <= 'z')))
			break;
		while (a[i] == '_' || (a[i] >= 'A' && a[i] <= 'Z') ||
		       (a[i] >= 'a' && a[i] <= 'z') ||
		       (a[i] >= '0' && a[i] <= '9'))
			i++;
		if (a[i] != '=')
			break;
	}
	return n;
}

const char *rec_command_getenv(char *const *argv, const char *name)
{
	size_t n = rec_argv_assignments(argv), len = strlen(name);
	const char *v = NULL;

	/* the last assignment wins, as in env(1) */
	for (size_t i = 0; i < n; i++)
		if (!strncmp(argv[i], name, len) && argv[i][len] == '=')
			v = argv[i] + len + 1;
	return v ? v : getenv(name);
}

int rec_python_version(const char *name)
{
	const char *p = strrchr(name, '/');
	int major, minor = 0;

	p = p ? p + 1 : name;
	if (!strncmp(p, "lib", 3))
		p += 3;
	if (strncmp(p, "python", 6) || p[6] < '2' || p[6] > '9' ||
	    p[7] != '.' || p[8] < '0' || p[8] > '9')
		return -1;
	major = p[6] - '0';
	for (p += 8; *p >= '0' && *p <= '9' && minor < 1000; p++)
		minor = minor * 10 + (*p - '0');
	return major * 100 + minor;
}

/* Where execvp finds name: the name itself with a '/', else the first
 * executable file of that name in $PATH. */
static int find_in_path(const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/')) {
		snprintf(out, size, "%s", name);
		return 0;
	}
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		struct stat st;
		snprintf(out, size, "%.*s%s%s", (int)len, p, len ? "/" : "",
			 name);
		if (!stat(out, &st) && S_ISREG(st.st_mode) &&
		    !access(out, X_OK))
			return 0;
		if (!colon)
			return -1;
		p = colon;
	}
}

/* The Python version path runs, by its name, its real name, or the
 * interpreter of its "#!" line (through env too); -1 if none. */
static int path_python(const char *path, int depth)
{
	char real[4096], line[256], name[4096];
	int v = rec_python_version(path);

	if (v >= 0)
		return v;
	if (realpath(path, real) && (v = rec_python_version(real)) >= 0)
		return v;
	int fd = depth < 3 ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return -1;
	line[n] = 0;
	/* "#! INTERP [ARG]": env's first word that is not an option */
	char *words[4] = {NULL};
	int nw = 0;
	for (char *s = line + 2; *s && *s != '\n' && nw < 4;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '\n')
			break;
		words[nw++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\n')
			s++;
		if (*s)
			*s++ = 0;
	}
	if (!nw)
		return -1;
	const char *base = strrchr(words[0], '/');
	base = base ? base + 1 : words[0];
	if (strcmp(base, "env"))
		return path_python(words[0], depth + 1);
	for (int i = 1; i < nw; i++)
		if (words[i][0] != '-' && !strchr(words[i], '='))
			return find_in_path(words[i], name, sizeof(name))
				   ? rec_python_version(words[i])
				   : path_python(name, depth + 1);
	return -1;
}

int rec_command_python(char *const *argv)
{
	size_t k = rec_argv_assignments(argv);
	char path[4096];

	if (!argv || !argv[k])
		return -1;
	/* the name alone, where the file cannot be found */
	if (find_in_path(argv[k], path, sizeof(path)))
		return rec_python_version(argv[k]);
	return path_python(path, 0);
}

/* Whether the command line asks Python for perf support itself: -X perf
 * or -X perf_jit, also inside a word (sh -c "python3 -X perf ..."). */
static int argv_asks_python(char *const *argv)
{
	for (size_t i = 0; argv && argv[i]; i++) {
		const char *a = argv[i];
		if ((!strcmp(a, "-X") && argv[i + 1] &&
		     !strncmp(argv[i + 1], "perf", 4)) ||
		    strstr(a, "-Xperf") || strstr(a, "-X perf"))
			return 1;
	}
	return 0;
}

/*
 * Python: a perf map (PYTHONPERFSUPPORT, -X perf), written and flushed a
 * line at a time, for a command that runs Python 3.13 or later: its names
 * survive a process that is killed, where the jitdump that
 * PYTHON_PERF_JIT_SUPPORT (-X perf_jit) asks for is buffered and written
 * out at exit only.  3.12 reads PYTHONPERFSUPPORT too, and gets neither:
 * with either, CPython calls each Python function through its trampoline,
 * from C, and 3.12 counts every such call as two levels of its C
 * recursion limit of 1500 (C_RECURSION_LIMIT, PY_EVAL_C_STACK_UNITS), so
 * a recursion deeper than about 750 calls, fine without it, raises
 * RecursionError; 3.13's limit is 10000 (about 5000 calls), beyond its
 * default recursion limit of 1000.  A command whose Python is not known
 * (a shell, a script run by one) gets PYTHON_PERF_JIT_SUPPORT, which only
 * 3.13 and later read.  Whatever the user chose (either variable, -X
 * perf, -X perf_jit) is left as it is.
 */
const char *rec_jit_python_var(char *const *argv)
{
	if (rec_command_getenv(argv, "PYTHONPERFSUPPORT") ||
	    rec_command_getenv(argv, "PYTHON_PERF_JIT_SUPPORT") ||
	    argv_asks_python(argv))
		return NULL;
	return rec_command_python(argv) >= 313 ? "PYTHONPERFSUPPORT"
					       : "PYTHON_PERF_JIT_SUPPORT";
}

/* In the child: the command's own assignments, then ours where it set
 * none. */
static void set_env(char *const *argv, size_t nassign, int jit_env,
		    const char *python_var)
{
	for (size_t i = 0; i < nassign; i++) {
		char *eq = strchr(argv[i], '=');
		*eq = 0; /* the child's copy */
		setenv(argv[i], eq + 1, 1);
		*eq = '=';
	}
	if (!jit_env)
		return;
	if (python_var)
		setenv(python_var, "1", 0);
	setenv("DOTNET_PerfMapEnabled", "1", 0); /* .NET: perf map */
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
	const char *node = rec_command_getenv(argv, "NODE_OPTIONS");

	for (size_t i = 0; i < ARRAY_SIZE(user_vars); i++)
		if (rec_command_getenv(argv, user_vars[i]))
			return 0;
	if (node && strstr(node, "--perf-"))
		return 0;
	if (rec_java_asks_perfmap(argv))
		return 0;
	for (size_t i = 0; argv && argv[i]; i++)
		if (!strncmp(argv[i], "--perf-", 7))
			return 0;
	return !argv_asks_python(argv);
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

size_t rec_jit_files_remove(const char *dir, int pid, double since, int which)
{
	char path[4096];
	size_t n = 0;

	if (!dir)
		dir = "/tmp";
	snprintf(path, sizeof(path), "%s/perf-%d.map", dir, pid);
	if (which & REC_JIT_MAP)
		n += (size_t)remove_if_new(path, since);
	snprintf(path, sizeof(path), "%s/jit-%d.dump", dir, pid);
	if (which & REC_JIT_DUMP)
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

	size_t k = rec_argv_assignments(argv);

	memset(c, 0, sizeof(*c));
	c->pid = -1;
	c->python_var = jit_env ? rec_jit_python_var(argv) : NULL;
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
		set_env(argv, k, jit_env, c->python_var);
		if (stdout_fd >= 0 && stdout_fd != 1 && dup2(stdout_fd, 1) < 0)
			_exit(127);
		execvp(argv[k], argv + k);
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
