/*
 * Threads that wait in known ways for known times, for the off-CPU and
 * wall-clock tests (U seconds, default 0.2, is the unit):
 *   spinner       computes for 3U
 *   sleeper       sleeps 1U (nanosleep: S)
 *   lock_waiter   waits 2U on a mutex lock_holder holds (futex: S)
 *   lock_holder   holds the mutex, sleeping 2U
 *   pipe_reader   blocks 3U reading a pipe (S)
 *   pipe_writer   sleeps 3U, then writes to the pipe
 *   vfork_waiter  waits 1U for a vfork child (D), which sleeps 1U in
 *                 vfork_child
 *   mixed         computes 1U (compute), then sleeps 2U (rest)
 *   main          joins them (about 3U)
 * Usage: offcpu [U [DELAY]]; DELAY seconds of sleep first (for -p).
 * Prints how long each wait really took ("sleep SECONDS" ...): on a busy
 * machine a thread woken up may wait for a CPU too, and that is off-CPU
 * time as well.
 * Built without frame pointers: stacks come from DWARF unwinding.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static double unit = 0.2;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start;
static int fds[2];
static volatile unsigned long sink;
static double took[5]; /* sleep, lock, pipe, vfork, rest */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE void nap(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};

	while (nanosleep(&ts, &ts))
		;
	__asm__ volatile("" ::: "memory");
}

NOINLINE void burn(double until)
{
	unsigned long acc = 0;

	while (now() < until)
		for (int i = 0; i < 1000; i++)
			acc += (unsigned long)i ^ (acc >> 3);
	sink += acc;
}

NOINLINE void *spinner(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	burn(now() + 3 * unit);
	return NULL;
}

NOINLINE void *sleeper(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	double t0 = now();
	nap(unit);
	took[0] = now() - t0;
	return NULL;
}

NOINLINE void *lock_holder(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	pthread_barrier_wait(&start);
	nap(2 * unit);
	pthread_mutex_unlock(&lock);
	return NULL;
}

NOINLINE void *lock_waiter(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	double t0 = now();
	pthread_mutex_lock(&lock);
	took[1] = now() - t0;
	pthread_mutex_unlock(&lock);
	__asm__ volatile("" ::: "memory");
	return NULL;
}

NOINLINE void *pipe_reader(void *arg)
{
	char c;

	(void)arg;
	pthread_barrier_wait(&start);
	double t0 = now();
	if (read(fds[0], &c, 1) != 1)
		abort();
	took[2] = now() - t0;
	__asm__ volatile("" ::: "memory");
	return NULL;
}

NOINLINE void *pipe_writer(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	nap(3 * unit);
	if (write(fds[1], "x", 1) != 1)
		abort();
	return NULL;
}

NOINLINE void vfork_child(void)
{
	nap(unit);
	_exit(0);
}

NOINLINE void *vfork_waiter(void *arg)
{
	int st;

	(void)arg;
	pthread_barrier_wait(&start);
	double t0 = now();
	pid_t pid = vfork();
	if (pid == 0)
		vfork_child();
	took[3] = now() - t0;
	if (pid > 0)
		waitpid(pid, &st, 0);
	__asm__ volatile("" ::: "memory");
	return NULL;
}

/* the barriers keep compute and rest in the stacks (no tail calls) */
NOINLINE void compute(void)
{
	burn(now() + unit);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void rest(void)
{
	double t0 = now();
	nap(2 * unit);
	took[4] = now() - t0;
	__asm__ volatile("" ::: "memory");
}

NOINLINE void *mixed(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	compute();
	rest();
	return NULL;
}

int main(int argc, char **argv)
{
	void *(*const fns[])(void *) = {lock_holder,  spinner,	   sleeper,
					lock_waiter,  pipe_reader, pipe_writer,
					vfork_waiter, mixed};
	const size_t n = sizeof(fns) / sizeof(fns[0]);
	pthread_t t[sizeof(fns) / sizeof(fns[0])];

	if (argc > 1)
		unit = atof(argv[1]);
	if (argc > 2)
		nap(atof(argv[2]));
	if (!(unit > 0) || pipe(fds))
		return 2;
	pthread_barrier_init(&start, NULL, (unsigned)n);
	for (size_t i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, fns[i], NULL))
			return 1;
	double t0 = now();
	for (size_t i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	double join = now() - t0;
	printf("sleep %.6f\nlock %.6f\npipe %.6f\nvfork %.6f\nrest %.6f\n"
	       "unit %.6f\njoin %.6f\n",
	       took[0], took[1], took[2], took[3], took[4], unit, join);
	return 0;
}
