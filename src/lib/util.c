/* Error strings, the log callback, checked allocation and the hash. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *ember_strerror(int err)
{
	switch (err) {
	case EMBER_OK:
		return "success";
	case EMBER_ENOMEM:
		return "out of memory";
	case EMBER_EIO:
		return "input/output error";
	case EMBER_EINVAL:
		return "invalid argument";
	case EMBER_EFORMAT:
		return "unrecognised input format";
	case EMBER_ENOENT:
		return "not found";
	case EMBER_EPERM:
		return "permission denied";
	case EMBER_ENOTSUP:
		return "not supported";
	case EMBER_EEMPTY:
		return "no data";
	case EMBER_EINTR:
		return "interrupted";
	case EMBER_ETOOLONG:
		return "line too long";
	case EMBER_ETRUNC:
		return "file cut short while read";
	}
	return "unknown error";
}

static ember_log_fn log_fn;
static void *log_ctx;

void ember_set_log(ember_log_fn fn, void *ctx)
{
	log_fn = fn;
	log_ctx = ctx;
}

void ember_log(int level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!log_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_fn(level, msg, log_ctx);
}

int ember_write_stdio(void *ctx, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, (FILE *)ctx) != n)
		return EMBER_EIO;
	return 0;
}

/* The library never prints: the message goes to the log callback. */
static void default_oom(size_t size)
{
	ember_log(EMBER_LOG_ERROR, "out of memory (allocating %zu bytes)",
		  size);
	abort();
}

static ember_oom_fn oom_fn = default_oom;

void ember_set_oom_handler(ember_oom_fn fn)
{
	oom_fn = fn ? fn : default_oom;
}

static void *oom(size_t n)
{
	oom_fn(n);
	abort(); /* the handler must not return */
}

void *ember_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	return p ? p : oom(n);
}

void *ember_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	return p ? p : oom(n * size);
}

void *ember_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	return q ? q : oom(n);
}

void *ember_xreallocarray(void *p, size_t n, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return oom(SIZE_MAX);
	return ember_xrealloc(p, bytes);
}

char *ember_xstrdup(const char *s)
{
	return ember_xmemdup(s, strlen(s));
}

char *ember_xmemdup(const void *p, size_t n)
{
	char *s = ember_xmalloc(n + 1);

	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

static inline uint64_t mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

uint64_t ember_hash(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (n * 0xff51afd7ed558ccdull);
	uint64_t v;

	while (n >= 16) {
		uint64_t w;
		memcpy(&v, s, 8);
		memcpy(&w, s + 8, 8);
		h = mix(h ^ v ^ 0xa0761d6478bd642full,
			w ^ 0xe7037ed1a0b428dbull);
		s += 16;
		n -= 16;
	}
	if (n >= 8) {
		memcpy(&v, s, 8);
		h = mix(h ^ v, 0xbf58476d1ce4e5b9ull);
		s += 8;
		n -= 8;
	}
	if (n) {
		v = 0;
		memcpy(&v, s, n);
		h = mix(h ^ v ^ ((uint64_t)n << 59), 0x94d049bb133111ebull);
	}
	return mix(h, 0x2545f4914f6cdd1dull);
}
