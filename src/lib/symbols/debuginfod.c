/*
 * Debug files from debuginfod servers, for binaries stripped of their
 * symbols that have no debug file on this machine.  libdebuginfod
 * (Debian's libdebuginfod1) is loaded with dlopen the first time it is
 * needed, and only when DEBUGINFOD_URLS names servers: ember needs neither
 * it nor its network libraries otherwise.  The files land in its cache
 * (DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client), where later
 * runs find them without asking.  After a server error other than "not
 * found" (unreachable, timed out), no more files are asked for in that run:
 * each would wait as long.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symbols/elf.h"

#ifdef EMBER_STATIC /* make static: no shared library is loaded */
#define dlopen(file, mode) ((void)(file), (void)(mode), (void *)NULL)
#define dlsym(h, name)	   ((void)(h), (void)(name), (void *)NULL)
#define dlclose(h)	   ((void)(h))
#endif

#define PROGRESS_AFTER 1.0 /* seconds into a fetch before a progress line */
#define SUMMARY_AFTER  1.0 /* seconds of fetching in all before a summary */

typedef int (*progress_fn)(void *client, long done, long total);

struct rec_debuginfod {
	void *client;
	int (*find)(void *client, const unsigned char *id, int len,
		    char **path);
	void (*end)(void *client);
	void (*set_progressfn)(void *client, progress_fn fn);
	void (*set_user_data)(void *client, void *data);
	int state; /* 1 ready, -1 unusable or given up */
	/* the fetch under way */
	const char *name;
	double t0, last;
	int shown;
	/* in all */
	unsigned found, asked;
	double seconds;
	uint64_t bytes;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* libdebuginfod's debuginfod_get_user_data, for the progress callback */
static void *(*get_user_data)(void *client);

/* Called by libdebuginfod while it waits and downloads: a progress line
 * once a fetch has taken a second (nonzero would cancel it). */
static int on_progress(void *client, long done, long total)
{
	struct rec_debuginfod *dc = get_user_data(client);
	double t = now();

	if (!dc || t - dc->t0 < PROGRESS_AFTER ||
	    (dc->shown && t - dc->last < 0.25))
		return 0;
	dc->last = t;
	dc->shown = 1;
	if (total > 0 && done >= 0)
		ember_log(EMBER_LOG_PROGRESS,
			  "fetching debug info for '%s' from debuginfod: "
			  "%.1f of %.1f MB",
			  dc->name, (double)done / 1e6, (double)total / 1e6);
	else if (done > 0)
		ember_log(EMBER_LOG_PROGRESS,
			  "fetching debug info for '%s' from debuginfod: "
			  "%.1f MB",
			  dc->name, (double)done / 1e6);
	else
		ember_log(EMBER_LOG_PROGRESS,
			  "fetching debug info for '%s' from debuginfod: "
			  "waiting %.0f s",
			  dc->name, t - dc->t0);
	return 0;
}

static int load(struct rec_debuginfod *dc)
{
	void *(*begin)(void);

	dc->state = -1;
#ifdef EMBER_STATIC
	ember_log(EMBER_LOG_WARN,
		  "DEBUGINFOD_URLS is set but this ember is linked "
		  "statically and cannot load libdebuginfod: use a dynamically "
		  "linked ember to fetch debug info");
	return EMBER_ENOTSUP;
#endif
	void *dl = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		ember_log(EMBER_LOG_WARN,
			  "DEBUGINFOD_URLS is set but libdebuginfod is "
			  "missing: install libdebuginfod1 to fetch debug "
			  "info");
		return EMBER_ENOTSUP;
	}
	*(void **)&begin = dlsym(dl, "debuginfod_begin");
	*(void **)&dc->find = dlsym(dl, "debuginfod_find_debuginfo");
	*(void **)&dc->end = dlsym(dl, "debuginfod_end");
	*(void **)&dc->set_progressfn = dlsym(dl, "debuginfod_set_progressfn");
	*(void **)&dc->set_user_data = dlsym(dl, "debuginfod_set_user_data");
	*(void **)&get_user_data = dlsym(dl, "debuginfod_get_user_data");
	if (!begin || !dc->find || !dc->end || !(dc->client = begin())) {
		ember_log(EMBER_LOG_WARN,
			  "cannot start libdebuginfod: no debug info from "
			  "debuginfod");
		return EMBER_ENOTSUP;
	}
	if (dc->set_progressfn && dc->set_user_data && get_user_data) {
		dc->set_user_data(dc->client, dc);
		dc->set_progressfn(dc->client, on_progress);
	}
	dc->state = 1;
	return 0;
}

int rec_debuginfod_open(struct rec_debuginfod **dcp, const struct rec_elf *e,
			const char *name, struct rec_elf *out)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct rec_debuginfod *dc = *dcp;
	char *path = NULL;

	if (!e->build_id_len || !urls || !urls[strspn(urls, " \t")])
		return EMBER_ENOENT;
	if (!dc) {
		dc = *dcp = ember_xcalloc(1, sizeof(*dc));
		load(dc);
	}
	if (dc->state < 0)
		return EMBER_ENOENT;
	dc->name = name;
	dc->t0 = now();
	dc->shown = 0;
	dc->asked++;
	int fd = dc->find(dc->client, e->build_id, (int)e->build_id_len, &path);
	double took = now() - dc->t0;
	dc->seconds += took;
	if (dc->shown)
		ember_log(EMBER_LOG_PROGRESS, "%s", "");
	if (fd < 0) {
		if (fd != -ENOENT) {
			ember_log(EMBER_LOG_WARN,
				  "cannot fetch debug info for '%s' from "
				  "debuginfod (%s): %s; not asking for more",
				  name, urls, strerror(-fd));
			dc->state = -1;
		}
		return EMBER_ENOENT;
	}
	struct stat st;
	if (!fstat(fd, &st))
		dc->bytes += (uint64_t)st.st_size;
	int err = rec_elf_open_fd(out, fd);
	if (!err && (out->build_id_len != e->build_id_len ||
		     memcmp(out->build_id, e->build_id, e->build_id_len))) {
		rec_elf_close(out);
		err = EMBER_EFORMAT;
	}
	if (err)
		ember_log(EMBER_LOG_WARN,
			  "debuginfod's debug info for '%s' ('%s') is not "
			  "an ELF file of its build-id",
			  name, path ? path : "?");
	else {
		dc->found++;
		ember_log(EMBER_LOG_INFO,
			  "debug info for '%s' from debuginfod: '%s' (%.2f s)",
			  name, path ? path : "?", took);
	}
	free(path);
	return err ? EMBER_ENOENT : 0;
}

void rec_debuginfod_free(struct rec_debuginfod *dc)
{
	if (!dc)
		return;
	if (dc->seconds > SUMMARY_AFTER)
		ember_log(EMBER_LOG_NOTICE,
			  "debuginfod: %u of %u debug file%s found, %.1f MB, "
			  "in %.1f s%s",
			  dc->found, dc->asked, dc->asked == 1 ? "" : "s",
			  (double)dc->bytes / 1e6, dc->seconds,
			  dc->found ? " (cached for next time)" : "");
	if (dc->client)
		dc->end(dc->client);
	/* not dlclose'd: libcurl and its TLS library keep global state
	 * that only their destructors at exit release */
	free(dc);
}
