/*
 * Runs a command where perf_event_open fails as in a locked-down container:
 * a seccomp filter makes the system call return ERRNO (ENOSYS or EPERM).
 *   noperf ENOSYS|EPERM COMMAND [ARGS...]
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: noperf ENOSYS|EPERM COMMAND...\n");
		return 2;
	}
	unsigned err = strcmp(argv[1], "EPERM") ? ENOSYS : EPERM;
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		     offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | err),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("seccomp");
		return 2;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
