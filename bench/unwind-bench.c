/* Cost of unwinding one sample: takes stack snapshots of live programs
 * (a C program without frame pointers, Python 3.12 -X perf, Node.js),
 * then unwinds them with a cold unwinder, with a warm rule cache, and
 * with no cache at all.  Usage: unwind-bench SCRIPT_DIR [ROUNDS]. */
#include <dirent.h>
#include <glob.h>
#include <limits.h>

#include "unwind-helpers.h"

#define SNAPS 100
#define STACK 32768

#define NOFP __attribute__((noinline, noclone, optimize("omit-frame-pointer")))

static volatile unsigned long spin;

NOFP static void c_leaf(int depth)
{
	if (depth > 0) {
		c_leaf(depth - 1);
		spin++;
		return;
	}
	for (int i = 0; i < 100000; i++)
		spin += (unsigned long)i;
}

NOFP static int c_cmp(const void *a, const void *b)
{
	for (int i = 0; i < 100; i++)
		spin += (unsigned long)i;
	return *(const int *)a - *(const int *)b;
}

static void child(void)
{
	static int v[256];
	for (;;) {
		c_leaf(10);
		for (int i = 0; i < 256; i++)
			v[i] = (i * 7919) % 256;
		qsort(v, 256, sizeof(int), c_cmp);
	}
}

struct set {
	struct snap s[SNAPS];
	int n;
	struct maps m;
};

static int take(int pid, struct set *set, int warm_ms)
{
	usleep(warm_ms * 1000);
	for (int k = 0; k < SNAPS; k++) {
		usleep(3000);
		if (snap_ptrace(pid, &set->s[set->n], STACK))
			break;
		set->n++;
		snap_resume(pid);
	}
	/* keep it stopped: rule misses may read its code */
	struct snap last;
	if (set->n && !snap_ptrace(pid, &last, 0))
		free(last.stack);
	return maps_load(pid, &set->m);
}

/* Unwinds every snapshot once; returns frames. */
static uint64_t pass(struct ember_unwinder *u, int pid, struct set *set)
{
	uint64_t frames = 0, ips[256];
	int trunc;

	for (int k = 0; k < set->n; k++)
		frames += ember_unwind(u, pid, &set->s[k].regs, set->s[k].stack,
				       set->s[k].len, maps_find, &set->m, ips,
				       256, &trunc);
	return frames;
}

/* µs per sample over `rounds` passes: the fastest of 5 batches (the
 * machine may be busy with other work). */
static double timed(struct ember_unwinder *u, int pid, struct set *set,
		    int rounds)
{
	double best = 0;
	int per = rounds / 5 > 0 ? rounds / 5 : 1;

	for (int b = 0; b < 5; b++) {
		double t0 = now_us();
		for (int r = 0; r < per; r++)
			pass(u, pid, set);
		double us = (now_us() - t0) / ((double)per * set->n);
		if (b == 0 || us < best)
			best = us;
	}
	return best;
}

static void bench(const char *what, int pid, struct set *set, int rounds)
{
	struct ember_unwinder *u;
	uint64_t frames;
	double t0, cold, warm, nocache;

	if (!set->n) {
		printf("  %-28s no snapshots\n", what);
		return;
	}
	u = ember_unwinder_new();
	t0 = now_us();
	frames = pass(u, pid, set);
	cold = (now_us() - t0) / set->n;
	warm = timed(u, pid, set, rounds);
	const struct ember_unwind_stats *st = ember_unwinder_stats(u);
	double hit = 100.0 * st->cache_hits /
		     (double)(st->cache_hits + st->cache_misses);
	uint64_t trunc = st->truncated;
	uint64_t samples = st->samples;
	ember_unwinder_free(u);

	u = ember_unwinder_new();
	ember_unwinder_set_flags(u, EMBER_UNWIND_NO_CACHE);
	pass(u, pid, set);
	nocache = timed(u, pid, set, rounds / 20 + 1);
	ember_unwinder_free(u);

	printf("  %-28s %5.1f frames/sample  warm %6.2f us/sample "
	       "(%5.1f ns/frame, %.1f%% cache hits)  cold %7.1f us  no "
	       "cache %6.1f us  truncated %.1f%%\n",
	       what, (double)frames / set->n, warm,
	       1000 * warm * set->n / (double)frames, hit, cold, nocache,
	       100.0 * trunc / (double)samples);
}

static void free_set(struct set *set)
{
	for (int k = 0; k < set->n; k++)
		free(set->s[k].stack);
	maps_free(&set->m);
	memset(set, 0, sizeof(*set));
}

static void run(const char *what, char *const argv[], int warm_ms, int rounds)
{
	static struct set set;
	char path[PATH_MAX], dir[] = "/tmp/ember-bench-XXXXXX";
	int pid;

	/* in a directory of its own: runtimes leave files in their cwd */
	if (!mkdtemp(dir)) {
		printf("  %-28s skipped: no temporary directory\n", what);
		return;
	}
	pid = spawn_seized(argv, dir);
	if (pid < 0) {
		printf("  %-28s skipped: cannot ptrace a child here\n", what);
		rmdir(dir);
		return;
	}
	take(pid, &set, warm_ms);
	bench(what, pid, &set, rounds);
	reap(pid);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	unlink(path);
	snprintf(path, sizeof(path), "/tmp/jit-%d.dump", pid);
	unlink(path);
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
	free_set(&set);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], dir[PATH_MAX], py[PATH_MAX + 16],
	    js[PATH_MAX + 16];
	int rounds = argc > 2 ? atoi(argv[2]) : 200;

	if (argc > 1 && !strcmp(argv[1], "child")) {
		child();
		return 0;
	}
	if (argc < 2 || !realpath("/proc/self/exe", self)) {
		fprintf(stderr, "usage: unwind-bench SCRIPT_DIR [ROUNDS]\n");
		return 2;
	}
	if (!realpath(argv[1], dir)) {
		fprintf(stderr, "unwind-bench: no directory '%s'\n", argv[1]);
		return 1;
	}
	snprintf(py, sizeof(py), "%s/nested.py", dir);
	snprintf(js, sizeof(js), "%s/nested.js", dir);
	printf("  %d snapshots of %d KiB per program; warm: rule cache filled "
	       "by a first pass; cold: that first pass (ELF files loaded); no "
	       "cache: every rule computed\n",
	       SNAPS, STACK / 1024);

	char *c_argv[] = {self, "child", NULL};
	run("C, no frame pointers", c_argv, 50, rounds);

	char *p = find_python("3.12*/bin/python3.12");
	if (p) {
		char *py_argv[] = {p, "-X", "perf", py, "10", NULL};
		run("Python 3.12 -X perf", py_argv, 300, rounds);
	} else {
		printf("  %-28s skipped: python3.12 not found\n",
		       "Python 3.12 -X perf");
	}
	p = find_python("3.13*/bin/python3.13");
	if (p) {
		char *py_argv[] = {p, "-X", "perf_jit", py, "10", NULL};
		run("Python 3.13 -X perf_jit", py_argv, 300, rounds);
	}
	if (!system("node --version > /dev/null 2>&1")) {
		char *node_argv[] = {"node", "--perf-basic-prof", js, "10",
				     NULL};
		run("Node.js --perf-basic-prof", node_argv, 600, rounds);
	}
	return 0;
}
