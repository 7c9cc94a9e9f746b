/* Unit tests of the sample-level profile (profile.c): deduplicated
 * tables, the stack prefix tree, weight columns, remapping, time order,
 * folded stacks as a profile, memory per sample. */
#include <stdlib.h>

#include "harness.h"
#include "profile.h"
#include "stacks.h"

static uint32_t frame_of(struct ember_prof *p, const char *name, uint64_t addr,
			 uint32_t line, uint16_t depth)
{
	uint32_t n = ember_prof_strz(p, name);
	struct ember_prof_func fn = {n, n, ember_prof_strz(p, "a.c"), 1};
	struct ember_prof_frame fr = {0};

	fr.address = addr;
	fr.mapping = EMBER_PROF_NONE;
	fr.func = ember_prof_func(p, &fn);
	fr.line = line;
	fr.inline_depth = depth;
	fr.kind = EMBER_PROF_USER;
	return ember_prof_frame(p, &fr);
}

static void test_tables(void)
{
	struct ember_prof *p = ember_prof_new();
	size_t len;

	CHECK_STR(ember_prof_s(p, 0, &len), "");
	CHECK(len == 0);
	uint32_t a = ember_prof_strz(p, "main");
	CHECK(a != 0 && ember_prof_strz(p, "main") == a);
	/* the same fields: the same function, frame */
	uint32_t f1 = frame_of(p, "main", 0x1000, 3, 0);
	uint32_t f2 = frame_of(p, "main", 0x1000, 3, 0);
	uint32_t f3 = frame_of(p, "main", 0x1000, 3, 1); /* inlined */
	uint32_t f4 = frame_of(p, "leaf", 0x2000, 9, 0);
	CHECK(f1 == f2 && f1 != f3 && f3 != f4);
	CHECK(p->nframes == 3 && p->nfuncs == 2);
	CHECK(p->frames[f1].func == p->frames[f3].func);
	/* threads by (pid, tid), processes by pid */
	uint32_t t1 = ember_prof_thread(p, 10, 11);
	uint32_t t2 = ember_prof_thread(p, 10, 12);
	CHECK(t1 != t2 && ember_prof_thread(p, 10, 11) == t1);
	CHECK(p->threads[t1].process == p->threads[t2].process);
	CHECK(p->nprocs == 1 && p->procs[0].pid == 10);
	CHECK(ember_prof_thread(p, 20, 11) != t1); /* a tid reused */
	/* many entries: the sets grow and still find each */
	uint32_t ids[5000];
	char name[32];
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		ids[i] = frame_of(p, name, (uint64_t)i, 0, 0);
	}
	int same = 1;
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		same &= frame_of(p, name, (uint64_t)i, 0, 0) == ids[i];
	}
	CHECK(same && p->nframes == 5003);
	ember_prof_free(p);
}

static void test_stacks(void)
{
	struct ember_prof *p = ember_prof_new();
	uint32_t m = frame_of(p, "main", 1, 0, 0),
		 a = frame_of(p, "a", 2, 0, 0), b = frame_of(p, "b", 3, 0, 0);
	/* main;a and main;b share main; main;a twice is one node */
	uint32_t sm = ember_prof_stack(p, EMBER_PROF_NONE, m);
	uint32_t sa = ember_prof_stack(p, sm, a);
	uint32_t sb = ember_prof_stack(p, sm, b);
	CHECK(ember_prof_stack(p, ember_prof_stack(p, EMBER_PROF_NONE, m), a) ==
	      sa);
	CHECK(p->nstacks == 3 && sa != sb);
	CHECK(p->stacks[sa].parent == sm &&
	      p->stacks[sm].parent == EMBER_PROF_NONE);
	/* a parent precedes its children */
	CHECK(sm < sa && sm < sb);
	uint32_t out[4];
	size_t n = ember_prof_stack_frames(p, sa, out, 4);
	CHECK(n == 2 && out[0] == a && out[1] == m); /* leaf first */
	n = ember_prof_stack_frames(p, sa, out, 1);
	CHECK(n == 2 && out[0] == a);
	ember_prof_free(p);
}

static void test_samples(void)
{
	struct ember_prof *p = ember_prof_new();

	CHECK(ember_prof_add_type(p, "samples", "count", 1) == 0);
	CHECK(ember_prof_add_type(p, "cpu", "nanoseconds", 0) == 1);
	CHECK(p->ncols == 1 && p->types[0].column == EMBER_PROF_NONE);
	p->flags |= EMBER_PROF_HAS_TIME | EMBER_PROF_HAS_THREADS;
	uint32_t t = ember_prof_thread(p, 5, 6);
	double v = 1001001;
	/* the producer's own stack ids 7 and 9, out of time order */
	ember_prof_sample(p, 300, t, 1, 7, &v);
	ember_prof_sample(p, 100, t, 0, 9, &v);
	v = 5e9; /* beyond 32 bits: the column becomes doubles */
	ember_prof_sample(p, 200, t, 3, 7, &v);
	v = 0.5;
	ember_prof_sample(p, 200, EMBER_PROF_NONE, -1, 8, &v);
	CHECK(p->n == 4 && p->cols[0].f64 && !p->cols[0].u32 &&
	      !p->cols[0].u64);
	CHECK(ember_prof_value(p, 1, 0) == 1001001);
	CHECK(ember_prof_value(p, 1, 2) == 5e9);
	CHECK(ember_prof_value(p, 0, 2) == 1);
	CHECK(p->cpu[3] == UINT16_MAX);
	/* ids 7 -> node 0, 9 -> node 1, 8 -> none (dropped) */
	uint32_t f = frame_of(p, "x", 0, 0, 0), g = frame_of(p, "y", 0, 0, 0);
	uint32_t map[10];
	for (int i = 0; i < 10; i++)
		map[i] = EMBER_PROF_NONE;
	map[7] = ember_prof_stack(p, EMBER_PROF_NONE, f);
	map[9] = ember_prof_stack(p, EMBER_PROF_NONE, g);
	ember_prof_remap(p, map, 10);
	CHECK(p->n == 3);
	p->period = 1001001;
	p->period_type = p->types[1];
	ember_prof_finish(p);
	/* in time order, stable */
	CHECK(p->time[0] == 100 && p->time[1] == 200 && p->time[2] == 300);
	CHECK(p->stack[0] == map[9] && p->stack[1] == map[7]);
	CHECK(ember_prof_value(p, 1, 1) == 5e9 && p->cpu[1] == 3);
	CHECK(p->threads[t].first == 100 && p->threads[t].last == 300);
	CHECK(p->time_zero == 100);
	CHECK(p->duration_ns == 200 + 1001001);
	ember_prof_free(p);
}

static void test_from_stacks(void)
{
	struct ember_intern *names = ember_intern_new();
	struct ember_stacks *st = ember_stacks_new();
	uint32_t m = ember_intern(names, "main", 4),
		 a = ember_intern(names, "a", 1);
	uint32_t s1[] = {m, a}, s2[] = {m};

	ember_stacks_add(st, s1, 2, 3, 0);
	ember_stacks_add(st, s2, 1, 2.5, 0);
	ember_stacks_add(st, s1, 2, 1, 0);
	struct ember_prof p;
	ember_prof_init(&p);
	ember_prof_from_stacks(&p, names, st, NULL, 0, NULL, NULL);
	/* one sample per distinct stack, weight = count, no time */
	CHECK(p.n == 2 && !(p.flags & EMBER_PROF_HAS_TIME));
	CHECK(p.ntypes == 1 && ember_prof_value(&p, 0, 0) == 4);
	CHECK(ember_prof_value(&p, 0, 1) == 2.5);
	size_t len;
	CHECK_STR(ember_prof_s(&p, p.types[0].type, &len), "samples");
	uint32_t out[4];
	CHECK(ember_prof_stack_frames(&p, p.stack[0], out, 4) == 2);
	uint32_t fn = p.frames[out[0]].func;
	CHECK_STR(ember_prof_s(&p, p.funcs[fn].name, &len), "a");
	CHECK(p.stacks[p.stack[0]].parent == p.stack[1]); /* main shared */
	ember_prof_finish(&p);
	CHECK(p.n == 2 && p.duration_ns == 0);
	ember_prof_release(&p);
	ember_stacks_free(st);
	ember_intern_free(names);
}

/* Memory per sample: 1.2M samples over a few stacks stay small. */
static void test_memory(void)
{
	struct ember_prof *p = ember_prof_new();

	ember_prof_add_type(p, "samples", "count", 1);
	ember_prof_add_type(p, "cpu", "nanoseconds", 0);
	uint32_t t = ember_prof_thread(p, 1, 1);
	for (size_t i = 0; i < 1200000; i++) {
		double v = 1001001 + (double)(i % 7);
		ember_prof_sample(p, i * 1001001, t, (int)(i % 2),
				  (uint32_t)(i % 100), &v);
	}
	size_t b = ember_prof_bytes(p);
	CHECK(b / p->n <= 34); /* 22 used, the rest growth headroom */
	CHECK(ember_prof_count(p) == 1200000);
	ember_prof_free(p);
}

int main(void)
{
	test_tables();
	test_stacks();
	test_samples();
	test_from_stacks();
	test_memory();
	DONE();
}
