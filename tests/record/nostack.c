/*
 * LD_PRELOAD shim: perf_event_open refuses copies of user registers and
 * stacks with EINVAL, as kernels without perf_regs support do, so that the
 * profiler's fallback to frame pointers can be tested.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <sys/syscall.h>

long syscall(long nr, ...);

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	va_list ap;
	long a[6];

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_perf_event_open) {
		const struct perf_event_attr *attr = (const void *)a[0];
		if (attr->sample_type &
		    (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) {
			errno = EINVAL;
			return -1;
		}
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
