/* Unit tests of the primitives: buffers, number formats, the arena,
 * interning, the stack table, the call tree and input reading. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "ember.h"
#include "folded.h"
#include "harness.h"
#include "tree.h"

/* Python's repr of floats (speedscope's numbers): integers by the fast
 * path, the rest by the shortest digits; the strings are CPython 3's. */
static void test_pyfloat(void)
{
	static const struct {
		double x;
		const char *want;
	} v[] = {
	    {0, "0.0"},
	    {1, "1.0"},
	    {-3, "-3.0"},
	    {1001001, "1001001.0"},
	    {9007199254740993.0, "9007199254740992.0"},
	    {9999999999999998.0, "9999999999999998.0"},
	    {1e16, "1e+16"},
	    {-1e16, "-1e+16"},
	    {1e22, "1e+22"},
	    {0.5, "0.5"},
	    {123.25, "123.25"},
	    {1e-5, "1e-05"},
	    {0.1, "0.1"},
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct ember_buf b = EMBER_BUF_INIT;
		ember_buf_add_pyfloat(&b, v[i].x);
		CHECK_STR(b.buf, v[i].want);
		ember_buf_release(&b);
	}
}

static void test_buf(void)
{
	struct ember_buf b = EMBER_BUF_INIT;

	CHECK(b.buf && b.buf[0] == '\0' && b.len == 0);
	ember_buf_adds(&b, "abc");
	ember_buf_addch(&b, 'd');
	ember_buf_addf(&b, "%d-%s", 42, "x");
	CHECK_STR(b.buf, "abcd42-x");
	/* growth across many appends keeps content and terminator */
	for (int i = 0; i < 10000; i++)
		ember_buf_addch(&b, (char)('a' + i % 26));
	CHECK(b.len == 8 + 10000 && b.buf[b.len] == '\0');
	CHECK(b.buf[8] == 'a' && b.buf[8 + 25] == 'z');
	ember_buf_reset(&b);
	CHECK(b.len == 0 && b.buf[0] == '\0');
	/* a long formatted string takes the second vsnprintf path */
	char big[3000];
	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ember_buf_addf(&b, "<%s>", big);
	CHECK(b.len == sizeof(big) + 1 && b.buf[b.len - 1] == '>');
	size_t len;
	char *s = ember_buf_detach(&b, &len);
	CHECK(len == sizeof(big) + 1 && b.len == 0 && b.buf[0] == '\0');
	free(s);
	ember_buf_release(&b);
}

/* ember_buf_addfix must print exactly what printf prints. */
static void test_fixed(void)
{
	struct ember_buf b = EMBER_BUF_INIT;
	char want[64];
	int bad = 0;
	double vals[] = {0,	  0.05,	      0.15,	  0.25,
			 1.005,	  2.5,	      3.5,	  -0.04,
			 -0.0,	  123456.789, 1e14 + 0.5, 1180.0,
			 842.85,  0.125,      0.375,	  999.95,
			 1.0 / 3, 2.0 / 3,    1e-300,	  4503599627370497.0};

	srand(7);
	for (int i = 0; i < 200000; i++) {
		double x;
		if (i < (int)(sizeof(vals) / sizeof(vals[0])))
			x = vals[i];
		else if (i % 3 == 0)
			x = (rand() % 2000000) / 1000.0 - 1000;
		else if (i % 3 == 1)
			x = (double)rand() / RAND_MAX * 1200;
		else
			x = (rand() % 100000) / 8.0;
		for (int prec = 0; prec <= 3; prec++) {
			ember_buf_reset(&b);
			ember_buf_addfix(&b, x, prec);
			snprintf(want, sizeof(want), "%.*f", prec, x);
			if (strcmp(b.buf, want)) {
				if (bad++ < 5)
					fprintf(stderr,
						"addfix(%.17g, %d): %s != %s\n",
						x, prec, b.buf, want);
			}
			double r = ember_round_fixed(x, prec);
			if (r != strtod(want, NULL) && bad++ < 5)
				fprintf(stderr, "round_fixed(%.17g, %d)\n", x,
					prec);
		}
	}
	CHECK(bad == 0);

	ember_buf_reset(&b);
	ember_buf_addnum(&b, 42);
	ember_buf_addch(&b, ' ');
	ember_buf_addnum(&b, 1.5);
	ember_buf_addch(&b, ' ');
	ember_buf_addnum(&b, -7);
	ember_buf_addch(&b, ' ');
	ember_buf_addnum(&b, 0.1 + 0.2);
	ember_buf_addch(&b, ' ');
	ember_buf_addnum(&b, 9007199254740993.0);
	CHECK_STR(b.buf, "42 1.5 -7 0.3 9007199254740992");
	ember_buf_reset(&b);
	ember_buf_addu(&b, 0);
	ember_buf_addu(&b, UINT64_MAX);
	CHECK_STR(b.buf, "018446744073709551615");
	/* every length, each side of a power of ten, against printf */
	int same = 1;
	for (uint64_t p = 1, k = 0; k < 20; k++, p *= 10)
		for (uint64_t d = 0; d < 3; d++) {
			uint64_t v = p - 1 + d;
			char dec[32];
			snprintf(dec, sizeof(dec), "%llu",
				 (unsigned long long)v);
			ember_buf_reset(&b);
			ember_buf_addch(&b, 'x');
			ember_buf_addu(&b, v);
			same &=
			    !strcmp(b.buf + 1, dec) && b.len == strlen(dec) + 1;
		}
	CHECK(same);
	ember_buf_release(&b);
}

static void test_arena(void)
{
	struct ember_arena a;
	char *p[1000];

	ember_arena_init(&a);
	for (int i = 0; i < 1000; i++) {
		p[i] = ember_arena_alloc(&a, (size_t)(i % 50) + 1);
		memset(p[i], i & 0xff, (size_t)(i % 50) + 1);
		CHECK(((uintptr_t)p[i] & 7) == 0);
	}
	int ok = 1;
	for (int i = 0; i < 1000; i++)
		for (int j = 0; j <= i % 50; j++)
			ok &= (unsigned char)p[i][j] == (i & 0xff);
	CHECK(ok); /* no allocation overlapped another */
	char *big = ember_arena_alloc(&a, 1 << 20); /* bigger than a block */
	memset(big, 1, 1 << 20);
	char *after = ember_arena_alloc(&a, 8);
	CHECK(after != NULL && (after < big || after >= big + (1 << 20)));
	CHECK_STR(ember_arena_strndup(&a, "hello world", 5), "hello");
	ember_arena_release(&a);
	CHECK(a.head == NULL && a.total == 0);
}

static void test_intern(void)
{
	struct ember_intern *t = ember_intern_new();
	char name[32];

	uint32_t a = ember_intern(t, "main", 4);
	uint32_t b = ember_intern(t, "mainx", 4); /* same 4 bytes */
	uint32_t c = ember_intern(t, "", 0);
	CHECK(a == 0 && b == 0 && c == 1);
	/* many names: rehashing keeps every id and string */
	int ok = 1;
	for (int i = 0; i < 50000; i++) {
		int n = snprintf(name, sizeof(name), "func_%d", i);
		ok &= ember_intern(t, name, (size_t)n) == (uint32_t)i + 2;
	}
	CHECK(ok);
	CHECK(ember_intern_count(t) == 50002);
	size_t len;
	CHECK_STR(ember_intern_str(t, 12345 + 2, &len), "func_12345");
	CHECK(len == 10);
	CHECK(ember_intern_find(t, "func_49999", 10) == 50001);
	CHECK(ember_intern_find(t, "func_50000", 10) == UINT32_MAX);
	/* bytes, not C strings: embedded NULs are distinct names */
	uint32_t z1 = ember_intern(t, "a\0b", 3),
		 z2 = ember_intern(t, "a\0c", 3);
	CHECK(z1 != z2);
	ember_intern_free(t);
	ember_intern_free(NULL);
}

static int collect(void *ctx, const void *p, size_t n)
{
	ember_buf_add(ctx, p, n);
	return 0;
}

static void test_stacks(void)
{
	struct ember_intern *t = ember_intern_new();
	struct ember_stacks *s = ember_stacks_new();
	struct ember_buf out = EMBER_BUF_INIT;
	const char *names[] = {"main", "b", "b-x", "a", "main;x"};
	uint32_t id[5];

	for (int i = 0; i < 5; i++)
		id[i] = ember_intern(t, names[i], strlen(names[i]));
	uint32_t s1[] = {id[0], id[1]};	       /* main;b */
	uint32_t s2[] = {id[0], id[1], id[3]}; /* main;b;a */
	uint32_t s3[] = {id[0], id[2]};	       /* main;b-x */
	uint32_t s4[] = {id[3]};	       /* a */
	ember_stacks_add(s, s2, 3, 5, 0);
	ember_stacks_add(s, s1, 2, 1, 0);
	ember_stacks_add(s, s3, 2, 2.5, 0);
	ember_stacks_add(s, s1, 2, 3, 0);
	ember_stacks_add(s, s4, 1, 1, 0);
	CHECK(ember_stacks_count(s) == 4);
	ember_stacks_sort(s, t);
	CHECK(ember_stacks_write(s, t, 0, collect, &out) == 0);
	/* byte order of the lines: "main;b" < "main;b-x" < "main;b;a" */
	CHECK_STR(out.buf, "a 1\nmain;b 4\nmain;b-x 2.5\nmain;b;a 5\n");
	/* still a table after sorting: adding finds the moved entries */
	ember_stacks_add(s, s3, 2, 1, 0);
	CHECK(ember_stacks_count(s) == 4);
	/* many stacks: growth and rehash */
	uint32_t f[64];
	for (int i = 0; i < 20000; i++) {
		for (int j = 0; j < 64; j++)
			f[j] = (uint32_t)((i * 31 + j) % 5);
		ember_stacks_add(s, f, (size_t)(i % 64) + 1, 1, 2);
		ember_stacks_add(s, f, (size_t)(i % 64) + 1, 1, 2);
	}
	double total = 0, total2 = 0;
	for (size_t i = 0; i < ember_stacks_count(s); i++) {
		double w2;
		total += ember_stacks_weight(s, i, &w2);
		total2 += w2;
	}
	CHECK(total == 5 + 4 + 3.5 + 1 + 40000 && total2 == 80000);
	size_t n;
	const uint32_t *fr = ember_stacks_frames(s, 0, &n);
	CHECK(n == 1 && fr[0] == id[3]); /* sorted: "a" first */
	struct ember_stacks *m = ember_stacks_new();
	ember_stacks_merge(m, s);
	ember_stacks_merge(m, s);
	CHECK(ember_stacks_count(m) == ember_stacks_count(s) &&
	      ember_stacks_weight(m, 0, NULL) ==
		  2 * ember_stacks_weight(s, 0, NULL));
	ember_stacks_free(m);
	ember_stacks_free(s);
	ember_stacks_free(NULL);
	ember_intern_free(t);
	ember_buf_release(&out);
}

/* Stacks come out in the byte order of their folded lines whatever the
 * names: ones that are prefixes of others, followed by bytes below and
 * above ';', empty ones, stacks deep enough for several sort keys, and
 * many names (wide ranks). */
static void test_stacks_order(void)
{
	static const char *tricky[] = {
	    "",	 "f",	 "f ",	      "f!",   "f:x",   "f_x", "fo",
	    "g", "f(x)", "[unknown]", "\xff", "f\x01", "f~"};
	for (int round = 0; round < 2; round++) {
		struct ember_intern *t = ember_intern_new();
		struct ember_stacks *s = ember_stacks_new();
		struct ember_buf out = EMBER_BUF_INIT, nm = EMBER_BUF_INIT;
		uint32_t f[60];
		size_t nn = round ? 5000 : ARRAY_SIZE(tricky);
		unsigned seed = 12345;

		for (size_t i = 0; i < nn; i++) {
			ember_buf_reset(&nm);
			if (round)
				ember_buf_addf(&nm, "n%zu", i * 7919 % nn);
			else
				ember_buf_adds(&nm, tricky[i]);
			ember_intern(t, nm.buf, nm.len);
		}
		for (int i = 0; i < 20000; i++) {
			size_t n = (size_t)(rand_r(&seed) % 13);
			size_t deep = i % 5 == 0 ? 40 : 0; /* a long prefix */
			for (size_t j = 0; j < deep; j++)
				f[j] = (uint32_t)(j % nn);
			for (size_t j = 0; j < n; j++)
				f[deep + j] = (uint32_t)(rand_r(&seed) % nn);
			ember_stacks_add(s, f, deep + n, 1, 0);
		}
		ember_stacks_sort(s, t);
		CHECK(ember_stacks_write(s, t, 0, collect, &out) == 0);
		/* each line's stack part (before the last space): in order
		 * (the empty stack and one empty frame print the same) */
		const char *p = out.buf, *prev = NULL;
		size_t plen = 0, lines = 0;
		int ok = 1;
		while (*p) {
			const char *nl = strchr(p, '\n');
			const char *sp = nl;
			while (sp > p && sp[-1] != ' ')
				sp--;
			size_t len = (size_t)(sp - 1 - p);
			if (prev) {
				size_t m = len < plen ? len : plen;
				int c = memcmp(prev, p, m);
				ok &= c < 0 || (c == 0 && plen <= len);
			}
			prev = p;
			plen = len;
			lines++;
			p = nl + 1;
		}
		CHECK(ok && lines == ember_stacks_count(s) && lines > 1000);
		ember_stacks_free(s);
		ember_intern_free(t);
		ember_buf_release(&out);
		ember_buf_release(&nm);
	}
}

static struct ember_slice *frames(const char *stack, size_t *n)
{
	static struct ember_slice fr[16];
	const char *p = stack;

	*n = 0;
	while (*p) {
		const char *e = strchr(p, ';');
		if (!e)
			e = p + strlen(p);
		fr[*n].s = p;
		fr[(*n)++].len = (size_t)(e - p);
		p = *e ? e + 1 : e;
	}
	return fr;
}

static const struct ember_tree_node *
find(const struct ember_tree *t, const char *name, uint32_t depth, double start)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct ember_tree_node *nd = &t->nodes[i];
		if (nd->depth == depth && nd->len == strlen(name) &&
		    !memcmp(nd->name, name, nd->len) && nd->start == start)
			return nd;
	}
	return NULL;
}

static void test_tree(void)
{
	struct ember_tree t;
	size_t n;
	struct ember_slice *fr;
	double d = 2;

	ember_tree_init(&t, 0);
	fr = frames("a;b", &n);
	ember_tree_flow(&t, fr, n, 3, NULL);
	fr = frames("a;b;c", &n);
	ember_tree_flow(&t, fr, n, 2, &d);
	fr = frames("a;d", &n);
	ember_tree_flow(&t, fr, n, 5, NULL);
	fr = frames("e", &n);
	ember_tree_flow(&t, fr, n, 1, NULL);
	ember_tree_finish(&t);
	CHECK(t.n == 6 && t.maxdepth == 3 && t.time == 11);
	const struct ember_tree_node *nd;
	CHECK((nd = find(&t, "", 0, 0)) && nd->end == 11);
	CHECK((nd = find(&t, "a", 1, 0)) && nd->end == 10);
	CHECK((nd = find(&t, "b", 2, 0)) && nd->end == 5 && !nd->has_delta);
	/* self time first: c starts after b's own 3 */
	CHECK((nd = find(&t, "c", 3, 3)) && nd->end == 5 && nd->has_delta &&
	      nd->delta == 2);
	CHECK((nd = find(&t, "d", 2, 5)) && nd->end == 10);
	CHECK((nd = find(&t, "e", 1, 10)) && nd->end == 11);
	/* post-order: children before parents, root last */
	CHECK(t.nodes[t.n - 1].depth == 0);
	ember_tree_release(&t);

	/* boxes narrower than min_width are dropped as they close */
	ember_tree_init(&t, 2);
	fr = frames("a;b", &n);
	ember_tree_flow(&t, fr, n, 1, NULL);
	fr = frames("a;c", &n);
	ember_tree_flow(&t, fr, n, 4, NULL);
	ember_tree_finish(&t);
	CHECK(t.n == 3 && !find(&t, "b", 2, 0) && find(&t, "c", 2, 1));
	ember_tree_release(&t);
}

static int write_buf(void *ctx, const void *p, size_t n)
{
	ember_buf_add(ctx, p, n);
	return 0;
}

/* Draws text fed in pieces of at most `per` lines (0: all at once), each
 * piece copied to the start of one buffer, as a reader reuses its own. */
static void draw_fed(const char *text, int chart, size_t per,
		     struct ember_buf *svg)
{
	struct ember_fg_options o;
	struct ember_fg_stats st;
	struct ember_buf piece = EMBER_BUF_INIT;

	ember_fg_options_init(&o);
	o.flamechart = chart;
	o.minwidth = 0;
	struct ember_flamegraph *fg = ember_flamegraph_new(&o);
	ember_flamegraph_begin(fg, NULL);
	for (const char *p = text; *p;) {
		const char *e = p;
		for (size_t k = 0; *e && (!per || k < per); k++)
			e = strchr(e, '\n') + 1;
		ember_buf_reset(&piece);
		ember_buf_add(&piece, p, (size_t)(e - p));
		ember_flamegraph_feed(fg, piece.buf, piece.len);
		memset(piece.buf, ';', piece.len); /* gone after the call */
		p = e;
	}
	ember_buf_reset(svg);
	CHECK(ember_flamegraph_render(fg, write_buf, svg, &st) == 0);
	ember_flamegraph_free(fg);
	ember_buf_release(&piece);
}

/* The same graph whether the lines come all at once, one at a time or a
 * few at a time through one buffer: lines are not kept in the caller's
 * bytes, and the line before is compared as it was. */
static void test_flamegraph_pieces(void)
{
	struct ember_buf text = EMBER_BUF_INIT, whole = EMBER_BUF_INIT;
	struct ember_buf svg = EMBER_BUF_INIT;

	/* sorted: parents before children, runs of one line */
	for (int a = 0; a < 4; a++) {
		ember_buf_addf(&text, "r;a%d %d\n", a, a + 1);
		for (int b = 0; b < 5; b++)
			for (int c = 0; c < 6; c++)
				for (int k = 0; k < 1 + (a + c) % 3; k++)
					ember_buf_addf(&text,
						       "r;a%d;b%d;c%d %d\n", a,
						       b, c, 1 + (b + c) % 4);
	}
	for (int round = 0; round < 2; round++) {
		for (int chart = 0; chart < 2; chart++) {
			draw_fed(text.buf, chart, 0, &whole);
			CHECK(whole.len > 1000 && strstr(whole.buf, "c5 ("));
			for (size_t per = 1; per <= 7; per += 3) {
				draw_fed(text.buf, chart, per, &svg);
				CHECK(svg.len == whole.len &&
				      !memcmp(svg.buf, whole.buf, svg.len));
			}
		}
		/* then lines out of order, repeating early ones */
		ember_buf_adds(&text, "r;a0;b0;c0 1\nr;a0 1\nr;a0;b0;c0 1\n"
				      "r;a2;b1;c5 3\nr;a0;b0;c0 1\n");
	}
	ember_buf_release(&text);
	ember_buf_release(&whole);
	ember_buf_release(&svg);
}

static void write_file(const char *path, const char *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	fwrite(data, 1, n, f);
	fclose(f);
}

static void test_input(void)
{
	char dir[] = "/tmp/ember-test-XXXXXX";
	char plain[64], gz[64], bad[64];
	struct ember_input *in;
	struct ember_buf big = EMBER_BUF_INIT;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(plain, sizeof(plain), "%s/a.txt", dir);
	snprintf(gz, sizeof(gz), "%s/a.txt.gz", dir);
	snprintf(bad, sizeof(bad), "%s/bad.gz", dir);
	for (int i = 0; i < 300000; i++)
		ember_buf_addf(&big, "line %d;frame 1\n", i);
	ember_buf_adds(&big, "last line without newline 2");
	write_file(plain, big.buf, big.len);
	/* two gzip members, as `cat a.gz b.gz` makes */
	gzFile g = gzopen(gz, "wb");
	gzwrite(g, big.buf, (unsigned)(big.len / 2));
	gzclose(g);
	g = gzopen(gz, "ab");
	gzwrite(g, big.buf + big.len / 2, (unsigned)(big.len - big.len / 2));
	gzclose(g);

	const char *data;
	size_t len;
	CHECK(ember_input_load(&in, plain) == 0);
	data = ember_input_data(in, &len);
	CHECK(len == big.len && !memcmp(data, big.buf, big.len));
	CHECK_STR(ember_input_name(in), plain);
	ember_input_free(in);
	CHECK(ember_input_load(&in, gz) == 0);
	data = ember_input_data(in, &len);
	CHECK(len == big.len && !memcmp(data, big.buf, big.len));
	ember_input_free(in);
	CHECK(ember_input_load(&in, "/nonexistent/x") == EMBER_ENOENT);
	CHECK(in == NULL);
	CHECK(ember_input_load(&in, dir) == EMBER_EIO && errno == EISDIR);
	CHECK(in == NULL);

	/* streaming: whole lines per chunk, everything exactly once */
	const char *paths[] = {plain, gz};
	for (int k = 0; k < 2; k++) {
		struct ember_reader *r;
		const char *p;
		size_t n, total = 0;
		int ok = 1, rc;
		CHECK(ember_reader_open(&r, paths[k]) == 0);
		while ((rc = ember_reader_next(r, &p, &n)) == 1) {
			ok &= total + n <= big.len &&
			      !memcmp(p, big.buf + total, n);
			total += n;
			ok &= p[n - 1] == '\n' || total == big.len;
		}
		CHECK(rc == 0 && ok && total == big.len);
		ember_reader_close(r);
	}
	/* a truncated gzip file: what was decoded, then an error */
	FILE *f = fopen(gz, "rb");
	char *raw = malloc(1 << 22);
	size_t rn = fread(raw, 1, 1 << 22, f);
	fclose(f);
	write_file(bad, raw, rn / 3);
	struct ember_reader *r;
	const char *p;
	size_t n, total = 0;
	int rc;
	CHECK(ember_reader_open(&r, bad) == 0);
	while ((rc = ember_reader_next(r, &p, &n)) == 1)
		total += n;
	CHECK(rc == EMBER_EFORMAT && total > 0 && total < big.len);
	ember_reader_close(r);
	CHECK(ember_input_load(&in, bad) == EMBER_EFORMAT && in == NULL);
	free(raw);

	/* peeking leaves the bytes for the next call */
	CHECK(ember_reader_open(&r, plain) == 0);
	CHECK(ember_reader_peek(r, &p, &n) == 1 && n >= 65536 &&
	      !memcmp(p, big.buf, n));
	CHECK(ember_reader_next(r, &p, &n) == 1 && !memcmp(p, big.buf, n));
	ember_reader_close(r);

	/* a file cut short while read ends in an error, not as if whole */
	{
		int fd = open(plain, O_RDONLY);
		struct stat st;
		CHECK(fd >= 0 && !fstat(fd, &st));
		CHECK(ember_reader_fdopen(&r, fd) == 0);
		CHECK(ember_reader_next(r, &p, &n) == 1);
		CHECK(truncate(plain, st.st_size / 2) == 0);
		while ((rc = ember_reader_next(r, &p, &n)) == 1)
			;
		CHECK(rc == EMBER_ETRUNC);
		ember_reader_close(r);
	}
	/* the same file read whole from its middle (standard input left
	 * there) is not cut short */
	write_file(plain, big.buf, big.len);
	int sfd = open(plain, O_RDONLY);
	CHECK(sfd >= 0 && lseek(sfd, 1000, SEEK_SET) == 1000);
	CHECK(ember_reader_fdopen(&r, sfd) == 0);
	total = 0;
	while ((rc = ember_reader_next(r, &p, &n)) == 1)
		total += n;
	CHECK(rc == 0 && total == big.len - 1000);
	ember_reader_close(r);

	/* a line longer than a chunk comes whole; longer than the limit, it
	 * is refused after the lines before it; raw, anything goes */
	ember_buf_reset(&big);
	ember_buf_adds(&big, "a 1\n");
	for (int i = 0; i < (3 << 20); i++)
		ember_buf_addch(&big, (char)('a' + i % 26));
	ember_buf_adds(&big, " 5\nb 2\n");
	write_file(plain, big.buf, big.len);
	for (int k = 0; k < 3; k++) {
		size_t lines = 0, longest = 0, pieces = 0;
		int ok = 1;
		total = 0;
		CHECK(ember_reader_open(&r, plain) == 0);
		if (k == 1)
			ember_reader_set_max_line(r, 1 << 20);
		if (k == 2)
			ember_reader_set_max_line(r, 0);
		while ((rc = ember_reader_next(r, &p, &n)) == 1) {
			ok &= !memcmp(p, big.buf + total, n);
			total += n;
			pieces++;
			for (const char *q = p, *e = p + n; q < e;) {
				const char *nl =
				    memchr(q, '\n', (size_t)(e - q));
				ok &= nl != NULL || k == 2;
				size_t ll = (size_t)((nl ? nl : e) - q);
				longest = ll > longest ? ll : longest;
				lines++;
				q = nl ? nl + 1 : e;
			}
		}
		if (k == 0)
			CHECK(rc == 0 && ok && total == big.len &&
			      longest == (3u << 20) + 2 && lines == 3);
		if (k == 1)
			CHECK(rc == EMBER_ETOOLONG && ok && lines == 1);
		if (k == 2)
			CHECK(rc == 0 && ok && total == big.len && pieces > 1);
		ember_reader_close(r);
	}
	unlink(plain);
	unlink(gz);
	unlink(bad);
	rmdir(dir);
	ember_buf_release(&big);
}

/* A whole file read, never mapped: as it is when read, to its new end if
 * it has grown since it was opened, EMBER_ETRUNC if it was cut short. */
static void test_read_file(void)
{
	char dir[] = "/tmp/ember-test-XXXXXX", path[64];
	struct ember_buf big = EMBER_BUF_INIT;
	struct stat st;
	char *p;
	size_t n;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/whole", dir);
	/* over three chunks of a MiB and not a multiple of one */
	for (int i = 0; i < 200000; i++)
		ember_buf_addf(&big, "%d;frame %d\n", i, i % 97);
	write_file(path, big.buf, big.len);
	int fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && !fstat(fd, &st) && (size_t)st.st_size == big.len);
	uint64_t size = (uint64_t)st.st_size;

	CHECK(ember_read_file(fd, size, &p, &n) == 0);
	CHECK(p && n == big.len && !memcmp(p, big.buf, n) && p[n] == '\0');
	free(p);

	/* grown since opened: all of it */
	int wfd = open(path, O_WRONLY | O_APPEND);
	CHECK(wfd >= 0 && write(wfd, "tail 1\n", 7) == 7);
	ember_buf_adds(&big, "tail 1\n");
	CHECK(ember_read_file(fd, size, &p, &n) == 0);
	CHECK(p && n == big.len && !memcmp(p, big.buf, n) && p[n] == '\0');
	free(p);

	/* grown to several times its size: the buffer grows on */
	for (int i = 0; i < 3; i++)
		CHECK(write(wfd, big.buf, big.len) == (ssize_t)big.len);
	CHECK(ember_read_file(fd, size, &p, &n) == 0);
	CHECK(p && n == 4 * big.len &&
	      !memcmp(p + 3 * big.len, big.buf, big.len));
	free(p);
	close(wfd);

	/* cut short: an error, and how much there was */
	CHECK(truncate(path, 1234) == 0);
	p = (char *)"unchanged";
	CHECK(ember_read_file(fd, size, &p, &n) == EMBER_ETRUNC);
	CHECK(p == NULL && n == 1234);
	CHECK(truncate(path, 0) == 0);
	CHECK(ember_read_file(fd, size, &p, &n) == EMBER_ETRUNC && n == 0);
	/* empty, as it was when opened */
	CHECK(ember_read_file(fd, 0, &p, &n) == 0 && n == 0 && p &&
	      p[0] == '\0');
	free(p);
	close(fd);

	/* loaded whole, the same */
	struct ember_input *in;
	const char *data;
	write_file(path, big.buf, big.len);
	CHECK(ember_input_load(&in, path) == 0);
	data = ember_input_data(in, &n);
	CHECK(n == big.len && !memcmp(data, big.buf, n) && data[n] == '\0');
	ember_input_free(in);

	unlink(path);
	rmdir(dir);
	ember_buf_release(&big);
}

int main(void)
{
	test_buf();
	test_fixed();
	test_arena();
	test_intern();
	test_stacks();
	test_pyfloat();
	test_stacks_order();
	test_tree();
	test_flamegraph_pieces();
	test_input();
	test_read_file();
	DONE();
}
