/* libdeflate loaded where it is installed (libdeflate.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "libdeflate.h"

#ifdef EMBER_STATIC /* make static: no shared library is loaded */
#define dlopen(file, mode) ((void)(file), (void)(mode), (void *)NULL)
#define dlsym(h, name)	   ((void)(h), (void)(name), (void *)NULL)
#define dlclose(h)	   ((void)(h))
#endif

static struct ember_libdeflate lib;
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* (the cast through void ** is POSIX's way to take a function from
 * dlsym) */
#define SYM(field, name) (*(void **)&lib.field = dlsym(dl, name))

static void load(void)
{
	void *dl = dlopen("libdeflate.so.0", RTLD_NOW | RTLD_LOCAL);

	if (!dl)
		return;
	if (SYM(alloc_decompressor, "libdeflate_alloc_decompressor") &&
	    SYM(zlib_decompress, "libdeflate_zlib_decompress") &&
	    SYM(free_decompressor, "libdeflate_free_decompressor") &&
	    SYM(alloc_compressor, "libdeflate_alloc_compressor") &&
	    SYM(gzip_compress, "libdeflate_gzip_compress") &&
	    SYM(gzip_compress_bound, "libdeflate_gzip_compress_bound") &&
	    SYM(free_compressor, "libdeflate_free_compressor")) {
		loaded = 1;
		return;
	}
	memset(&lib, 0, sizeof(lib));
	dlclose(dl);
}

const struct ember_libdeflate *ember_libdeflate(void)
{
	pthread_once(&once, load);
	return loaded ? &lib : NULL;
}
