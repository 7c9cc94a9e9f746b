/*
 * Forks a child that execs another program (argv[1], with the remaining
 * arguments) while the parent spins in parent_spin for about 0.5 s of CPU
 * time; exits with the child's status.  Built with frame pointers.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

NOINLINE void parent_spin(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 3);
	sink += acc;
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int status;

	if (argc < 2) {
		fprintf(stderr, "usage: forkexec PROGRAM [ARGS...]\n");
		return 2;
	}
	pid_t pid = fork();
	if (pid == 0) {
		execv(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	while (cpu_seconds() < 0.5)
		parent_spin(100000);
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
