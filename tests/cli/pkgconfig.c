/* A program built against the installed libember (pkg-config --cflags
 * --libs ember) that has functions of its own named as libember's
 * internal ones: the library exports only its ember_* names, so they do
 * not collide.  Folds a perf script sample with ember_collapse_mem. */
#include <stdio.h>
#include <string.h>

#include "ember.h"

/* libember has functions of these names inside */
int src_open(const char *path);
int job_append(int n);
int rec_init(void);
int rec_frames_init(int n);
int cl_add_u64(int n);
int collapse_record(int n);

int src_open(const char *path)
{
	return (int)strlen(path);
}
int job_append(int n)
{
	return n + 1;
}
int rec_init(void)
{
	return 7;
}
int rec_frames_init(int n)
{
	return n * 2;
}
int cl_add_u64(int n)
{
	return n - 1;
}
int collapse_record(int n)
{
	return n * 3;
}

static int put(void *ctx, const void *p, size_t n)
{
	return fwrite(p, 1, n, ctx) == n ? 0 : EMBER_EIO;
}

int main(void)
{
	static const char in[] = "prog 123 1.0: cycles:\n"
				 "\t400500 leaf (/bin/prog)\n"
				 "\t400400 main (/bin/prog)\n\n";
	struct ember_collapse_options o;
	struct ember_collapse *c;

	ember_collapse_options_init(&o);
	o.format = "perf";
	if (ember_collapse_new(&c, &o) ||
	    ember_collapse_mem(c, "in", in, sizeof(in) - 1) ||
	    ember_collapse_write(c, put, stdout))
		return 1;
	ember_collapse_free(c);
	printf("own: %d %d %d %d %d %d\n", src_open("abc"), job_append(1),
	       rec_init(), rec_frames_init(2), cl_add_u64(5),
	       collapse_record(3));
	return 0;
}
