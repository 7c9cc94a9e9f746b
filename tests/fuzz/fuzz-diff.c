/* libFuzzer target: any bytes as two folded profiles (split at the first
 * NUL, or in the middle) to ember diff, with -n and -s picked by the
 * first byte. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>

#include "ember.h"

static int sink(void *ctx, const void *p, size_t n)
{
	(void)p;
	*(size_t *)ctx += n;
	return 0;
}

static int memfile(const unsigned char *p, size_t n, char *path, size_t size)
{
	int fd = memfd_create("ember-fuzz", 0);

	if (fd < 0 || (n && write(fd, p, n) != (ssize_t)n))
		abort();
	snprintf(path, size, "/proc/self/fd/%d", fd);
	return fd;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct ember_diff_options o = {0, 0};
	struct ember_diff_stats st;
	char a[64], b[64];
	size_t written = 0;

	if (!size)
		return 0;
	o.normalize = data[0] & 1;
	o.strip_hex = (data[0] >> 1) & 1;
	data++;
	size--;
	const unsigned char *nul = memchr(data, 0, size);
	size_t half = nul ? (size_t)(nul - data) : size / 2;
	int fa = memfile(data, half, a, sizeof(a));
	int fb = memfile(data + half, size - half, b, sizeof(b));
	int err = ember_diff(a, b, &o, sink, &written, &st);
	if (err && err != EMBER_EFORMAT) /* corrupt gzip is an error */
		abort();
	if (!err && st.stacks && !written)
		abort();
	close(fa);
	close(fb);
	return 0;
}
