/* A tiny unit-test harness: CHECK(cond) and CHECK_STR(a, b) record a
 * failure with its line and go on; main() ends with DONE(), which prints
 * "N passed, N failed" and sets the exit status. */
#ifndef EMBER_HARNESS_H
#define EMBER_HARNESS_H

#include <stdio.h>
#include <string.h>

static int t_pass, t_fail;

#define CHECK(cond)                                                         \
	do {                                                                \
		if (cond) {                                                 \
			t_pass++;                                           \
		} else {                                                    \
			t_fail++;                                           \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n",        \
				__FILE__, __LINE__, #cond);                 \
		}                                                           \
	} while (0)

#define CHECK_STR(a, b)                                                     \
	do {                                                                \
		const char *a_ = (a), *b_ = (b);                            \
		if (a_ && b_ && !strcmp(a_, b_)) {                          \
			t_pass++;                                           \
		} else {                                                    \
			t_fail++;                                           \
			fprintf(stderr, "%s:%d: got '%s', want '%s'\n",     \
				__FILE__, __LINE__, a_ ? a_ : "(null)",     \
				b_ ? b_ : "(null)");                        \
		}                                                           \
	} while (0)

#define DONE()                                                              \
	do {                                                                \
		printf("%s: %d passed, %d failed\n", __FILE__, t_pass,      \
		       t_fail);                                             \
		return t_fail ? 1 : 0;                                      \
	} while (0)

#endif
