/*
 * libbpf loaded when a recording first needs it (interpreter frames by
 * BPF), not when ember starts: every command would otherwise pay for it,
 * a shared library more for the dynamic loader to map and relocate
 * (about half a millisecond of CPU of each run here, a few percent of
 * reading a short perf.data).  The functions of libbpf ember calls are
 * defined here, calling libbpf's, all looked up at once on first use
 * (at the versions the build was linked against before, as libdeflate.c
 * does libdeflate's); ember is not linked with -lbpf.  Without
 * libbpf.so.1 they fail as libbpf's own do, and rec_libbpf_ready says
 * why.  `make static` links libbpf itself.
 */
#include "record/interp.h"

#if defined(EMBER_BPF) && !defined(EMBER_STATIC)
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

/* libbpf's functions that ember calls, at the versions of the build */
static struct {
	__typeof__(libbpf_set_print) *set_print;
	__typeof__(libbpf_num_possible_cpus) *num_possible_cpus;
	__typeof__(bpf_object__open_skeleton) *open_skeleton;
	__typeof__(bpf_object__load_skeleton) *load_skeleton;
	__typeof__(bpf_object__destroy_skeleton) *destroy_skeleton;
	__typeof__(bpf_program__fd) *program_fd;
	__typeof__(bpf_map__fd) *map_fd;
	__typeof__(bpf_map__lookup_elem) *lookup_elem;
	__typeof__(bpf_map__update_elem) *update_elem;
	__typeof__(bpf_map__delete_elem) *delete_elem;
	__typeof__(ring_buffer__new) *rb_new;
	__typeof__(ring_buffer__consume) *rb_consume;
	__typeof__(ring_buffer__free) *rb_free;
} lib;
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* (the cast through void ** is POSIX's way to take a function from
 * dlsym) */
#define SYM(field, name, ver) (*(void **)&lib.field = dlvsym(dl, name, ver))

static void load(void)
{
	void *dl = dlopen("libbpf.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!dl)
		return;
	if (SYM(set_print, "libbpf_set_print", "LIBBPF_0.0.1") &&
	    SYM(num_possible_cpus, "libbpf_num_possible_cpus",
		"LIBBPF_0.0.4") &&
	    SYM(open_skeleton, "bpf_object__open_skeleton", "LIBBPF_0.0.7") &&
	    SYM(load_skeleton, "bpf_object__load_skeleton", "LIBBPF_0.0.7") &&
	    SYM(destroy_skeleton, "bpf_object__destroy_skeleton",
		"LIBBPF_0.0.7") &&
	    SYM(program_fd, "bpf_program__fd", "LIBBPF_0.0.1") &&
	    SYM(map_fd, "bpf_map__fd", "LIBBPF_0.0.1") &&
	    SYM(lookup_elem, "bpf_map__lookup_elem", "LIBBPF_0.8.0") &&
	    SYM(update_elem, "bpf_map__update_elem", "LIBBPF_0.8.0") &&
	    SYM(delete_elem, "bpf_map__delete_elem", "LIBBPF_0.8.0") &&
	    SYM(rb_new, "ring_buffer__new", "LIBBPF_0.0.9") &&
	    SYM(rb_consume, "ring_buffer__consume", "LIBBPF_0.0.9") &&
	    SYM(rb_free, "ring_buffer__free", "LIBBPF_0.0.9")) {
		loaded = 1;
		return;
	}
	memset(&lib, 0, sizeof(lib));
	dlclose(dl);
}

int rec_libbpf_ready(const char **why)
{
	pthread_once(&once, load);
	*why = loaded ? NULL : "libbpf.so.1 is not installed (Debian: libbpf1)";
	return loaded;
}

/* libbpf loaded, or errno ENOSYS */
static int ready(void)
{
	const char *why;

	if (rec_libbpf_ready(&why))
		return 1;
	errno = ENOSYS;
	return 0;
}

libbpf_print_fn_t libbpf_set_print(libbpf_print_fn_t p)
{
	return ready() ? lib.set_print(p) : NULL;
}

int libbpf_num_possible_cpus(void)
{
	return ready() ? lib.num_possible_cpus() : -ENOSYS;
}

int bpf_object__open_skeleton(struct bpf_object_skeleton *s,
			      const struct bpf_object_open_opts *opts)
{
	return ready() ? lib.open_skeleton(s, opts) : -ENOSYS;
}

int bpf_object__load_skeleton(struct bpf_object_skeleton *s)
{
	return ready() ? lib.load_skeleton(s) : -ENOSYS;
}

void bpf_object__destroy_skeleton(struct bpf_object_skeleton *s)
{
	if (ready())
		lib.destroy_skeleton(s);
}

int bpf_program__fd(const struct bpf_program *prog)
{
	return ready() ? lib.program_fd(prog) : -ENOSYS;
}

int bpf_map__fd(const struct bpf_map *map)
{
	return ready() ? lib.map_fd(map) : -ENOSYS;
}

int bpf_map__lookup_elem(const struct bpf_map *map, const void *key,
			 size_t key_sz, void *value, size_t value_sz,
			 __u64 flags)
{
	return ready()
		   ? lib.lookup_elem(map, key, key_sz, value, value_sz, flags)
		   : -ENOSYS;
}

int bpf_map__update_elem(const struct bpf_map *map, const void *key,
			 size_t key_sz, const void *value, size_t value_sz,
			 __u64 flags)
{
	return ready()
		   ? lib.update_elem(map, key, key_sz, value, value_sz, flags)
		   : -ENOSYS;
}

int bpf_map__delete_elem(const struct bpf_map *map, const void *key,
			 size_t key_sz, __u64 flags)
{
	return ready() ? lib.delete_elem(map, key, key_sz, flags) : -ENOSYS;
}

struct ring_buffer *ring_buffer__new(int map_fd, ring_buffer_sample_fn cb,
				     void *ctx,
				     const struct ring_buffer_opts *opts)
{
	return ready() ? lib.rb_new(map_fd, cb, ctx, opts) : NULL;
}

int ring_buffer__consume(struct ring_buffer *rb)
{
	return ready() ? lib.rb_consume(rb) : -ENOSYS;
}

void ring_buffer__free(struct ring_buffer *rb)
{
	if (ready())
		lib.rb_free(rb);
}

#else

int rec_libbpf_ready(const char **why)
{
	*why = NULL;
	return 1;
}

#endif
