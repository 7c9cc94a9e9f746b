/* libFuzzer target: DWARF-mode perf samples (registers and a stack copy)
 * made of any bytes, unwound against this process's own mappings (real
 * ELF files, the vdso, anonymous memory), then symbolized from time to
 * time.  Stack words are often turned into addresses inside executable
 * mappings, so that walks go far.  Must not crash, hang or leak. */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf/events.h"
#include "perf/symbolize.h"

#define COPY 4096

static struct ember_record_stats stats;
static struct rec_events ev, *rec;
static uint64_t code[64][2]; /* executable mappings: start, length */
static size_t ncode;

static void setup(void)
{
	rec = &ev;
	rec_events_init(rec, &stats);
	rec->system_wide = 1;
	rec->dwarf = 1;
	rec->unwinder = ember_unwinder_new();
	rec->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			   PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			   PERF_SAMPLE_STACK_USER;
	rec->regs_mask = 0x1c0;
	rec_events_synthesize_pid(rec, getpid());
	struct rec_proc *p = rec_world_find_proc(&rec->world, getpid());
	for (size_t i = 0; p && i < p->nmaps && ncode < 64; i++) {
		code[ncode][0] = p->maps[i].m.start;
		code[ncode][1] = p->maps[i].m.end - p->maps[i].m.start;
		ncode++;
	}
	if (!ncode)
		abort();
}

/* A word of the input: itself, or an address in executable memory. */
static uint64_t word(uint64_t w)
{
	if ((w & 3) == 0)
		return w;
	const uint64_t *c = code[(w >> 2) % ncode];
	return c[0] + (w >> 8) % c[1];
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static uint64_t r[COPY / 8 + 32];
	static unsigned calls;
	uint64_t w[3] = {0, 0, 0};
	size_t n = 1, have = size > 24 ? size - 24 : 0;
	const uint64_t sp = 0x7ffd00000000ull;

	if (!rec)
		setup();
	memcpy(w, data, size < 24 ? size : 24);
	if (have > COPY)
		have = COPY;
	uint64_t ip = word(w[0] | 1);
	r[n++] = ip;
	r[n++] = (uint64_t)getpid() | (uint64_t)getpid() << 32;
	r[n++] = calls;		   /* time */
	r[n++] = 0;		   /* cpu */
	r[n++] = 1;		   /* period */
	r[n++] = w[2] & 1 ? 1 : 0; /* callchain: one kernel frame, or none */
	if (w[2] & 1)
		r[n++] = 0xffffffff81000000ull;
	r[n++] = w[2] & 2 ? PERF_SAMPLE_REGS_ABI_NONE : PERF_SAMPLE_REGS_ABI_64;
	if (!(w[2] & 2)) {
		r[n++] = w[1] & 4 ? word(w[1]) : sp + (w[1] & 0xff8); /* bp */
		r[n++] = sp;
		r[n++] = ip;
	}
	r[n++] = COPY;
	uint8_t *stack = (uint8_t *)&r[n];
	memset(stack, 0, COPY);
	memcpy(stack, data + (size > 24 ? 24 : size), have);
	for (size_t i = 0; i + 8 <= have; i += 8) {
		uint64_t v;
		memcpy(&v, stack + i, 8);
		v = word(v);
		memcpy(stack + i, &v, 8);
	}
	n += COPY / 8;
	r[n++] = w[2] & 4 ? COPY + 8 : have; /* a bogus dyn_size too */
	struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
				      (uint16_t)(n * 8)};
	memcpy(r, &h, sizeof(h));
	/* the whole record, or a truncated one */
	size_t len = n * 8;
	if (w[2] & 8)
		len = 8 + ((size_t)(w[2] >> 8) % (n * 8 - 7) & ~(size_t)7);
	rec_events_handle(rec, r, len);
	if (++calls % 2000 == 0) {
		struct ember_intern names;
		struct ember_stacks stacks;
		ember_intern_init(&names);
		ember_stacks_init(&stacks);
		struct rec_nameloc *locs;
		size_t nlocs;
		int err = rec_symbolize(rec, 0, NULL, &names, &stacks, &locs,
					&nlocs, NULL);
		(void)err; /* EMBER_EEMPTY before the first kept sample */
		if (nlocs > ember_intern_count(&names))
			abort();
		free(locs);
		ember_stacks_release(&stacks);
		ember_intern_release(&names);
	}
	return 0;
}
