/*
 * A generated recording for the HTML viewer's timeline benchmark: SAMPLES
 * samples (default 1,000,000) 1 ms apart on two threads, over STACKS
 * distinct stacks (default 50,000) 20 to 40 frames deep that share
 * prefixes as a program's do, in phases of a few hundred samples; drawn
 * as `ember record -o x.html` draws it (weights in nanoseconds).
 *   gen-timeline [SAMPLES [STACKS]] > x.html
 */
#include <stdio.h>
#include <stdlib.h>

#include "ember.h"
#include "internal.h"
#include "profile.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint32_t frame_of(struct ember_prof *p, const char *name)
{
	struct ember_prof_func fn = {0};
	struct ember_prof_frame fr = {.mapping = EMBER_PROF_NONE};

	fn.name = fn.system_name = ember_prof_strz(p, name);
	fr.func = ember_prof_func(p, &fn);
	return ember_prof_frame(p, &fr);
}

int main(int argc, char **argv)
{
	size_t nsamples = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	size_t nleaves = argc > 2 ? strtoul(argv[2], NULL, 10) : 50000;
	struct ember_prof *p = ember_prof_new();
	enum { NFUNCS = 4000, PERIOD = 1001001 };
	uint32_t funcs[NFUNCS], roots[2];
	char name[64];

	if (!nsamples || nleaves < 2)
		return 2;
	ember_prof_add_type(p, "samples", "count", 1);
	ember_prof_add_type(p, "cpu", "nanoseconds", 0);
	p->flags = EMBER_PROF_HAS_TIME | EMBER_PROF_HAS_THREADS |
		   EMBER_PROF_THREAD_ROOTS;
	for (int i = 0; i < NFUNCS; i++) {
		snprintf(name, sizeof(name), "%s_%d",
			 i % 3 ? "ns::Worker::step" : "compute", i);
		funcs[i] = frame_of(p, name);
	}
	const char *tnames[2] = {"bench-main", "bench-worker"};
	uint32_t threads[2];
	for (int t = 0; t < 2; t++) {
		roots[t] = ember_prof_stack(p, EMBER_PROF_NONE,
					    frame_of(p, tnames[t]));
		threads[t] = ember_prof_thread(p, 4242, 4242 + t);
		p->threads[threads[t]].name = ember_prof_strz(p, tnames[t]);
	}
	p->procs[p->threads[threads[0]].process].name =
	    ember_prof_strz(p, "bench");

	/* each stack: a prefix of an earlier one (of its thread), then new
	 * frames down to 20-40 deep */
	uint32_t(*path)[41] = ember_xcalloc(nleaves, sizeof(*path));
	uint8_t *depth = ember_xcalloc(nleaves, 1);
	uint32_t *leaf = ember_xcalloc(nleaves, sizeof(*leaf));
	for (size_t k = 0; k < nleaves; k++) {
		int t = k & 1, d = 20 + (int)(next() % 21), keep = 0;
		if (k >= 2) {
			size_t from = 2 * (next() % (k / 2)) + (size_t)t;
			keep = 4 + (int)(next() % (depth[from] - 4));
			for (int j = 0; j < keep; j++)
				path[k][j] = path[from][j];
		}
		uint32_t s = roots[t];
		for (int j = 0; j < d; j++) {
			if (j >= keep)
				path[k][j] = funcs[next() % NFUNCS];
			s = ember_prof_stack(p, s, path[k][j]);
		}
		depth[k] = (uint8_t)d;
		leaf[k] = s;
	}

	/* samples: phases of 200-1000 samples that draw on 64 stacks */
	uint64_t *count = ember_xcalloc(p->nstacks, sizeof(*count));
	double v = PERIOD;
	for (int t = 0; t < 2; t++) {
		uint64_t time = 1000000000ull + (uint64_t)t * 300000;
		size_t n = nsamples / 2 + (t ? nsamples % 2 : 0), left = 0;
		size_t base = 0;
		for (size_t i = 0; i < n; i++) {
			if (!left) {
				left = 200 + next() % 800;
				base = next() % (nleaves / 2);
			}
			left--;
			size_t k = 2 * ((base + next() % 64) % (nleaves / 2)) +
				   (size_t)t;
			time += PERIOD - 20000 + next() % 40000;
			ember_prof_sample(p, time, threads[t], t, leaf[k], &v);
			count[leaf[k]] += PERIOD;
		}
	}
	ember_prof_finish(p);

	/* the folded stacks of the same samples */
	struct ember_buf folded = EMBER_BUF_INIT;
	uint32_t fr[64];
	for (size_t s = 0; s < p->nstacks; s++) {
		if (!count[s])
			continue;
		size_t d = ember_prof_stack_frames(p, s, fr, 64);
		for (size_t j = d; j-- > 0;) {
			const char *nm = ember_prof_s(
			    p, p->funcs[p->frames[fr[j]].func].name, NULL);
			ember_buf_adds(&folded, nm);
			ember_buf_addch(&folded, j ? ';' : ' ');
		}
		ember_buf_addf(&folded, "%llu\n", (unsigned long long)count[s]);
	}

	struct ember_fg_options o;
	struct ember_fg_stats st;
	ember_fg_options_init(&o);
	o.html = 1;
	o.countname = "ns";
	o.title = "gen-timeline";
	struct ember_flamegraph *fg = ember_flamegraph_new(&o);
	ember_flamegraph_add(fg, "gen", folded.buf, folded.len);
	ember_flamegraph_set_prof(fg, p);
	int err = ember_flamegraph_render(fg, ember_write_stdio, stdout, &st);
	ember_flamegraph_free(fg);
	fprintf(
	    stderr,
	    "gen-timeline: %zu samples, %zu stack nodes, %zu frames drawn\n",
	    p->n, p->nstacks, st.frames);
	ember_buf_release(&folded);
	ember_prof_free(p);
	free(count);
	free(path);
	free(depth);
	free(leaf);
	return err || fflush(stdout) ? 1 : 0;
}
