/*
 * A process's files as the process itself names them.  A process in a
 * container sees another mount namespace (its own /tmp, its own /usr/lib)
 * and another PID namespace (it writes /tmp/perf-1.map as pid 1), so its
 * perf map, jitdump and libraries are found through /proc/PID/root under
 * the pid of its namespace.  That root belongs to the process: a symbolic
 * link inside it must not lead ember (perhaps root) to a file of the host,
 * so paths are resolved within that root (openat2 RESOLVE_IN_ROOT), or
 * walked one component at a time refusing links where openat2 is missing.
 * A /proc/PID descriptor is checked against the process's start time
 * first, so that a pid reused by another process is not mistaken for it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "symbols/procfs.h"

#define START_SLACK 1.0 /* seconds: the clocks of events and /proc differ */

/* Reads a small file below dirfd into buf (NUL-terminated). */
static ssize_t read_at(int dirfd, const char *name, char *buf, size_t size)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	size_t len = 0;

	if (fd < 0)
		return -1;
	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

static double boot_time(void)
{
	static double btime;
	char buf[8192];

	if (btime <= 0 &&
	    read_at(AT_FDCWD, "/proc/stat", buf, sizeof(buf)) > 0) {
		const char *q = strstr(buf, "\nbtime ");
		if (q)
			btime = (double)strtoull(q + 7, NULL, 10);
	}
	return btime;
}

double rec_procfs_start(int procfd)
{
	char buf[1024];

	if (read_at(procfd, "stat", buf, sizeof(buf)) <= 0)
		return 0;
	/* the 22nd field, counted after the ")" of comm */
	const char *q = strrchr(buf, ')');
	for (int f = 2; q && f < 22; f++)
		q = strchr(q + 1, ' ');
	unsigned long long ticks = q ? strtoull(q + 1, NULL, 10) : 0;
	long hz = sysconf(_SC_CLK_TCK);
	double btime = boot_time();
	if (!ticks || hz <= 0 || btime <= 0)
		return 0;
	return btime + (double)ticks / (double)hz;
}

int rec_procfs_open(int pid, double start)
{
	char path[32];

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d", pid);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (start > 0) {
		double now = rec_procfs_start(fd);
		if (now <= 0 || now < start - START_SLACK ||
		    now > start + START_SLACK) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

int rec_procfs_nspid(int procfd, int pid)
{
	char buf[4096];

	if (read_at(procfd, "status", buf, sizeof(buf)) <= 0)
		return pid;
	const char *q = strstr(buf, "\nNSpid:");
	if (!q)
		return pid;
	q += 7;
	long last = -1;
	for (;;) {
		char *end;
		long v = strtol(q, &end, 10);
		if (end == q)
			break;
		last = v;
		q = end;
	}
	return last > 0 && last <= 0x7fffffff ? (int)last : pid;
}

int rec_procfs_other_root(int procfd)
{
	struct stat a, b;

	if (!fstatat(procfd, "ns/mnt", &a, 0) &&
	    !stat("/proc/self/ns/mnt", &b) &&
	    (a.st_dev != b.st_dev || a.st_ino != b.st_ino))
		return 1;
	/* the same mount namespace, or unknown: a chroot still differs */
	if (fstatat(procfd, "root", &a, 0) || stat("/", &b))
		return -1;
	return a.st_dev != b.st_dev || a.st_ino != b.st_ino;
}

/* Without openat2: each directory opened without following a link, the
 * last component with flags; "." and ".." refused. */
int rec_procfs_walk_in_root(int rootfd, const char *path, int flags)
{
	int dir = rootfd, fd = -1;

	for (;;) {
		while (*path == '/')
			path++;
		const char *slash = strchr(path, '/');
		size_t n = slash ? (size_t)(slash - path) : strlen(path);
		char name[256];
		if (!n || n >= sizeof(name) || (n == 1 && path[0] == '.') ||
		    (n == 2 && path[0] == '.' && path[1] == '.')) {
			errno = EINVAL;
			fd = -1;
			break;
		}
		memcpy(name, path, n);
		name[n] = '\0';
		path += n;
		while (*path == '/')
			path++;
		if (!*path) {
			fd = openat(dir, name, flags | O_CLOEXEC);
			break;
		}
		int next = openat(
		    dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dir != rootfd)
			close(dir);
		if (next < 0)
			return -1;
		dir = next;
	}
	if (dir != rootfd) {
		int e = errno;
		close(dir);
		errno = e;
	}
	return fd;
}

int rec_procfs_open_in_root(int procfd, const char *path, int flags)
{
	static int no_openat2;
	int rootfd, fd;

	if (path[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	rootfd = openat(procfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -1;
	if (!no_openat2) {
		struct open_how how;
		memset(&how, 0, sizeof(how));
		how.flags = (uint64_t)(flags | O_CLOEXEC);
		how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
		fd = (int)syscall(SYS_openat2, rootfd, path + 1, &how,
				  sizeof(how));
		if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
			goto out;
		no_openat2 = 1; /* an old kernel, or a seccomp filter */
	}
	fd = rec_procfs_walk_in_root(rootfd, path, flags);
out:;
	int e = errno;
	close(rootfd);
	errno = e;
	return fd;
}

static int is_file(int fd, uint64_t dev, uint64_t ino)
{
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return 0;
	return !ino || ((uint64_t)st.st_ino == ino &&
			(!dev || (uint64_t)st.st_dev == dev));
}

int rec_procfs_open_mapped(int procfd, const char *path, uint64_t start,
			   uint64_t end, uint64_t dev, uint64_t ino)
{
	int fd =
	    path[0] == '/' ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	char name[64];

	if (fd >= 0 && is_file(fd, dev, ino))
		return fd;
	if (procfd < 0)
		return fd;
	if (end > start) {
		/* the very file mapped (CAP_SYS_ADMIN or
		 * CAP_CHECKPOINT_RESTORE) */
		snprintf(name, sizeof(name), "map_files/%llx-%llx",
			 (unsigned long long)start, (unsigned long long)end);
		int mf =
		    openat(procfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (mf >= 0 && is_file(mf, dev, ino)) {
			if (fd >= 0)
				close(fd);
			return mf;
		}
		if (mf >= 0)
			close(mf);
	}
	int in = path[0] == '/' ? rec_procfs_open_in_root(procfd, path,
							  O_RDONLY | O_NONBLOCK)
				: -1;
	/* overlay file systems (containers) map files under other numbers
	 * than they show: inside another root, its file by the name */
	if (in >= 0 &&
	    (is_file(in, dev, ino) ||
	     (is_file(in, 0, 0) && rec_procfs_other_root(procfd) == 1))) {
		if (fd >= 0)
			close(fd);
		return in;
	}
	if (in >= 0)
		close(in);
	return fd;
}

/* ---- processes and threads ---- */

static size_t list_numeric(const char *dir, int **out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0, alloc = 0;
	int *v = NULL;

	*out = NULL;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;
		long x = strtol(de->d_name, &end, 10);
		if (end == de->d_name || *end || x <= 0 || x > INT32_MAX)
			continue;
		EMBER_GROW(v, n + 1, alloc);
		v[n++] = (int)x;
	}
	closedir(d);
	*out = v;
	return n;
}

size_t rec_list_tasks(int pid, int **tids)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	return list_numeric(path, tids);
}

int rec_tgid(int pid)
{
	char path[64], buf[4096];
	int tgid = pid;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pid;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = '\0';
		const char *t = strstr(buf, "\nTgid:");
		if (t)
			tgid = (int)strtol(t + 6, NULL, 10);
	}
	return tgid > 0 ? tgid : pid;
}

size_t rec_list_pids(int **pids)
{
	return list_numeric("/proc", pids);
}
