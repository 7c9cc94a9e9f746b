/*
 * libbpf loaded when a recording first needs it (interpreter frames by
 * BPF), not when ember starts: every command would otherwise pay for it,
 * a shared library more for the dynamic loader to map and relocate
 * (about half a millisecond of CPU of each run here, a few percent of
 * reading a short perf.data).  The functions of libbpf ember calls are
 * defined here, each looking its own up once (at the version the build
 * was linked against before) and calling it; ember is not linked with
 * -lbpf.  Without libbpf.so.1 they fail as libbpf's own do, and
 * rec_libbpf_ready says why.  `make static` links libbpf itself.
 */
#include "record/interp.h"

#if defined(EMBER_BPF) && !defined(EMBER_STATIC)
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

static void *dl;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	dl = dlopen("libbpf.so.1", RTLD_NOW | RTLD_LOCAL);
}

int rec_libbpf_ready(const char **why)
{
	pthread_once(&once, load);
	*why = dl ? NULL : "libbpf.so.1 is not installed (Debian: libbpf1)";
	return dl != NULL;
}

/* Function name of libbpf's at version ver, or NULL (errno ENOSYS). */
static void *fn(const char *name, const char *ver)
{
	const char *why;
	void *f = rec_libbpf_ready(&why) ? dlvsym(dl, name, ver) : NULL;

	if (!f)
		errno = ENOSYS;
	return f;
}

/* (the cast through void ** is POSIX's way to take a function from
 * dlsym) */
#define LOOKUP(f, name, ver)                                                   \
	static void *f##_found;                                                \
	void *f##_p = __atomic_load_n(&f##_found, __ATOMIC_RELAXED);           \
	if (!f##_p) {                                                          \
		f##_p = fn(#name, ver);                                        \
		__atomic_store_n(&f##_found, f##_p, __ATOMIC_RELAXED);         \
	}                                                                      \
	__typeof__(name) *f;                                                   \
	*(void **)&f = f##_p

libbpf_print_fn_t libbpf_set_print(libbpf_print_fn_t p)
{
	LOOKUP(f, libbpf_set_print, "LIBBPF_0.0.1");
	return f ? f(p) : NULL;
}

int libbpf_num_possible_cpus(void)
{
	LOOKUP(f, libbpf_num_possible_cpus, "LIBBPF_0.0.4");
	return f ? f() : -ENOSYS;
}

int bpf_object__open_skeleton(struct bpf_object_skeleton *s,
			      const struct bpf_object_open_opts *opts)
{
	LOOKUP(f, bpf_object__open_skeleton, "LIBBPF_0.0.7");
	return f ? f(s, opts) : -ENOSYS;
}

int bpf_object__load_skeleton(struct bpf_object_skeleton *s)
{
	LOOKUP(f, bpf_object__load_skeleton, "LIBBPF_0.0.7");
	return f ? f(s) : -ENOSYS;
}

void bpf_object__destroy_skeleton(struct bpf_object_skeleton *s)
{
	LOOKUP(f, bpf_object__destroy_skeleton, "LIBBPF_0.0.7");
	if (f)
		f(s);
}

int bpf_program__fd(const struct bpf_program *prog)
{
	LOOKUP(f, bpf_program__fd, "LIBBPF_0.0.1");
	return f ? f(prog) : -ENOSYS;
}

int bpf_map__fd(const struct bpf_map *map)
{
	LOOKUP(f, bpf_map__fd, "LIBBPF_0.0.1");
	return f ? f(map) : -ENOSYS;
}

int bpf_map__lookup_elem(const struct bpf_map *map, const void *key,
			 size_t key_sz, void *value, size_t value_sz,
			 __u64 flags)
{
	LOOKUP(f, bpf_map__lookup_elem, "LIBBPF_0.8.0");
	return f ? f(map, key, key_sz, value, value_sz, flags) : -ENOSYS;
}

int bpf_map__update_elem(const struct bpf_map *map, const void *key,
			 size_t key_sz, const void *value, size_t value_sz,
			 __u64 flags)
{
	LOOKUP(f, bpf_map__update_elem, "LIBBPF_0.8.0");
	return f ? f(map, key, key_sz, value, value_sz, flags) : -ENOSYS;
}

int bpf_map__delete_elem(const struct bpf_map *map, const void *key,
			 size_t key_sz, __u64 flags)
{
	LOOKUP(f, bpf_map__delete_elem, "LIBBPF_0.8.0");
	return f ? f(map, key, key_sz, flags) : -ENOSYS;
}

struct ring_buffer *ring_buffer__new(int map_fd, ring_buffer_sample_fn cb,
				     void *ctx,
				     const struct ring_buffer_opts *opts)
{
	LOOKUP(f, ring_buffer__new, "LIBBPF_0.0.9");
	return f ? f(map_fd, cb, ctx, opts) : NULL;
}

int ring_buffer__consume(struct ring_buffer *rb)
{
	LOOKUP(f, ring_buffer__consume, "LIBBPF_0.0.9");
	return f ? f(rb) : -ENOSYS;
}

void ring_buffer__free(struct ring_buffer *rb)
{
	LOOKUP(f, ring_buffer__free, "LIBBPF_0.0.9");
	if (f)
		f(rb);
}

#else

int rec_libbpf_ready(const char **why)
{
	*why = NULL;
	return 1;
}

#endif
