/* Where a command's output goes (-o): what users expect of a path. Every
 * command opens, commits and abandons its output here.
 *
 * A regular file is never written in place: the output goes to a new
 * temporary file beside it (mkstemp, so O_EXCL), which is renamed over it
 * only when the command succeeded, so a reader sees the old file or the new
 * one and an error leaves the old one. Anything else that exists at the
 * path (a device, a FIFO, a terminal) is written directly, and
 * /dev/stdout, /dev/stderr and /dev/fd/N are the command's own descriptors,
 * as in the shell. Symlinks are followed first: it is the target that gets
 * replaced. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* The temporary file to remove if a signal or exit() ends us mid-write. */
static volatile sig_atomic_t have_tmp;
static char tmp_path[PATH_MAX + 32];

static void remove_tmp(void)
{
	if (have_tmp)
		unlink(tmp_path);
	have_tmp = 0;
}

static void on_fatal_signal(int sig)
{
	remove_tmp();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void guard_tmp(const char *tmp)
{
	static const int sigs[] = {SIGINT,  SIGTERM, SIGHUP, SIGPIPE,
				   SIGXFSZ, SIGABRT, SIGBUS};
	static int installed;

	memcpy(tmp_path, tmp, strlen(tmp) + 1);
	have_tmp = 1;
	if (installed++)
		return;
	atexit(remove_tmp);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], on_fatal_signal);
}

/* The descriptor that /dev/stdout, /dev/stderr, /dev/fd/N or
 * /proc/self/fd/N names, or -1. */
static int std_fd(const char *p)
{
	long fd;

	if (!strcmp(p, "/dev/stdout"))
		return 1;
	if (!strcmp(p, "/dev/stderr"))
		return 2;
	if (!strncmp(p, "/dev/fd/", 8))
		p += 8;
	else if (!strncmp(p, "/proc/self/fd/", 14))
		p += 14;
	else
		return -1;
	if (cli_long(p, 0, INT_MAX, &fd))
		return -1;
	return (int)fd;
}

/* Follows symlinks to the path that is opened or replaced; stops at one of
 * the standard descriptors (*fd >= 0) whose /proc link must not be read.
 * NULL with errno set on a loop or an unreadable link. */
static char *follow_links(const char *path, int *fd)
{
	char *p = ember_xstrdup(path);
	char link[PATH_MAX];

	for (int hops = 0;; hops++) {
		struct stat st;

		*fd = std_fd(p);
		if (*fd >= 0 || lstat(p, &st) || !S_ISLNK(st.st_mode))
			return p; /* a missing file is made, others fail later
				   */
		ssize_t n = hops < 40 ? readlink(p, link, sizeof(link)) : -1;
		if (hops >= 40)
			errno = ELOOP;
		else if (n == (ssize_t)sizeof(link))
			errno = ENAMETOOLONG;
		if (n < 0 || n == (ssize_t)sizeof(link)) {
			free(p);
			return NULL;
		}
		const char *slash = strrchr(p, '/');
		size_t dir =
		    link[0] == '/' || !slash ? 0 : (size_t)(slash - p) + 1;
		char *next = ember_xmalloc(dir + (size_t)n + 1);
		memcpy(next, p, dir);
		memcpy(next + dir, link, (size_t)n);
		next[dir + (size_t)n] = '\0';
		free(p);
		p = next;
	}
}

/* A new temporary file beside o->target, with the mode and owner of the
 * file it will replace (st, NULL for a new one); a descriptor or -1. */
static int open_tmp(struct cli_out *o, const struct stat *st)
{
	size_t n = strlen(o->target);

	if (n > PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	o->tmp = ember_xmalloc(n + 16);
	snprintf(o->tmp, n + 16, "%s.tmp.XXXXXX", o->target);
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	guard_tmp(o->tmp);
	if (st) {
		/* the owner first: chown clears set-id bits */
		/* (when not ours to give away, the group if it can) */
		if ((st->st_uid != geteuid() || st->st_gid != getegid()) &&
		    fchown(fd, st->st_uid, st->st_gid) &&
		    fchown(fd, (uid_t)-1, st->st_gid)) {
			/* the file becomes ours */
		}
		fchmod(fd, st->st_mode & 07777);
	} else {
		mode_t mask = umask(0);
		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	return fd;
}

static int fail_open(struct cli_out *o, int fd)
{
	int saved = errno;

	cli_error("cannot write '%s': %s", o->path, strerror(saved));
	if (fd >= 0)
		close(fd);
	if (o->tmp) {
		unlink(o->tmp);
		have_tmp = 0;
	}
	free(o->path);
	free(o->target);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
	return 1;
}

int cli_out_open(struct cli_out *o, const char *path)
{
	struct stat st;
	int fd = -1, std;

	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	o->path = ember_xstrdup(path);
	o->target = follow_links(path, &std);
	if (!o->target)
		return fail_open(o, -1);
	if (std >= 0)
		fd = fcntl(std, F_DUPFD_CLOEXEC, 3);
	else if (!stat(o->target, &st))
		fd = S_ISREG(st.st_mode)
			 ? open_tmp(o, &st)
			 : open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	else if (errno == ENOENT)
		fd = open_tmp(o, NULL);
	if (fd < 0)
		return fail_open(o, -1);
	o->f = fdopen(fd, "w");
	if (!o->f)
		return fail_open(o, fd);
	setvbuf(o->f, NULL, _IOFBF, 1 << 16);
	return 0;
}

int cli_out_is_stream(const struct cli_out *o)
{
	return !o->tmp;
}

int cli_out_close(struct cli_out *o, int ok)
{
	const char *name = o->path ? o->path : "standard output";
	int failed = 0;

	if (!o->f)
		return ok ? 0 : 1;
	/* errno still says why an earlier write failed */
	if (fflush(o->f) || ferror(o->f)) {
		if (ok)
			cli_error("cannot write '%s': %s", name,
				  strerror(errno ? errno : EIO));
		failed = 1;
	}
	if (o->f == stdout) {
		o->f = NULL;
		return failed || !ok;
	}
	if (fclose(o->f) && !failed) {
		cli_error("cannot write '%s': %s", name, strerror(errno));
		failed = 1;
	}
	o->f = NULL;
	if (o->tmp && ok && !failed && rename(o->tmp, o->target)) {
		cli_error("cannot write '%s': %s", name, strerror(errno));
		failed = 1;
	}
	if (o->tmp && (!ok || failed))
		unlink(o->tmp);
	have_tmp = 0;
	free(o->path);
	free(o->target);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
	return failed || !ok;
}
