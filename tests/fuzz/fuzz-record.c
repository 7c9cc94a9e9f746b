/* libFuzzer target: any bytes through the profiler's parsers of outside
 * data (perf maps, kallsyms, /proc/PID/maps, perf's and HotSpot's frame
 * names, ELF images), the first byte choosing which.  Must not crash,
 * hang or leak. */
#include <stdlib.h>
#include <string.h>

#include "symbols/names.h"
#include "perf/symbolize.h"

static void lookups(struct rec_symtab *st, const unsigned char *d, size_t n)
{
	for (size_t i = 0; i + 8 <= n && i < 256; i += 8) {
		uint64_t a;
		memcpy(&a, d + i, 8);
		const struct rec_sym *s = rec_symtab_find(st, a);
		if (s)
			rec_symtab_name(st, s);
		rec_symtab_find(st, a & 0xffff);
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct rec_symtab st;
	struct ember_buf b = EMBER_BUF_INIT;
	size_t bad;

	if (!size)
		return 0;
	const char *p = (const char *)data + 1;
	size_t n = size - 1;
	switch (data[0] % 5) {
	case 0:
		rec_symtab_init(&st, REC_SYMTAB_PERFMAP);
		rec_perfmap_parse(&st, p, n, &bad);
		rec_symtab_finish(&st);
		lookups(&st, data, size);
		rec_symtab_release(&st);
		break;
	case 1:
		rec_symtab_init(&st, REC_SYMTAB_KALLSYMS);
		rec_kallsyms_parse(&st, p, n);
		rec_symtab_finish(&st);
		lookups(&st, data, size);
		rec_symtab_release(&st);
		break;
	case 2: {
		struct rec_world w;
		rec_world_init(&w);
		struct rec_proc *pr = rec_world_new_proc(&w, 1, NULL, 0);
		rec_world_parse_maps(&w, pr, p, n);
		struct rec_proc *child = rec_world_new_proc(&w, 2, pr, 1);
		for (size_t i = 0; i + 16 <= n && i < 512; i += 16) {
			uint64_t a, l;
			memcpy(&a, p + i, 8);
			memcpy(&l, p + i + 8, 8);
			rec_proc_find_map(pr, a);
			rec_world_mmap(&w, child, a, l & 0xffffff, 0, 0, 0,
				       p + i, 16, 2);
			rec_proc_unwind_find(child, l);
		}
		rec_world_release(&w);
		break;
	}
	case 3: {
		const char *nl = memchr(p, '\n', n);
		size_t sn = nl ? (size_t)(nl - p) : n;
		const char *dso = nl ? nl + 1 : "";
		size_t dn = nl ? n - sn - 1 : 0;
		rec_fold_frame(&b, p, sn, dso, dn, data[0] >> 3);
		/* a JVM's name, renamed as perf-map-agent's, then folded */
		struct ember_buf j = EMBER_BUF_INIT;
		if (rec_java_agent_name(&j, p, sn))
			rec_fold_frame(&b, j.buf, j.len, dso, dn,
				       REC_FOLD_JAVA);
		ember_buf_release(&j);
		break;
	}
	case 4: {
		struct rec_elf e;
		if (!rec_elf_open_mem(&e, p, n)) {
			uint64_t v;
			rec_symtab_init(&st, REC_SYMTAB_ELF);
			st.demangle = 1;
			rec_elf_symbols(&e, &st, 0);
			rec_elf_symbols(&e, &st, 1);
			rec_elf_plt_symbols(&e, &st);
			rec_symtab_finish(&st);
			lookups(&st, data, size);
			rec_elf_off_to_vaddr(&e, size, &v);
			rec_symtab_release(&st);
			rec_elf_close(&e);
		}
		break;
	}
	}
	ember_buf_release(&b);
	return 0;
}
