/* The unwinder on live processes: children stopped with ptrace, whose
 * registers and stack copy are unwound the way samples will be (a C
 * program without frame pointers and through libc's qsort, Python 3.12
 * -X perf, Python 3.13 -X perf_jit, Node.js with a perf map and with a
 * jitdump).  Each part skips, saying why, when ptrace is not permitted or
 * the runtime is missing. */
#include <dirent.h>
#include <glob.h>
#include <limits.h>

#include "harness.h"
#include "unwind-helpers.h"

#define SNAPS 40
#define STACK 32768

/* ---- the C child: this program run as "child" ---- */

#define NOFP __attribute__((noinline, noclone, optimize("omit-frame-pointer")))

static volatile unsigned long spin;

NOFP static void c_inner(void)
{
	for (int i = 0; i < 1000000; i++)
		spin += (unsigned long)i * 3;
}

NOFP static void c_mid(void)
{
	c_inner();
	spin++;
}

NOFP static void c_outer(void)
{
	c_mid();
	spin++;
}

NOFP static int c_cmp(const void *a, const void *b)
{
	for (int i = 0; i < 200; i++)
		spin += (unsigned long)i;
	return *(const int *)a - *(const int *)b;
}

NOFP static void c_clock(void)
{
	struct timespec ts;
	for (int i = 0; i < 20000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		spin += (unsigned long)ts.tv_nsec;
	}
}

NOFP static void child_run(void)
{
	static int v[512];
	for (;;) {
		c_outer();
		c_clock();
		for (int i = 0; i < 512; i++)
			v[i] = (i * 7919) % 512;
		qsort(v, 512, sizeof(int), c_cmp);
	}
}

/* ---- snapshots of a child ---- */

struct frame_set {
	uint64_t ips[128];
	size_t n;
	int trunc;
	const char *names[128];
};

struct run {
	const char *what;
	struct frame_set s[SNAPS];
	struct snap snaps[SNAPS];
	int n;
	double us; /* unwinding time, summed */
};

/* Takes SNAPS snapshots of pid 10 ms apart and unwinds each at once
 * (the child is stopped: its mappings are current).  Returns -1 if the
 * child ended before half of them. */
static int sample(int pid, struct ember_unwinder *u, struct maps *m,
		  struct run *r)
{
	for (int k = 0; k < SNAPS; k++) {
		struct snap sn;
		usleep(10000);
		if (snap_ptrace(pid, &sn, STACK))
			return r->n >= SNAPS / 2 ? 0 : -1;
		maps_free(m);
		maps_load(pid, m);
		double t0 = now_us();
		struct frame_set *f = &r->s[r->n++];
		f->n = ember_unwind(u, pid, &sn.regs, sn.stack, sn.len,
				    maps_find, m, f->ips, 128, &f->trunc);
		r->us += now_us() - t0;
		r->snaps[r->n - 1] = sn;
		snap_resume(pid);
	}
	return 0;
}

static void free_run(struct run *r)
{
	for (int k = 0; k < r->n; k++)
		free(r->snaps[k].stack);
	memset(r, 0, sizeof(*r));
}

/* Unwinds the snapshots again after the process is gone, with only the
 * jitdump for its JIT code (its CFI and code bytes): counts the stacks
 * that come out the same. */
static int replay(struct run *r, int pid, struct maps *m,
		  struct ember_jitdump *jd, unsigned flags, uint64_t *jit_rules)
{
	struct ember_unwinder *u = ember_unwinder_new();
	int same = 0;

	ember_unwinder_set_flags(u, flags);
	ember_unwinder_set_jitdump(u, pid, jd);
	for (int k = 0; k < r->n; k++) {
		struct frame_set *f = &r->s[k], g;
		g.n = ember_unwind(u, pid, &r->snaps[k].regs, r->snaps[k].stack,
				   r->snaps[k].len, maps_find, m, g.ips, 128,
				   &g.trunc);
		same += g.n == f->n && g.trunc == f->trunc &&
			!memcmp(g.ips, f->ips, g.n * 8);
	}
	*jit_rules = ember_unwinder_stats(u)->by_src[EMBER_SRC_JIT];
	ember_unwinder_free(u);
	return same;
}

static void name_frames(struct run *r, struct symbolizer *z, struct maps *m)
{
	for (int k = 0; k < r->n; k++)
		for (size_t i = 0; i < r->s[k].n; i++)
			r->s[k].names[i] =
			    sym_name(z, m, r->s[k].ips[i] - (i ? 1 : 0));
}

static void dump(const struct frame_set *f)
{
	for (size_t i = 0; i < f->n; i++)
		fprintf(stderr, "    #%zu %#llx %s\n", i,
			(unsigned long long)f->ips[i], f->names[i]);
	fprintf(stderr, "    %s\n", f->trunc ? "[truncated]" : "(end)");
}

static int ends_at_start(const struct frame_set *f)
{
	return !f->trunc && f->n && f->names[f->n - 1] &&
	       !strcmp(f->names[f->n - 1], "_start");
}

/* ---- C ---- */

static void test_c(const char *self)
{
	int ready[2];
	char fdarg[16] = "-1";
	if (!pipe(ready))
		snprintf(fdarg, sizeof(fdarg), "%d", ready[1]);
	char *argv[] = {(char *)self, "child", fdarg, NULL};
	int pid = spawn_seized(argv, NULL);
	struct ember_unwinder *u = ember_unwinder_new();
	struct maps m = {0};
	struct symbolizer z = {0};
	static struct run r;
	int complete = 0, chain = 0, libc = 0, vdso = 0, bad = 0;

	if (pid < 0) {
		printf("live C: skipped: ptrace not permitted here\n");
		ember_unwinder_free(u);
		return;
	}
	/* snapshots from its loop on, not from its start-up (ASan's, on
	 * a loaded machine, takes long) */
	if (strcmp(fdarg, "-1")) {
		char c;
		close(ready[1]);
		CHECK(read(ready[0], &c, 1) == 1);
		close(ready[0]);
	}
	usleep(50000);
	ember_unwinder_set_flags(u, EMBER_UNWIND_NO_FP); /* CFI only */
	CHECK(sample(pid, u, &m, &r) == 0);
	name_frames(&r, &z, &m);
	for (int k = 0; k < r.n; k++) {
		struct frame_set *f = &r.s[k];
		int done = ends_at_start(f), ok = done;
		complete += done;
		/* the frames from child_run down */
		size_t cr = 0;
		while (cr < f->n && strcmp(f->names[cr], "child_run"))
			cr++;
		if (cr == f->n || cr + 1 >= f->n ||
		    strcmp(f->names[cr + 1], "main"))
			ok = 0;
		else if (cr == 0)
			ok = 1; /* in child_run itself */
		else if (!strcmp(f->names[0], "c_inner"))
			chain += ok = cr == 3 &&
				      !strcmp(f->names[1], "c_mid") &&
				      !strcmp(f->names[2], "c_outer");
		else if (!strcmp(f->names[0], "[vdso]"))
			vdso += ok = !strcmp(f->names[cr - 1], "c_clock");
		else if (!strcmp(f->names[cr - 1], "c_clock"))
			ok = 1; /* in libc's clock_gettime or in c_clock */
		else if (!strcmp(f->names[0], "c_cmp")) {
			const struct ember_unwind_mapping *mp =
			    maps_find(&m, f->ips[1] - 1);
			/* libc's msort; under ASan its qsort interceptor,
			 * which calls the comparator itself first */
			libc += ok = mp && mp->path &&
				     (strstr(mp->path, "/libc.") ||
				      strstr(mp->path, "/libasan."));
		}
		if (!ok) {
			bad++;
			fprintf(stderr, "live C: unexpected stack:\n");
			dump(f);
		}
	}
	printf("live C (no frame pointers, CFI only): %d snapshots, %d "
	       "complete to _start, %d in c_outer;c_mid;c_inner, %d in "
	       "libc's qsort, %d in the vdso, %.1f us per unwind\n",
	       r.n, complete, chain, libc, vdso, r.us / (r.n ? r.n : 1));
	CHECK(r.n == SNAPS && bad == 0 && complete == r.n && chain > 0 &&
	      libc > 0);
	reap(pid);
	free_run(&r);
	sym_free(&z);
	maps_free(&m);
	ember_unwinder_free(u);
}

/* ---- Python ---- */

/* The Python function of a "py::name:file" frame, or NULL. */
static int py_func(const char *name, char *out, size_t n)
{
	if (!name || strncmp(name, "py::", 4))
		return 0;
	size_t len = strcspn(name + 4, ":");
	snprintf(out, n, "%.*s", (int)len, name + 4);
	return 1;
}

/* Checks the py:: frames of each snapshot: outermost first (from want[0]
 * on if skip_outer), they must be a prefix of want[] (nothing invented,
 * nothing skipped). */
static void check_py(const char *what, struct run *r, const char *const *want,
		     int nwant, int skip_outer)
{
	int complete = 0, full = 0, bad = 0;

	for (int k = 0; k < r->n; k++) {
		struct frame_set *f = &r->s[k];
		char fn[128];
		int depth = 0, ok = 1;
		for (size_t i = f->n; i-- > 0;) {
			if (!py_func(f->names[i], fn, sizeof(fn)))
				continue;
			if (skip_outer && !depth && strcmp(fn, want[0]))
				continue;
			if (depth >= nwant || strcmp(fn, want[depth]))
				ok = 0;
			depth++;
		}
		complete += ends_at_start(f);
		full += ok && depth == nwant && ends_at_start(f);
		if (!ok || !ends_at_start(f)) {
			bad++;
			if (getenv("VERBOSE") || bad <= 2) {
				fprintf(stderr, "%s: unexpected stack:\n",
					what);
				dump(f);
			}
		}
	}
	printf("%s: %d snapshots, %d complete to _start, %d with all %d "
	       "expected frames (%d%%), %d inconsistent, %.1f us per unwind\n",
	       what, r->n, complete, full, nwant, r->n ? 100 * full / r->n : 0,
	       bad, r->us / (r->n ? r->n : 1));
	CHECK(r->n >= SNAPS / 2);
	CHECK(bad == 0);
	CHECK(complete >= r->n * 9 / 10);
	CHECK(full >= r->n / 2);
}

/* Waits until the perf map of pid mentions py::foo, or until the
 * jitdump exists (the runtime buffers it: its tail comes at exit). */
static void wait_for(int pid, int jit)
{
	char path[64], line[4096];
	snprintf(path, sizeof(path),
		 jit ? "/tmp/jit-%d.dump" : "/tmp/perf-%d.map", pid);
	for (int i = 0; i < 300; i++) {
		FILE *f = fopen(path, "re");
		int seen = jit && f;
		while (f && !seen && fgets(line, sizeof(line), f))
			seen = strstr(line, "py::foo") != NULL;
		if (f)
			fclose(f);
		if (seen)
			break;
		usleep(10000);
	}
	usleep(200000);
}

/* The jitdump the process mapped (how the profiler finds it), opened. */
static struct ember_jitdump *mapped_jitdump(int pid, struct maps *m)
{
	char suffix[64];
	snprintf(suffix, sizeof(suffix), "/jit-%d.dump", pid);
	for (size_t i = 0; i < m->n; i++) {
		const char *p = m->v[i].path;
		size_t lp = p ? strlen(p) : 0, ls = strlen(suffix);
		struct ember_jitdump *jd;
		if (lp > ls && !strcmp(p + lp - ls, suffix) &&
		    !ember_jitdump_open(p, &jd))
			return jd;
	}
	return NULL;
}

static void test_python(const char *version, const char *flag)
{
	static const char *const want[] = {"<module>", "main", "baz", "bar",
					   "foo"};
	char pattern[64], script[PATH_MAX], what[64], path[64];
	int jit = !strcmp(flag, "perf_jit");
	struct ember_jitdump *jd = NULL;

	snprintf(what, sizeof(what), "live Python %s -X %s", version, flag);
	snprintf(pattern, sizeof(pattern), "%s*/bin/python%s", version,
		 version);
	char *py = find_python(pattern);
	if (!py) {
		printf("%s: skipped: python%s is not installed\n", what,
		       version);
		return;
	}
	if (!realpath("tests/unwind/nested.py", script)) {
		printf("%s: skipped: run from the source tree\n", what);
		return;
	}
	char *argv[] = {py, "-X", (char *)flag, script, "1.5", NULL};
	int pid = spawn_seized(argv, NULL);
	if (pid < 0) {
		printf("%s: skipped: ptrace not permitted here\n", what);
		return;
	}
	wait_for(pid, jit);
	struct ember_unwinder *u = ember_unwinder_new();
	struct maps m = {0};
	struct symbolizer z = {0};
	static struct run r;
	memset(&r, 0, sizeof(r));
	if (jit) {
		maps_load(pid, &m);
		jd = mapped_jitdump(pid, &m);
		CHECK(jd != NULL);
		if (jd)
			ember_unwinder_set_jitdump(u, pid, jd);
	}
	CHECK(sample(pid, u, &m, &r) == 0);
	CHECK(finish(pid) == 0);
	/* symbolize after: the perf map and jitdump are complete now */
	if (jd) {
		CHECK(ember_jitdump_update(jd) >= 0);
		z.jd = jd;
	}
	sym_load_perf_map(&z, pid);
	name_frames(&r, &z, &m);
	check_py(what, &r, want, 5, 0);
	const struct ember_unwind_stats *st = ember_unwinder_stats(u);
	printf("  rules: %llu file CFI, %llu jitdump CFI, %llu trampoline "
	       "patterns, %llu frame pointers\n",
	       (unsigned long long)st->by_src[EMBER_SRC_CFI],
	       (unsigned long long)st->by_src[EMBER_SRC_JIT],
	       (unsigned long long)st->by_src[EMBER_SRC_PATTERN],
	       (unsigned long long)st->by_src[EMBER_SRC_FP]);
	if (jd) {
		/* the trampolines came after the part of the dump written
		 * while it ran: unwind again from the whole dump, without the
		 * trampoline pattern */
		uint64_t jr;
		int same =
		    replay(&r, pid, &m, jd, EMBER_UNWIND_NO_PATTERNS, &jr);
		printf("  after exit, from the jitdump's CFI alone: %d of %d "
		       "stacks the same (%llu jitdump CFI rules)\n",
		       same, r.n, (unsigned long long)jr);
		CHECK(same == r.n && jr > 0);
	} else {
		CHECK(st->by_src[EMBER_SRC_PATTERN] > 0);
	}
	free_run(&r);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	unlink(path);
	snprintf(path, sizeof(path), "/tmp/jit-%d.dump", pid);
	unlink(path);
	sym_free(&z);
	maps_free(&m);
	ember_unwinder_free(u);
	ember_jitdump_free(jd);
}

/* ---- Node.js ---- */

/* The JS function of a "JS:*name file:l:c" frame ("LazyCompile:" in
 * older Node.js), or NULL. */
static int js_func(const char *name, char *out, size_t n)
{
	const char *p = name ? strstr(name, "JS:") : NULL;
	if (!p)
		p = name ? strstr(name, "LazyCompile:") : NULL;
	if (!p)
		return 0;
	p = strchr(p, ':') + 1;
	if (*p == '*' || *p == '~' || *p == '^' || *p == '+')
		p++;
	size_t len = strcspn(p, " ");
	snprintf(out, n, "%.*s", (int)len, p);
	return 1;
}

static void test_node(const char *flag)
{
	static const char *const want[] = {"main", "baz", "bar", "foo"};
	char script[PATH_MAX], dir[] = "/tmp/ember-node-XXXXXX", what[64];
	struct ember_jitdump *jd = NULL;
	int jit = !strcmp(flag, "--perf-prof");

	snprintf(what, sizeof(what), "live Node.js %s", flag);
	if (system("node --version > /dev/null 2>&1")) {
		printf("%s: skipped: node is not installed\n", what);
		return;
	}
	if (!realpath("tests/unwind/nested.js", script) || !mkdtemp(dir)) {
		printf("%s: skipped: run from the source tree\n", what);
		return;
	}
	char *argv[] = {"node",
			(char *)flag,
			"--no-turbo-inlining",
			"--interpreted-frames-native-stack",
			script,
			"2",
			NULL};
	int pid = spawn_seized(argv, dir);
	if (pid < 0) {
		printf("%s: skipped: ptrace not permitted here\n", what);
		rmdir(dir);
		return;
	}
	usleep(600000); /* start and optimise */
	struct ember_unwinder *u = ember_unwinder_new();
	struct maps m = {0};
	struct symbolizer z = {0};
	static struct run r;
	memset(&r, 0, sizeof(r));
	maps_load(pid, &m);
	if (jit && (jd = mapped_jitdump(pid, &m)))
		ember_unwinder_set_jitdump(u, pid, jd);
	CHECK(sample(pid, u, &m, &r) == 0);
	CHECK(finish(pid) == 0);
	if (jd) {
		CHECK(ember_jitdump_update(jd) >= 0);
		z.jd = jd;
	}
	sym_load_perf_map(&z, pid);
	name_frames(&r, &z, &m);
	/* rename the JS frames to py-style names for the common check */
	static char names[SNAPS][128][64];
	for (int k = 0; k < r.n; k++)
		for (size_t i = 0; i < r.s[k].n; i++) {
			char fn[48];
			if (js_func(r.s[k].names[i], fn, sizeof(fn))) {
				snprintf(names[k][i], 64, "py::%s:", fn);
				r.s[k].names[i] = names[k][i];
			}
		}
	check_py(what, &r, want, 4, 1);
	if (jd) {
		uint64_t jr;
		int same = replay(&r, pid, &m, jd, 0, &jr);
		printf("  after exit, with the jitdump's code: %d of %d stacks "
		       "the same\n",
		       same, r.n);
		CHECK(same == r.n);
	}
	free_run(&r);
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
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
	sym_free(&z);
	maps_free(&m);
	ember_unwinder_free(u);
	ember_jitdump_free(jd);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];

	if (argc > 1 && !strcmp(argv[1], "child")) {
		int fd = argc > 2 ? atoi(argv[2]) : -1;
		if (fd >= 0 && (write(fd, "r", 1) != 1 || close(fd)))
			return 1;
		child_run();
		return 0;
	}
	if (!realpath("/proc/self/exe", self))
		return 1;
	test_c(self);
	test_python("3.12", "perf");
	test_python("3.13", "perf_jit");
	test_node("--perf-basic-prof");
	test_node("--perf-prof");
	DONE();
}
