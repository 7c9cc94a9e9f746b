/*
 * JSON through yajl (Debian's libyajl-dev): a streaming parser, so memory
 * follows what a format keeps, not the size of the input.  yajl also
 * checks UTF-8 as Python's json module does.  Each level of nesting keeps
 * the key its values sit under; keys of all open levels share one buffer.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <yajl/yajl_parse.h>

#include "json.h"

struct level {
	size_t off, len; /* the current key, in keys */
	int in_obj;	 /* values at this level are an object's members */
};

struct cl_json {
	yajl_handle h;
	cl_json_fn fn;
	void *ctx;
	struct ember_buf keys;
	struct level *lv;
	size_t nlv, alv;
	int depth; /* of the next value */
	int failed;
	uint64_t fed;
	char error[200];
};

static struct level *level(struct cl_json *j, int d)
{
	EMBER_GROW(j->lv, (size_t)d + 1, j->alv);
	return &j->lv[d];
}

static int emit(struct cl_json *j, struct cl_jval *v)
{
	struct level *l = &j->lv[j->depth];

	v->depth = j->depth;
	v->key = l->in_obj ? j->keys.buf + l->off : NULL;
	v->key_len = l->in_obj ? l->len : 0;
	if (j->fn(j->ctx, v)) {
		j->failed = 1;
		return 0;
	}
	return 1;
}

static int on_null(void *ctx)
{
	struct cl_jval v = {.type = CJ_NULL};
	return emit(ctx, &v);
}

static int on_bool(void *ctx, int b)
{
	struct cl_jval v = {.type = CJ_BOOL, .num = b ? 1 : 0};
	return emit(ctx, &v);
}

static int on_number(void *ctx, const char *s, size_t n)
{
	struct cl_jval v = {.type = CJ_NUM, .s = s, .n = n};
	char tmp[64];

	if (n < sizeof(tmp)) {
		memcpy(tmp, s, n);
		tmp[n] = '\0';
		v.num = strtod(tmp, NULL);
	} else {
		char *t = ember_xmemdup(s, n);
		v.num = strtod(t, NULL);
		free(t);
	}
	return emit(ctx, &v);
}

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
	struct cl_jval v = {.type = CJ_STR, .s = (const char *)s, .n = n};
	return emit(ctx, &v);
}

static int open_level(struct cl_json *j, enum cl_jtype t)
{
	struct cl_jval v = {.type = t};

	if (!emit(j, &v))
		return 0;
	struct level *up = &j->lv[j->depth];
	size_t off = up->in_obj ? up->off + up->len : up->off;
	struct level *l = level(j, ++j->depth);
	l->off = off;
	l->len = 0;
	l->in_obj = t == CJ_OBJ;
	ember_buf_setlen(&j->keys, off);
	return 1;
}

static int close_level(struct cl_json *j)
{
	struct cl_jval v = {.type = CJ_END};

	j->depth--;
	return emit(j, &v);
}

static int on_start_map(void *ctx)
{
	return open_level(ctx, CJ_OBJ);
}

static int on_map_key(void *ctx, const unsigned char *s, size_t n)
{
	struct cl_json *j = ctx;
	struct level *l = &j->lv[j->depth];

	ember_buf_setlen(&j->keys, l->off);
	ember_buf_add(&j->keys, s, n);
	l->len = n;
	return 1;
}

static int on_end(void *ctx)
{
	return close_level(ctx);
}

static int on_start_array(void *ctx)
{
	return open_level(ctx, CJ_ARR);
}

static const yajl_callbacks callbacks = {
    .yajl_null = on_null,
    .yajl_boolean = on_bool,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_map_key,
    .yajl_end_map = on_end,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end,
};

static void *x_malloc(void *ctx, size_t n)
{
	return ember_xmalloc(n ? n : 1);
}
static void *x_realloc(void *ctx, void *p, size_t n)
{
	return ember_xrealloc(p, n ? n : 1);
}
static void x_free(void *ctx, void *p)
{
	free(p);
}
static yajl_alloc_funcs allocs = {x_malloc, x_realloc, x_free, NULL};

struct cl_json *cl_json_new(cl_json_fn fn, void *ctx)
{
	struct cl_json *j = ember_xcalloc(1, sizeof(*j));

	j->fn = fn;
	j->ctx = ctx;
	ember_buf_init(&j->keys, 256);
	*level(j, 0) = (struct level){0, 0, 0};
	j->h = yajl_alloc(&callbacks, &allocs, j);
	if (!j->h)
		ember_xmalloc(SIZE_MAX); /* out of memory */
	return j;
}

void cl_json_free(struct cl_json *j)
{
	if (!j)
		return;
	yajl_free(j->h);
	ember_buf_release(&j->keys);
	free(j->lv);
	free(j);
}

void cl_json_fail(struct cl_json *j, const char *fmt, ...)
{
	va_list ap;

	if (j->error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(j->error, sizeof(j->error), fmt, ap);
	va_end(ap);
}

/* yajl's message, e.g. "parse error: premature EOF", at an offset. */
static void syntax_error(struct cl_json *j, const char *p, size_t n)
{
	unsigned char *m = yajl_get_error(j->h, 0, (const unsigned char *)p, n);
	const char *s = (const char *)m;
	size_t len = strlen(s);

	while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	uint64_t at = j->fed - n + (n ? yajl_get_bytes_consumed(j->h) : 0);
	cl_json_fail(j, "not valid JSON at byte %llu: %.*s",
		     (unsigned long long)at, (int)len, s);
	yajl_free_error(j->h, m);
}

int cl_json_feed(struct cl_json *j, const char *p, size_t n)
{
	if (j->failed)
		return -1;
	j->fed += n;
	yajl_status st = yajl_parse(j->h, (const unsigned char *)p, n);
	if (st == yajl_status_ok)
		return 0;
	if (st == yajl_status_error)
		syntax_error(j, p, n);
	j->failed = 1;
	if (!j->error[0])
		cl_json_fail(j, "not valid JSON");
	return -1;
}

int cl_json_finish(struct cl_json *j)
{
	if (j->failed)
		return -1;
	yajl_status st = yajl_complete_parse(j->h);
	if (st == yajl_status_ok)
		return 0;
	j->failed = 1;
	if (st == yajl_status_error && !j->error[0])
		cl_json_fail(j,
			     "not valid JSON: it ends too soon (truncated?)");
	return -1;
}

int cl_json_read(struct cl_json *j, struct collapse_input *in,
		 struct collapse_sink *k)
{
	const char *p;
	size_t n;
	int rc;

	while ((rc = cl_input_next(in, &p, &n)) == 1)
		if (cl_json_feed(j, p, n))
			break; /* no need to read the rest */
	if (rc < 0)
		return rc;
	if (rc == 1 || cl_json_finish(j)) {
		cl_fail(k, "%s", j->error);
		return EMBER_EFORMAT;
	}
	return 0;
}

const char *cl_json_error(const struct cl_json *j)
{
	return j->error[0] ? j->error : NULL;
}

uint64_t cl_json_offset(const struct cl_json *j)
{
	return j->fed;
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

int cl_json_sniff(const char *p, size_t len, const char *const *keys,
		  int in_array)
{
	const char *end = p + len;

	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	p = skip_ws(p, end);
	if (in_array) {
		if (p >= end || *p != '[')
			return 0;
		p = skip_ws(p + 1, end);
	}
	if (p >= end || *p != '{')
		return 0;
	p = skip_ws(p + 1, end);
	if (p >= end || *p != '"')
		return 0;
	p++;
	for (const char *const *k = keys; *k; k++) {
		size_t n = strlen(*k);
		if ((size_t)(end - p) > n && !memcmp(p, *k, n) && p[n] == '"')
			return 1;
	}
	return 0;
}
