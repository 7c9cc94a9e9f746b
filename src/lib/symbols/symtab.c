/*
 * Sorted symbol tables for address lookup, and demangling.
 *
 * Symbols are kept in one array sorted by start address (ties by order of
 * addition).  rec_symtab_finish resolves aliases (several symbols at one
 * address) the way perf does, so the names match `perf script`'s: prefer a
 * sized symbol, then a non-weak one, then a global one, then the one with
 * fewer leading underscores, then the longer name, then the first added
 * (for kallsyms, where perf sizes symbols first, the last added).  ELF
 * names lose their symbol version ("free@@GLIBC_2.2.5" is "free"), and an
 * alias kept for old binaries only (a version not the default) loses to
 * any other: perf 6.1 keeps versions and names free "cfree@GLIBC_2.2.5".
 * Symbols without a size end where the next one starts.  Perf maps instead
 * keep every entry, and a lookup takes the last-added entry covering the
 * address, since JIT code addresses are reused.
 *
 * symbols/ names addresses and knows nothing of perf records or of a
 * recording: ELF files and their debug files (found by build-id, debug
 * link or debuginfod), kallsyms, perf maps, jitdumps, inlined calls, and
 * the frame-naming rules shared with `ember collapse perf` (names.c).
 * Every file it reads may be cut short or hostile: sizes and offsets are
 * checked before use, and a process's files are opened inside its own
 * root (procfs.c).
 */
#include <elf.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symtab.h"

/* libiberty's header defines ARRAY_SIZE too */
#undef ARRAY_SIZE
#include <libiberty/demangle.h>

void rec_symtab_init(struct rec_symtab *st, int kind)
{
	memset(st, 0, sizeof(*st));
	ember_arena_init(&st->arena);
	st->kind = kind;
}

void rec_symtab_release(struct rec_symtab *st)
{
	for (size_t i = 0; i < st->n; i++)
		free(st->syms[i].demangled);
	for (size_t i = 0; i < st->nalias; i++)
		free(st->alias[i].demangled);
	free(st->syms);
	free(st->alias);
	if (st->text)
		munmap(st->text, st->text_size);
	ember_arena_release(&st->arena);
	memset(st, 0, sizeof(*st));
}

void rec_symtab_reserve(struct rec_symtab *st, size_t more)
{
	if (more > UINT32_MAX - st->n || st->n + more <= st->alloc)
		return;
	st->syms =
	    ember_xreallocarray(st->syms, st->n + more, sizeof(*st->syms));
	st->alloc = st->n + more;
}

void rec_symtab_add(struct rec_symtab *st, uint64_t start, uint64_t size,
		    const char *name, size_t len, int bind, int copy)
{
	struct rec_sym *s;

	if (st->n >= UINT32_MAX)
		return;
	EMBER_GROW(st->syms, st->n + 1, st->alloc);
	s = &st->syms[st->n];
	uint64_t end = size && start + size > start ? start + size : start;
	*s = (struct rec_sym){
	    .start = start,
	    .end = end,
	    .sized = end > start,
	    .name = copy ? ember_arena_strndup(&st->arena, name, len) : name,
	    .seq = (uint32_t)st->n,
	    .bind = (uint8_t)bind,
	};
	st->n++;
}

void rec_symtab_add_elf(struct rec_symtab *st, uint64_t start, uint64_t size,
			const char *name, int bind, int compat)
{
	size_t n = st->n;

	/* the name is not read now: most symbols are never named, and
	 * their names (mangled C++, long) would be walked for nothing */
	rec_symtab_add(st, start, size, name, 0, bind, 0);
	if (st->n > n) {
		st->syms[n].compat = (uint8_t) !!compat;
		st->syms[n].ver = 1;
	}
}

/* An ELF name's version, looked at when the symbol is first named or
 * compared with its aliases: "name@@V" is "name", "name@V" is "name" and
 * an alias for old binaries only (compat). */
static void strip_version(struct rec_symtab *st, struct rec_sym *s)
{
	const char *name = s->name;
	const char *at = strchr(name, '@');

	s->ver = 0;
	if (!at || at == name)
		return;
	if (at[1] != '@')
		s->compat = 1;
	s->name = ember_arena_strndup(&st->arena, name, (size_t)(at - name));
}

char *rec_demangle(const char *name)
{
	/* perf: Itanium C++ and Rust symbols, no parameters */
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	/* cplus_demangle tries Rust's legacy form first, which a C++ name
	 * fails (it has no "17h" hash segment) after a walk of the name:
	 * straight to the C++ demangler then, with cplus_demangle's style */
	if (name[1] == 'Z' && !strstr(name, "17h"))
		return cplus_demangle_v3(name, DMGL_NO_OPTS | DMGL_AUTO);
	return cplus_demangle(name, DMGL_NO_OPTS);
}

static void resolve_aliases(struct rec_symtab *st, struct rec_sym *s);

static const char *display_name(struct rec_symtab *st, struct rec_sym *s)
{
	if (s->nalias)
		resolve_aliases(st, s);
	if (s->ver)
		strip_version(st, s);
	if (s->plt) {
		if (!s->demangle_done) {
			char *dem = rec_demangle(s->name);
			const char *base = dem ? dem : s->name;
			size_t n = strlen(base);
			s->demangled = ember_xmalloc(n + 5);
			memcpy(s->demangled, base, n);
			memcpy(s->demangled + n, "@plt", 5);
			free(dem);
			s->demangle_done = 1;
		}
		return s->demangled;
	}
	if (!st->demangle)
		return s->name;
	if (!s->demangle_done) {
		s->demangled = rec_demangle(s->name);
		s->demangle_done = 1;
	}
	return s->demangled ? s->demangled : s->name;
}

const char *rec_symtab_name(struct rec_symtab *st, const struct rec_sym *s)
{
	return display_name(st, (struct rec_sym *)s);
}

static int cmp_sym(const void *pa, const void *pb)
{
	const struct rec_sym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

struct sort_key {
	uint64_t start;
	uint32_t idx; /* in st->syms */
};

/*
 * Sorts st->syms by start, ties in order of addition (seq).  A library's
 * .symtab holds tens of thousands of symbols in no order: a radix sort of
 * (start, index) keys, a byte at a time from the lowest and skipping the
 * bytes every start has alike, then one pass to move the symbols, costs a
 * fraction of qsort's comparisons and copies of whole symbols.  It is
 * stable, so the ties keep the array's order: that of addition unless
 * symbols were added to a table already finished (then qsort).
 */
static void sort_syms(struct rec_symtab *st)
{
	size_t n = st->n;

	for (size_t i = 1; i < n; i++)
		if (st->syms[i - 1].seq >= st->syms[i].seq) {
			qsort(st->syms, n, sizeof(*st->syms), cmp_sym);
			return;
		}
	struct sort_key *k = ember_xreallocarray(NULL, n, 2 * sizeof(*k));
	struct sort_key *a = k, *b = k + n;
	uint64_t diff = 0;

	for (size_t i = 0; i < n; i++) {
		a[i].start = st->syms[i].start;
		a[i].idx = (uint32_t)i;
		diff |= a[i].start ^ a[0].start;
	}
	for (int shift = 0; shift < 64; shift += 8) {
		size_t count[256] = {0}, pos = 0;
		if (!((diff >> shift) & 0xff))
			continue;
		for (size_t i = 0; i < n; i++)
			count[(a[i].start >> shift) & 0xff]++;
		for (int d = 0; d < 256; d++) {
			size_t c = count[d];
			count[d] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++)
			b[count[(a[i].start >> shift) & 0xff]++] = a[i];
		struct sort_key *t = a;
		a = b;
		b = t;
	}
	/* symbol a[i].idx to i, in place: a cycle at a time, each place
	 * marked done by pointing at itself */
	for (size_t i = 0; i < n; i++) {
		if (a[i].idx == i)
			continue;
		struct rec_sym t = st->syms[i];
		size_t j = i;
		for (;;) {
			size_t from = a[j].idx;
			a[j].idx = (uint32_t)j;
			if (from == i) {
				st->syms[j] = t;
				break;
			}
			st->syms[j] = st->syms[from];
			j = from;
		}
	}
	free(k);
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol without the names: 1 when a should stay
 * rather than b, -1 when b should replace a, 0 when the names decide. */
static int prefer_by_kind(const struct rec_sym *a, const struct rec_sym *b)
{
	int sa = a->end > a->start, sb = b->end > b->start;
	if (sa != sb)
		return sa ? 1 : -1;
	/* not perf's: free rather than cfree, its old alias */
	if (a->compat != b->compat)
		return b->compat ? 1 : -1;
	int wa = a->bind == STB_WEAK, wb = b->bind == STB_WEAK;
	if (wa != wb)
		return wb ? 1 : -1;
	int ga = a->bind == STB_GLOBAL, gb = b->bind == STB_GLOBAL;
	if (ga != gb)
		return ga ? 1 : -1;
	return 0;
}

/* The names' part of choose_best_symbol: 1 when a should stay. */
static int prefer_by_name(struct rec_symtab *st, struct rec_sym *a,
			  struct rec_sym *b)
{
	const char *na = display_name(st, a), *nb = display_name(st, b);
	size_t ua = leading_underscores(na), ub = leading_underscores(nb);
	if (ua != ub)
		return ua < ub;
	size_t la = strlen(na), lb = strlen(nb);
	if (la != lb)
		return la > lb;
	return 1;
}

static void drop(struct rec_sym *s)
{
	free(s->demangled);
	s->demangled = NULL;
	s->name = NULL;
}

/*
 * s's name chosen from its aliases, st->alias[s->seq ...], s->nalias of
 * them in order of addition (s a copy of the first): they are alike but
 * for their names, end included, so only the name s takes is left.
 */
static void resolve_aliases(struct rec_symtab *st, struct rec_sym *s)
{
	struct rec_sym *a = &st->alias[s->seq];
	size_t n = s->nalias, keep = 0;

	s->nalias = 0;
	for (size_t i = 1; i < n; i++)
		if (!prefer_by_name(st, &a[keep], &a[i]))
			keep = i;
	uint64_t end = s->end;
	*s = a[keep];
	s->end = end;
	s->nalias = 0;
	a[keep].demangled = NULL;
	for (size_t i = 0; i < n; i++)
		drop(&a[i]);
}

/*
 * The symbols at syms[i, j), one start address, become one: the first
 * of the best by perf's rules.  When the best are alike but for their
 * names and those are to be demangled, the choice waits until the
 * symbol is named (most never are); the names' rule needs the demangled
 * names.  The symbol kept is written to *out.
 */
static void choose_alias(struct rec_symtab *st, size_t i, size_t j,
			 struct rec_sym *out)
{
	struct rec_sym *g = &st->syms[i];
	size_t n = j - i, best = 0, ties = 1, k;
	int same_end = 1;

	for (k = 1; k < n; k++) {
		int c = prefer_by_kind(&g[best], &g[k]);
		if (c < 0) {
			best = k;
			ties = 1;
			same_end = 1;
		} else if (!c) {
			ties++;
			same_end &= g[k].end == g[best].end;
		}
	}
	if (ties > 1 && ties <= UINT16_MAX && same_end && st->demangle &&
	    st->nalias + ties <= UINT32_MAX) {
		size_t at = st->nalias;
		EMBER_GROW(st->alias, at + ties, st->alias_alloc);
		for (k = best; k < n; k++)
			if (k == best || !prefer_by_kind(&g[best], &g[k]))
				st->alias[st->nalias++] = g[k];
			else
				drop(&g[k]);
		*out = st->alias[at];
		out->demangled = NULL;
		out->demangle_done = 0;
		out->seq = (uint32_t)at;
		out->nalias = (uint16_t)ties;
		return;
	}
	for (k = 0; k < n; k++) {
		if (k == best)
			continue;
		int c = prefer_by_kind(&g[best], &g[k]);
		if (c > 0 || (k < best && c == 0)) {
			drop(&g[k]);
			continue;
		}
		/* a tie after best: the names decide */
		if (prefer_by_name(st, &g[best], &g[k])) {
			drop(&g[k]);
		} else {
			drop(&g[best]);
			best = k;
		}
	}
	*out = g[best];
}

void rec_symtab_finish(struct rec_symtab *st)
{
	size_t i, j;

	if (!st->n)
		return;
	/* the room reserved for more given back (kallsyms reserves by the
	 * file's size: twice what it holds) */
	if (st->alloc > st->n + st->n / 8) {
		st->syms =
		    ember_xreallocarray(st->syms, st->n, sizeof(*st->syms));
		st->alloc = st->n;
	}
	/* kallsyms and most symbol tables come sorted already */
	for (i = 1; i < st->n && st->syms[i - 1].start <= st->syms[i].start;
	     i++)
		;
	if (i < st->n)
		sort_syms(st);
	if (st->kind == REC_SYMTAB_PERFMAP) {
		/* zero-sized entries cover nothing; keep the rest */
		for (i = j = 0; i < st->n; i++)
			if (st->syms[i].end > st->syms[i].start)
				st->syms[j++] = st->syms[i];
		st->n = j;
		return;
	}
	/* aliases: keep one symbol per start address */
	for (i = 0, j = 0; i < st->n;) {
		size_t k = i + 1;
		while (k < st->n && st->syms[k].start == st->syms[i].start)
			k++;
		if (k == i + 1) {
			st->syms[j++] = st->syms[i];
		} else if (st->kind == REC_SYMTAB_KALLSYMS) {
			/* perf sizes kallsyms' symbols before it resolves
			 * aliases, so only the last alias has a size */
			for (size_t m = i; m + 1 < k; m++)
				drop(&st->syms[m]);
			st->syms[j++] = st->syms[k - 1];
		} else {
			struct rec_sym keep;
			for (size_t m = i; m < k; m++)
				if (st->syms[m].ver)
					strip_version(st, &st->syms[m]);
			choose_alias(st, i, k, &keep);
			st->syms[j++] = keep;
		}
		i = k;
	}
	st->n = j;
	/* symbols without a size reach the next symbol */
	for (i = 0; i < st->n; i++) {
		struct rec_sym *s = &st->syms[i];
		if (s->end != s->start)
			continue;
		if (i + 1 == st->n)
			s->end = ((s->start + 4095) & ~4095ull) + 4096;
		else if (st->kind == REC_SYMTAB_KALLSYMS &&
			 s->module != st->syms[i + 1].module)
			/* not across the gap between the kernel and modules */
			s->end = (s->start + 4096 + 4095) & ~4095ull;
		else
			s->end = st->syms[i + 1].start;
	}
}

const struct rec_sym *rec_symtab_find(const struct rec_symtab *st,
				      uint64_t addr)
{
	size_t lo = 0, hi = st->n;

	/* the last symbol starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (st->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct rec_sym *best = NULL;
	/* nested or overlapping symbols: look a little further back.  A
	 * label inside a sized function (node's builtins have them) loses
	 * to the function, as in perf; perf maps: the newest entry wins. */
	for (size_t i = lo, k = 0; i-- > 0 && k < 16; k++) {
		const struct rec_sym *s = &st->syms[i];
		if (addr >= s->end)
			continue;
		if (st->kind == REC_SYMTAB_PERFMAP) {
			if (!best || s->seq > best->seq)
				best = s;
			continue;
		}
		if (s->sized)
			return s;
		if (!best)
			best = s;
	}
	return best;
}
