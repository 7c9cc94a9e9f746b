/*
 * JSON for the collapsers that read JSON (trace events, .cpuprofile,
 * speedscope): yajl's streaming parser fed chunk by chunk, so that a
 * 1 GB trace is never held as a tree.  A format sees one call per value:
 * scalars, the start of each object or array, and each end; it keeps its
 * own notion of where it is from the depth and the key.
 */
#ifndef EMBER_COLLAPSE_JSON_H
#define EMBER_COLLAPSE_JSON_H

#include "collapse.h"

enum cl_jtype {
	CJ_NULL,
	CJ_BOOL,
	CJ_NUM,
	CJ_STR,
	CJ_OBJ, /* an object starts */
	CJ_ARR, /* an array starts */
	CJ_END, /* the object or array opened at this depth ends */
};

struct cl_jval {
	enum cl_jtype type;
	int depth;	 /* 0: the document's value; its members 1 ... */
	const char *key; /* the member's name, NULL in an array */
	size_t key_len;	 /* (CJ_END: the container's own key) */
	const char *s;	 /* CJ_STR: the string (UTF-8, unescaped); CJ_NUM: */
	size_t n;	 /* the number as written */
	double num;	 /* CJ_NUM: its value; CJ_BOOL: 0 or 1 */
};

/* Returns 0 to go on, or -1 after cl_json_fail. */
typedef int (*cl_json_fn)(void *ctx, const struct cl_jval *v);

struct cl_json;
struct cl_json *cl_json_new(cl_json_fn fn, void *ctx);
void cl_json_free(struct cl_json *j);
/* Feeds the next bytes; -1 once the input is not JSON or the format
 * failed (then cl_json_error says why). */
int cl_json_feed(struct cl_json *j, const char *p, size_t n);
/* The input ends: -1 when the document is incomplete. */
int cl_json_finish(struct cl_json *j);
/* The format's own complaint (printf-like), kept as the error. */
void cl_json_fail(struct cl_json *j, const char *fmt, ...) EMBER_PRINTF(2, 3);
const char *cl_json_error(const struct cl_json *j);
/* A format's whole input through j: 0, the input's own error (a read
 * or gzip error), or EMBER_EFORMAT with the reason given to the sink. */
int cl_json_read(struct cl_json *j, struct collapse_input *in,
		 struct collapse_sink *k);
/* Bytes fed so far. */
uint64_t cl_json_offset(const struct cl_json *j);

/* Whether the start of an input is a JSON object or array whose first
 * key (at depth 1, or in the array's first object) is one of keys
 * (NULL-terminated); for detection. */
int cl_json_sniff(const char *p, size_t len, const char *const *keys,
		  int in_array);

/* A key is lit. */
static inline int cl_jkey(const struct cl_jval *v, const char *lit)
{
	size_t n = strlen(lit);
	return v->key && v->key_len == n && !memcmp(v->key, lit, n);
}

/* Python's str(float) (folded.h), under the name the formats use. */
static inline void cl_add_python_float(struct ember_buf *b, double x)
{
	ember_buf_add_pyfloat(b, x);
}

#endif
