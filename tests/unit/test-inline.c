/* Unit tests of the inlined calls read from DWARF (record/inline.c), on
 * this test program's own code: calls inlined into a function here, and
 * every address of the program against what libdw's dwarf_getscopes says
 * (the way addr2line -i walks the scopes). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <link.h>
#include <stdlib.h>

#include "harness.h"
#include "symbols/inline.h"

static volatile int sink;

__attribute__((noinline)) static void *here(void)
{
	return __builtin_return_address(0);
}

static inline __attribute__((always_inline)) void *t_leaf(int x)
{
	sink += x;
	return here();
}

static inline __attribute__((always_inline)) void *t_mid(int x)
{
	sink -= x;
	return t_leaf(x * 3);
}

__attribute__((noinline)) static void *t_caller(int x)
{
	void *p = t_mid(x + 1);
	sink ^= x;
	return p;
}

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uintptr_t *)arg = info->dlpi_addr;
	return 1; /* the program itself comes first */
}

/* The records of a result, one name a line, file:line dropped. */
static char *names_of(const struct ember_buf *b)
{
	char *s = ember_xmalloc(b->len + 1), *o = s;

	for (size_t i = 0; i < b->len; i++) {
		if (b->buf[i] == '\t') {
			while (i < b->len && b->buf[i] != '\n')
				i++;
			if (i == b->len)
				break;
		}
		*o++ = b->buf[i];
	}
	*o = '\0';
	return s;
}

static void test_self(void)
{
	uintptr_t base = 0;
	uint32_t id;
	struct ember_buf b = EMBER_BUF_INIT;

	dl_iterate_phdr(first_object, &base);
	/* the call to here() is in t_leaf, inlined in t_mid, in t_caller */
	uint64_t at = (uint64_t)(uintptr_t)t_caller(1) - base - 1;
	struct ember_inliner *in = ember_inliner_new(EMBER_INLINE_PERF);
	CHECK(ember_inliner_module(in, "self", 4, "/proc/self/exe", -1, -1,
				   &id) == 0);
	CHECK(ember_inliner_at(in, id, at, NULL, 0, &b) == 2);
	char *n = names_of(&b);
	CHECK_STR(n, "t_mid\nt_leaf\n");
	free(n);
	/* again, from the cache */
	ember_buf_reset(&b);
	CHECK(ember_inliner_at(in, id, at, NULL, 0, &b) == 2);
	n = names_of(&b);
	CHECK_STR(n, "t_mid\nt_leaf\n");
	free(n);
	/* no inlined call in here() */
	ember_buf_reset(&b);
	CHECK(ember_inliner_at(in, id, (uint64_t)(uintptr_t)here - base, NULL,
			       0, &b) == 0);
	CHECK(b.len == 0);
	/* nowhere: none */
	CHECK(ember_inliner_at(in, id, 1, NULL, 0, &b) == 0);
	/* a module without DWARF, or no file at all */
	CHECK(ember_inliner_module(in, "none", 4, "/nonexistent/x", -1, -1,
				   &id) < 0);
	CHECK(ember_inliner_at(in, id, at, NULL, 0, &b) == 0);
	ember_inliner_free(in);

	/* as addr2line -i: the function they are inlined into too, and
	 * where each runs */
	in = ember_inliner_new(EMBER_INLINE_CONTEXT);
	ember_buf_reset(&b);
	CHECK(ember_inliner_module(in, "self", 4, "/proc/self/exe", -1, -1,
				   &id) == 0);
	CHECK(ember_inliner_at(in, id, at, NULL, 0, &b) == 3);
	n = names_of(&b);
	CHECK_STR(n, "t_caller\nt_mid\nt_leaf\n");
	free(n);
	CHECK(strstr(b.buf, "t_leaf\ttest-inline.c:") != NULL);
	ember_inliner_free(in);
	ember_buf_release(&b);
}

/* ---- against dwarf_getscopes ------------------------------------------ */

static int function_like(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

static const char *oracle_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *link = dwarf_formstring(
	    dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	const char *name = dwarf_diename(die);

	return link ? link : name ? name : "??";
}

/* The functions at addr, outermost first, one a line, by the scopes
 * libdw finds; 0 if none. */
static int oracle(Dwfl_Module *mod, uint64_t addr, struct ember_buf *out)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
	Dwarf_Die *scopes = NULL, inner;
	Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
	int n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;

	if (n <= 0 || !dw ||
	    !dwarf_offdie(dw, dwarf_dieoffset(&scopes[0]), &inner)) {
		free(scopes);
		return 0;
	}
	free(scopes);
	scopes = NULL;
	n = dwarf_getscopes_die(&inner, &scopes);
	struct ember_buf rev = EMBER_BUF_INIT;
	int found = 0;
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (!function_like(tag))
			continue;
		const char *name = oracle_name(&scopes[i]);
		/* prepend */
		size_t len = strlen(name) + 1;
		ember_buf_grow(&rev, len);
		memmove(rev.buf + len, rev.buf, rev.len);
		memcpy(rev.buf, name, len - 1);
		rev.buf[len - 1] = '\n';
		ember_buf_setlen(&rev, rev.len + len);
		found = 1;
		if (tag != DW_TAG_inlined_subroutine)
			break;
	}
	free(scopes);
	ember_buf_add(out, rev.buf, rev.len);
	ember_buf_release(&rev);
	return found;
}

static const Dwfl_Callbacks callbacks = {
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

static void test_oracle(void)
{
	Dwfl *dwfl = dwfl_begin(&callbacks);
	struct ember_buf want = EMBER_BUF_INIT, got = EMBER_BUF_INIT;
	uint32_t id;
	int compared = 0, inlined = 0, differ = 0;

	dwfl_report_begin(dwfl);
	Dwfl_Module *mod =
	    dwfl_report_elf(dwfl, "self", "/proc/self/exe", -1, 0, false);
	dwfl_report_end(dwfl, NULL, NULL);
	Dwarf_Addr bias;
	CHECK(mod && dwfl_module_getdwarf(mod, &bias));
	/* the demangled names are compared as linkage names: addr2line's
	 * own demangling is not under test here */
	struct ember_inliner *in = ember_inliner_new(0);
	CHECK(ember_inliner_module(in, "self", 4, "/proc/self/exe", -1, -1,
				   &id) == 0);
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	Elf_Scn *scn = NULL;
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		size_t shstrndx;
		if (!gelf_getshdr(scn, &sh) ||
		    elf_getshdrstrndx(elf, &shstrndx))
			continue;
		const char *sn = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!sn || strcmp(sn, ".text"))
			continue;
		/* every 7th byte of the program's own code */
		for (uint64_t a = sh.sh_addr; a < sh.sh_addr + sh.sh_size;
		     a += 7) {
			ember_buf_reset(&want);
			ember_buf_reset(&got);
			int w = oracle(mod, a, &want);
			ember_inliner_at(in, id, a, NULL, 0, &got);
			char *g = names_of(&got);
			compared++;
			inlined += w && strchr(want.buf, '\n') !=
					    want.buf + want.len - 1;
			if (!w && !*g)
				;
			else if (!strcmp(g, want.buf))
				;
			else if (differ++ < 5)
				fprintf(stderr,
					"%#llx: ember says\n%s, libdw's "
					"scopes\n%s",
					(unsigned long long)a, g, want.buf);
			free(g);
		}
	}
	fprintf(stderr, "test-inline: %d addresses, %d in inlined code\n",
		compared, inlined);
	CHECK(compared > 1000);
	CHECK(inlined > 10);
	CHECK(differ == 0);
	ember_inliner_free(in);
	dwfl_end(dwfl);
	ember_buf_release(&want);
	ember_buf_release(&got);
}

int main(void)
{
	test_self();
	test_oracle();
	DONE();
}
