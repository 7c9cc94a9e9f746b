/* A program of libember's own, built by api.sh against include/ember.h
 * alone: the opaque tables and inputs through their functions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ember.h"

static int put(void *ctx, const void *p, size_t n)
{
	return fwrite(p, 1, n, ctx) == n ? 0 : EMBER_EIO;
}

int main(int argc, char **argv)
{
	struct ember_intern *names = ember_intern_new();
	struct ember_stacks *stacks = ember_stacks_new();
	struct ember_input *in;
	const char *line = "main;work;hash 3";
	uint32_t f[3];

	if (argc != 2)
		return 2;
	f[0] = ember_intern(names, "main", 4);
	f[1] = ember_intern(names, "work", 4);
	f[2] = ember_intern(names, "hash", 4);
	ember_stacks_add(stacks, f, 3, 3, 0);
	ember_stacks_add(stacks, f, 2, 1, 0);
	ember_stacks_add(stacks, f, 3, 2, 0);
	printf("names %zu, stacks %zu\n", ember_intern_count(names),
	       ember_stacks_count(stacks));
	for (size_t i = 0; i < ember_stacks_count(stacks); i++) {
		size_t n;
		const uint32_t *fr = ember_stacks_frames(stacks, i, &n);
		printf("stack %zu:", i);
		for (size_t j = 0; j < n; j++)
			printf(" %s", ember_intern_str(names, fr[j], NULL));
		printf(" = %g\n", ember_stacks_weight(stacks, i, NULL));
	}
	ember_stacks_sort(stacks, names);
	if (ember_stacks_write(stacks, names, 0, put, stdout))
		return 1;

	/* an input: its bytes and name */
	if (ember_input_load(&in, argv[1]))
		return 1;
	size_t len;
	const char *data = ember_input_data(in, &len);
	printf("%s: %zu bytes, %s\n", ember_input_name(in), len,
	       len >= strlen(line) && !memcmp(data, line, strlen(line))
		   ? "as written"
		   : "different");
	ember_input_free(in);

	/* the writers of one input's profile: a second input is refused */
	struct ember_collapse_options o;
	struct ember_collapse *c;
	ember_collapse_options_init(&o);
	o.format = "dtrace";
	o.profile = o.profile_only = 1;
	if (ember_collapse_new(&c, &o))
		return 1;
	int first = ember_collapse_input(c, argv[1]);
	int second = ember_collapse_input(c, argv[1]);
	printf("profile_only: first input %s, second %s\n",
	       first ? ember_strerror(first) : "read",
	       second == EMBER_EINVAL ? "refused" : "read");
	ember_collapse_free(c);
	ember_stacks_free(stacks);
	ember_intern_free(names);
	return 0;
}
