/*
 * perf_event_open plumbing: the event names, sysctls, online CPUs, and the
 * ring buffer protocol (the kernel advances data_head, we read up to it and
 * advance data_tail; records are 8-byte aligned so a header never wraps,
 * but a body may, and is then copied out whole).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/ring.h"

static const struct rec_event_desc events[] = {
    {"cpu-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 1},
    {"task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1},
    {"page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0},
    {"minor-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN,
     0},
    {"major-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ,
     0},
    {"context-switches", "cs", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_CONTEXT_SWITCHES, 0},
    {"cpu-migrations", "migrations", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_CPU_MIGRATIONS, 0},
    {"cycles", "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0},
    {"instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0},
    {"cache-references", NULL, PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_CACHE_REFERENCES, 0},
    {"cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 0},
    {"branches", "branch-instructions", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0},
    {"branch-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 0},
    {"bus-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, 0},
    {"ref-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, 0},
};

const struct rec_event_desc *rec_event_lookup(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(events); i++)
		if (!strcmp(name, events[i].name) ||
		    (events[i].alias && !strcmp(name, events[i].alias)))
			return &events[i];
	return NULL;
}

const char *rec_event_names(void)
{
	return "cpu-clock task-clock page-faults minor-faults major-faults "
	       "context-switches cpu-migrations cycles instructions "
	       "cache-references cache-misses branches branch-misses "
	       "bus-cycles ref-cycles";
}

long rec_sysctl_long(const char *name)
{
	char path[128], buf[64];
	long v = -1;

	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	for (char *p = path + 10; *p; p++)
		if (*p == '.')
			*p = '/';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		char *end;
		buf[n] = '\0';
		errno = 0;
		v = strtol(buf, &end, 10);
		if (errno || end == buf)
			v = -1;
	}
	return v;
}

/* "0-3,5,7-8" */
size_t rec_online_cpus(int **cpus)
{
	char buf[4096];
	size_t n = 0, alloc = 0;
	int *out = NULL;
	int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
	ssize_t len = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (len > 0) {
		buf[len] = '\0';
		char *p = buf;
		while (*p && *p != '\n') {
			char *end;
			long a = strtol(p, &end, 10), b;
			if (end == p || a < 0 || a > 65535)
				break;
			b = a;
			p = end;
			if (*p == '-') {
				b = strtol(p + 1, &end, 10);
				if (end == p + 1 || b < a || b > 65535)
					break;
				p = end;
			}
			for (long c = a; c <= b; c++) {
				EMBER_GROW(out, n + 1, alloc);
				out[n++] = (int)c;
			}
			if (*p == ',')
				p++;
		}
	}
	if (!n) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		for (long i = 0; i < (c > 0 ? c : 1); i++) {
			EMBER_GROW(out, n + 1, alloc);
			out[n++] = (int)i;
		}
	}
	*cpus = out;
	return n;
}

int rec_ring_map(struct rec_ring *r, int fd, int cpu, size_t pages)
{
	long page = sysconf(_SC_PAGESIZE);

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->cpu = cpu;
	r->size = (pages + 1) * (size_t)page;
	r->base =
	    mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return errno == EPERM || errno == EACCES ? EMBER_EPERM
		       : errno == ENOMEM		 ? EMBER_ENOMEM
							 : EMBER_EIO;
	}
	struct perf_event_mmap_page *pg = r->base;
	r->data_size = pg->data_size ? pg->data_size : pages * (size_t)page;
	return 0;
}

void rec_ring_unmap(struct rec_ring *r)
{
	if (r->base)
		munmap(r->base, r->size);
	free(r->scratch);
	r->base = NULL;
	r->scratch = NULL;
}

int rec_ring_drain(struct rec_ring *r, rec_record_fn fn, void *ctx)
{
	struct perf_event_mmap_page *pg = r->base;
	const char *data;
	uint64_t head, tail, mask = r->data_size - 1;
	int corrupt = 0;

	if (!pg)
		return 0;
	data = (const char *)r->base + (pg->data_offset
					    ? pg->data_offset
					    : (uint64_t)sysconf(_SC_PAGESIZE));
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	while (tail < head) {
		uint64_t off = tail & mask;
		const struct perf_event_header *h = (const void *)(data + off);
		size_t size = h->size;
		if (size < sizeof(*h) || size > head - tail || (size & 7)) {
			/* cannot happen with a sane kernel: resync at head */
			corrupt = 1;
			tail = head;
			break;
		}
		if (off + size > r->data_size) {
			size_t first = r->data_size - off;
			EMBER_GROW(r->scratch, size, r->ascratch);
			memcpy(r->scratch, data + off, first);
			memcpy(r->scratch + first, data, size - first);
			fn(ctx, r->scratch, size);
		} else {
			fn(ctx, h, size);
		}
		tail += size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return corrupt;
}
