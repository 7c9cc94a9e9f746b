/*
 * A tiny "JIT" for the profiler's tests: it copies two functions into
 * anonymous executable memory and describes them in /tmp/perf-PID.map, as
 * JIT compilers do.  jit_trampoline (push rbp; mov rbp,rsp; call *rdi; pop
 * rbp; ret) sits in a frame-pointer chain: main -> jit_trampoline ->
 * c_callback -> c_spin; jit_spin_loop is a leaf: main -> run_jit_leaf ->
 * jit_spin_loop.  MODE makes the map untrustworthy:
 *   jitmap [good|stale|foreign|symlink|writable|ctrl] [SECONDS]
 * stale: written an hour before the process started; foreign: owned by
 * uid 65534; symlink: /tmp/perf-PID.map is a symbolic link; writable:
 * anyone may write it (mode 0666).  ctrl: a trustworthy map whose names
 * hold control bytes (ESC, TAB, CR).  big: a trustworthy map with six
 * million more entries, which take the profiler seconds to read.  It prints its
 * pid, and leaves the map for the profiler to read after it exits.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

static const unsigned char trampoline[] = {
    0x55,	      /* push %rbp */
    0x48, 0x89, 0xe5, /* mov %rsp,%rbp */
    0xff, 0xd7,	      /* call *%rdi */
    0x5d,	      /* pop %rbp */
    0xc3,	      /* ret */
};
static const unsigned char spin_loop[] = {
    0x55,	      /* push %rbp */
    0x48, 0x89, 0xe5, /* mov %rsp,%rbp */
    0x48, 0x89, 0xf9, /* mov %rdi,%rcx */
    0x48, 0xff, 0xc9, /* 1: dec %rcx */
    0x75, 0xfb,	      /* jnz 1b */
    0x5d,	      /* pop %rbp */
    0xc3,	      /* ret */
};

NOINLINE void c_spin(void)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < 300000; i++)
		acc += i ^ (acc >> 3);
	sink += acc;
}

NOINLINE void c_callback(void)
{
	c_spin();
	sink++;
}

NOINLINE void run_jit_leaf(void (*f)(unsigned long))
{
	f(600000);
	sink++;
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "good";
	double secs = argc > 2 ? strtod(argv[2], NULL) : 1.0;
	char path[64], real[64], text[256];

	unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	memcpy(code, trampoline, sizeof(trampoline));
	memcpy(code + 64, spin_loop, sizeof(spin_loop));
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC))
		return 1;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	snprintf(real, sizeof(real), "/tmp/jitmap-%d.txt", (int)getpid());
	const char *leafname =
	    strcmp(mode, "ctrl") ? "jit_spin_loop" : "jit\033[31m_spin\tloop\r";
	int n =
	    snprintf(text, sizeof(text),
		     "%lx %zx jit_trampoline\n%lx %zx "
		     "%s\n",
		     (unsigned long)code, sizeof(trampoline),
		     (unsigned long)(code + 64), sizeof(spin_loop), leafname);
	const char *file = strcmp(mode, "symlink") ? path : real;
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, (size_t)n) != n)
		return 1;
	if (!strcmp(mode, "foreign") && fchown(fd, 65534, 65534))
		return 1;
	if (!strcmp(mode, "writable") && fchmod(fd, 0666))
		return 1;
	if (!strcmp(mode, "stale")) {
		struct timespec t[2];
		clock_gettime(CLOCK_REALTIME, &t[0]);
		t[0].tv_sec -= 3600;
		t[1] = t[0];
		futimens(fd, t);
	}
	if (!strcmp(mode, "big")) {
		FILE *f = fdopen(fd, "a");
		for (unsigned long i = 0; f && i < 6000000; i++)
			fprintf(f, "%lx 10 filler_%lu\n",
				0x7e0000000000ul + i * 16, i);
		if (!f || fclose(f))
			return 1;
	} else {
		close(fd);
	}
	if (!strcmp(mode, "symlink") && symlink(real, path))
		return 1;
	printf("%d\n", (int)getpid());
	fflush(stdout);

	void (*tramp)(void (*)(void)) = (void (*)(void (*)(void)))code;
	void (*leaf)(unsigned long) = (void (*)(unsigned long))(code + 64);
	while (cpu_seconds() < secs) {
		tramp(c_callback);
		run_jit_leaf(leaf);
	}
	return 0;
}
