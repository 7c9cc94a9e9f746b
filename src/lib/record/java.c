/*
 * Java: HotSpot (OpenJDK 17 and later) names its compiled methods, its
 * interpreter and its stubs in /tmp/perf-PID.map, written at exit
 * (-XX:+DumpPerfMapAtExit) or when asked (jcmd PID Compiler.perfmap), and
 * keeps frame pointers in compiled code with -XX:+PreserveFramePointer,
 * so that its stacks walk through Java frames to the JVM's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record/java.h"

/* -XX:+IgnoreUnrecognizedVMOptions: a JDK before 17 has no
 * DumpPerfMapAtExit, and must still start */
static const char java_flags[] =
    "-XX:+IgnoreUnrecognizedVMOptions -XX:+PreserveFramePointer "
    "-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit";

#define JCMD_SECONDS 20 /* the attach itself gives up after 10 */

/* Ours first: the user's own switches, later, win. */
char *rec_java_tool_options(const char *old)
{
	struct ember_buf b = EMBER_BUF_INIT;

	ember_buf_adds(&b, java_flags);
	if (old && *old) {
		ember_buf_addch(&b, ' ');
		ember_buf_adds(&b, old);
	}
	return ember_buf_detach(&b, NULL);
}

int rec_java_asks_perfmap(char *const *argv)
{
	static const char *const vars[] = {"JAVA_TOOL_OPTIONS",
					   "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"};

	for (size_t i = 0; i < ARRAY_SIZE(vars); i++) {
		const char *v = getenv(vars[i]);
		if (v && (strstr(v, "PerfMap") || strstr(v, "perfmap")))
			return 1;
	}
	/* the switch, or an agent such as perf-map-agent's libperfmap.so */
	for (size_t i = 0; argv && argv[i]; i++)
		if (strstr(argv[i], "PerfMap") ||
		    (!strncmp(argv[i], "-agent", 6) && strstr(argv[i], "perf")))
			return 1;
	return 0;
}

/* The contents of a /proc file, NUL-terminated; NULL when unreadable. */
static char *read_proc(int pid, const char *what, size_t *len)
{
	char path[64];
	struct ember_buf b = EMBER_BUF_INIT;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		ember_buf_grow(&b, 4096);
		ssize_t r = read(fd, b.buf + b.len, b.alloc - b.len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || b.len > (1u << 20))
			break;
		ember_buf_setlen(&b, b.len + (size_t)r);
	}
	close(fd);
	return ember_buf_detach(&b, len);
}

/* The last +/-PreserveFramePointer in s: 1, 0, or keep. */
static int fp_switch(const char *s, size_t n, int keep)
{
	static const char opt[] = "PreserveFramePointer";

	for (const char *p = s; p < s + n;) {
		const char *q =
		    memmem(p, (size_t)(s + n - p), opt, sizeof(opt) - 1);
		if (!q)
			break;
		if (q - s >= 5 && !memcmp(q - 5, "-XX:", 4))
			keep = q[-1] == '+';
		p = q + 1;
	}
	return keep;
}

/* The value of variable name in environ (NUL-separated), or NULL. */
static const char *env_value(const char *env, size_t n, const char *name)
{
	size_t k = strlen(name);

	for (const char *p = env; p < env + n; p += strlen(p) + 1)
		if (!strncmp(p, name, k) && p[k] == '=')
			return p + k + 1;
	return NULL;
}

int rec_java_keeps_fp(int pid)
{
	size_t n, en = 0;
	char *cmd = read_proc(pid, "cmdline", &n);
	char *env = read_proc(pid, "environ", &en);
	int keep = 0;

	if (!cmd) {
		free(env);
		return 1;
	}
	/* in the order the JVM reads them: the last one counts */
	const char *v;
	if (env && (v = env_value(env, en, "JAVA_TOOL_OPTIONS")))
		keep = fp_switch(v, strlen(v), keep);
	if (env && (v = env_value(env, en, "JDK_JAVA_OPTIONS")))
		keep = fp_switch(v, strlen(v), keep);
	keep = fp_switch(cmd, n, keep);
	if (env && (v = env_value(env, en, "_JAVA_OPTIONS")))
		keep = fp_switch(v, strlen(v), keep);
	free(cmd);
	free(env);
	return keep;
}

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The JDK's jcmd next to the JVM's java, else the one on PATH. */
static void find_jcmd(int pid, char *out, size_t size)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	n = readlink(link, out, size - 1);
	if (n > 0) {
		out[n] = '\0';
		char *slash = strrchr(out, '/');
		if (slash && (size_t)(slash - out) + 6 < size) {
			memcpy(slash + 1, "jcmd", 5);
			if (!access(out, X_OK))
				return;
		}
	}
	snprintf(out, size, "jcmd");
}

/* What went wrong, from jcmd's output: the line of the exception, else
 * the last non-blank line; trimmed, into why. */
static void add_reason(struct ember_buf *why, const char *s, size_t n)
{
	const char *x = strstr(s, "Exception");
	const char *start, *end;

	if (x) {
		start = x;
		while (start > s && start[-1] != '\n')
			start--;
		end = strchr(x, '\n');
		if (!end)
			end = s + n;
	} else {
		end = s + n;
		while (end > s && (end[-1] == '\n' || end[-1] == ' '))
			end--;
		start = end;
		while (start > s && start[-1] != '\n')
			start--;
	}
	while (end > start &&
	       (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end - start > 300)
		end = start + 300;
	ember_buf_add(why, start, (size_t)(end - start));
}

/* The effective uid and gid of pid, from /proc/PID/status. */
static int proc_ids(int pid, uid_t *uid, gid_t *gid)
{
	size_t n;
	char *st = read_proc(pid, "status", &n);
	const char *u = st ? strstr(st, "\nUid:") : NULL;
	const char *g = st ? strstr(st, "\nGid:") : NULL;
	unsigned long ru, eu, rg, eg;
	int ok = u && g && sscanf(u + 5, "%lu %lu", &ru, &eu) == 2 &&
		 sscanf(g + 5, "%lu %lu", &rg, &eg) == 2;

	free(st);
	if (ok) {
		*uid = (uid_t)eu;
		*gid = (gid_t)eg;
	}
	return ok;
}

int rec_java_request_perfmap(int pid, struct ember_buf *why)
{
	char jcmd[4096], spid[16];
	int fds[2], status = 0;
	struct ember_buf out = EMBER_BUF_INIT;
	uid_t uid;
	gid_t gid;

	if (!proc_ids(pid, &uid, &gid)) {
		ember_buf_addf(why, "process %d ended", pid);
		return EMBER_ENOENT;
	}
	find_jcmd(pid, jcmd, sizeof(jcmd));
	snprintf(spid, sizeof(spid), "%d", pid);
	if (pipe2(fds, O_CLOEXEC)) {
		ember_buf_addf(why, "cannot run jcmd: %s", strerror(errno));
		return EMBER_EIO;
	}
	pid_t c = fork();
	if (c < 0) {
		ember_buf_addf(why, "cannot run jcmd: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return EMBER_EIO;
	}
	if (c == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		/* HotSpot answers its own user (and root) only */
		if (geteuid() == 0 && uid != 0 &&
		    (setgroups(0, NULL) || setgid(gid) || setuid(uid)))
			_exit(126);
		char *const argv[] = {jcmd, spid, "Compiler.perfmap", NULL};
		execvp(jcmd, argv);
		_exit(127);
	}
	close(fds[1]);
	double deadline = now_mono() + JCMD_SECONDS;
	int timed_out = 0;
	for (;;) {
		struct pollfd p = {fds[0], POLLIN, 0};
		double left = deadline - now_mono();
		if (left <= 0) {
			timed_out = 1;
			break;
		}
		if (poll(&p, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR)
			break;
		ember_buf_grow(&out, 4096);
		ssize_t r =
		    read(fds[0], out.buf + out.len, out.alloc - out.len - 1);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			break;
		if (out.len < (1u << 16))
			ember_buf_setlen(&out, out.len + (size_t)r);
	}
	close(fds[0]);
	if (timed_out)
		kill(c, SIGKILL);
	while (waitpid(c, &status, 0) < 0 && errno == EINTR)
		;
	int ok = !timed_out && WIFEXITED(status) && !WEXITSTATUS(status) &&
		 !strstr(out.buf, "Exception");
	if (!ok) {
		ember_buf_addf(why, "'%s %d Compiler.perfmap' ", jcmd, pid);
		if (timed_out) {
			ember_buf_addf(why, "did not answer in %d s",
				       JCMD_SECONDS);
		} else {
			int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
			if (code == 126)
				ember_buf_addf(why, "cannot run as uid %u",
					       (unsigned)uid);
			else if (code == 127)
				ember_buf_adds(why,
					       "cannot run: jcmd comes "
					       "with the JDK, not the JRE");
			else
				ember_buf_adds(why, "failed");
			if (code != 126 && code != 127 && out.len) {
				ember_buf_adds(why, ": ");
				add_reason(why, out.buf, out.len);
			}
		}
	}
	ember_buf_release(&out);
	return ok ? 0 : EMBER_EIO;
}
