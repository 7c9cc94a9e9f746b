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
#include <stdlib.h>
#include <string.h>

#include "hugemem.h"
#include "symbols/symtab.h"

/* libiberty's header defines ARRAY_SIZE too */
#undef ARRAY_SIZE
#include <libiberty/demangle.h>

/* a bucket of a lazily finished table (rec_symtab_finish_lazy) */
struct rec_symbucket {
	uint32_t at; /* where its symbols start in st->syms */
	uint32_t n;  /* how many: fewer once resolved */
	int done;
};

void rec_symtab_init(struct rec_symtab *st, int kind)
{
	memset(st, 0, sizeof(*st));
	ember_arena_init(&st->arena);
	st->kind = kind;
}

void rec_symtab_release(struct rec_symtab *st)
{
	/* a lazy table's names are demangled in its finished buckets
	 * only */
	for (size_t b = 0; b < st->nbk; b++)
		for (size_t i = 0; st->bk[b].done && i < st->bk[b].n; i++)
			free(st->syms[st->bk[b].at + i].demangled);
	for (size_t i = 0; !st->bk && i < st->n; i++)
		free(st->syms[i].demangled);
	for (size_t i = 0; i < st->nalias; i++)
		free(st->alias[i].demangled);
	free(st->syms);
	free(st->alias);
	free(st->bk);
	ember_huge_unmap(st->text, st->text_size);
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
static void choose_alias(struct rec_symtab *st, struct rec_sym *g, size_t n,
			 struct rec_sym *out)
{
	size_t best = 0, ties = 1, k;
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

/*
 * Aliases: of the n sorted symbols at g, one kept per start address, in
 * place; returns how many are left.  The places after them hold copies
 * of some of those kept, their demangled names cleared.
 */
static size_t keep_one_per_start(struct rec_symtab *st, struct rec_sym *g,
				 size_t n)
{
	size_t i, j;

	for (i = 0, j = 0; i < n;) {
		size_t k = i + 1;
		while (k < n && g[k].start == g[i].start)
			k++;
		if (k == i + 1) {
			if (j != i) /* most starts are one symbol's */
				g[j] = g[i];
			j++;
		} else if (st->kind == REC_SYMTAB_KALLSYMS) {
			/* perf sizes kallsyms' symbols before it resolves
			 * aliases, so only the last alias has a size */
			for (size_t m = i; m + 1 < k; m++)
				drop(&g[m]);
			g[j++] = g[k - 1];
		} else {
			struct rec_sym keep;
			for (size_t m = i; m < k; m++)
				if (g[m].ver)
					strip_version(st, &g[m]);
			choose_alias(st, &g[i], k - i, &keep);
			g[j++] = keep;
		}
		i = k;
	}
	for (i = j; i < n; i++)
		g[i].demangled = NULL;
	return j;
}

/* An ELF table's symbols of empty names, which rec_elf_symbols adds
 * without reading their names, left out of the n at g, in place: how many
 * are left. */
static size_t drop_unnamed(const struct rec_symtab *st, struct rec_sym *g,
			   size_t n)
{
	size_t j = 0;

	if (st->kind != REC_SYMTAB_ELF)
		return n;
	for (size_t i = 0; i < n; i++)
		if (g[i].name[0]) {
			if (j != i)
				g[j] = g[i];
			j++;
		}
	return j;
}

void rec_symtab_finish(struct rec_symtab *st)
{
	size_t i, j;

	st->n = drop_unnamed(st, st->syms, st->n);
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
	st->n = keep_one_per_start(st, st->syms, st->n);
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

/*
 * Lazily finished tables.  A module's table is searched for a few
 * hundred addresses at most, and sorting and resolving tens of thousands
 * of symbols for them costs more than all of their lookups: the symbols
 * are put in buckets of 2^bk_shift addresses, about 16 a bucket, in
 * place, and a bucket is sorted (by start, then order of addition) and
 * resolved as rec_symtab_finish would (the same symbols in the same
 * order: aliases share a start, so a bucket) when a lookup first reaches
 * it, its symbols of empty names dropped first.  A symbol without a
 * size reaches the next one: the smallest start of the next bucket
 * holding any named one, which resolving keeps.  Laid end to end the
 * finished buckets are the array rec_symtab_finish makes.
 */
#define LAZY_MIN 1024

void rec_symtab_finish_lazy(struct rec_symtab *st)
{
	size_t n = st->n;
	uint64_t lo = UINT64_MAX, hi = 0;

	if (st->kind != REC_SYMTAB_ELF || n < LAZY_MIN) {
		rec_symtab_finish(st);
		return;
	}
	if (st->alloc > n + n / 8) {
		st->syms = ember_xreallocarray(st->syms, n, sizeof(*st->syms));
		st->alloc = n;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t a = st->syms[i].start;
		lo = a < lo ? a : lo;
		hi = a > hi ? a : hi;
	}
	int shift = 0;
	while (shift < 63 && ((hi - lo) >> shift) >= n / 16)
		shift++;
	size_t nb = (size_t)((hi - lo) >> shift) + 1;
	struct rec_symbucket *bk = ember_xcalloc(nb, sizeof(*bk));
	for (size_t i = 0; i < n; i++)
		bk[(st->syms[i].start - lo) >> shift].n++;
	/* in place, a symbol at a time to the next free place of its
	 * bucket (fill), and the one there taken next: the order within a
	 * bucket is lost, and restored by sorting by seq too */
	uint32_t *fill = ember_xreallocarray(NULL, nb, sizeof(*fill));
	uint32_t at = 0;
	for (size_t b = 0; b < nb; b++) {
		bk[b].at = fill[b] = at;
		at += bk[b].n;
	}
	struct rec_sym *v = st->syms;
	for (size_t b = 0; b < nb; b++) {
		uint32_t end = bk[b].at + bk[b].n;
		while (fill[b] < end) {
			struct rec_sym *s = &v[fill[b]];
			size_t to = (size_t)((s->start - lo) >> shift);
			if (to == b) {
				fill[b]++;
				continue;
			}
			struct rec_sym t = *s;
			*s = v[fill[to]];
			v[fill[to]++] = t;
		}
	}
	free(fill);
	st->bk = bk;
	st->nbk = nb;
	st->bk_base = lo;
	st->bk_shift = shift;
}

/* Sorted by start, ties in order of addition: a bucket holds a few. */
static void sort_bucket(struct rec_sym *g, size_t n)
{
	if (n > 32) {
		qsort(g, n, sizeof(*g), cmp_sym);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct rec_sym t = g[i];
		size_t j = i;
		for (; j > 0 && cmp_sym(&g[j - 1], &t) > 0; j--)
			g[j] = g[j - 1];
		g[j] = t;
	}
}

/* The smallest start of bucket c's named symbols into *min, and *last
 * cleared, when it has any (those of a bucket not finished yet are read
 * here: a few). */
static void bucket_min(const struct rec_symtab *st, size_t c, uint64_t *min,
		       int *last)
{
	const struct rec_symbucket *k = &st->bk[c];
	const struct rec_sym *g = st->syms + k->at;

	if (k->done) {
		if (k->n) {
			*min = g[0].start; /* sorted */
			*last = 0;
		}
		return;
	}
	for (size_t i = 0; i < k->n; i++)
		if (g[i].name[0] && (*last || g[i].start < *min)) {
			*min = g[i].start;
			*last = 0;
		}
}

static void finish_bucket(struct rec_symtab *st, size_t b)
{
	struct rec_symbucket *k = &st->bk[b];
	struct rec_sym *g = st->syms + k->at;

	if (k->done || !k->n)
		return;
	k->done = 1;
	k->n = (uint32_t)drop_unnamed(st, g, k->n);
	sort_bucket(g, k->n);
	k->n = (uint32_t)keep_one_per_start(st, g, k->n);
	uint64_t next = 0;
	int last = 1;
	for (size_t c = b + 1; c < st->nbk && last; c++)
		bucket_min(st, c, &next, &last);
	for (size_t i = 0; i < k->n; i++) {
		struct rec_sym *s = &g[i];
		if (s->end != s->start)
			continue;
		if (i + 1 < k->n)
			s->end = g[i + 1].start;
		else if (!last)
			s->end = next;
		else
			s->end = ((s->start + 4095) & ~4095ull) + 4096;
	}
}

/* rec_symtab_find in a lazily finished table */
static const struct rec_sym *find_lazy(struct rec_symtab *st, uint64_t addr)
{
	if (addr < st->bk_base)
		return NULL;
	uint64_t rel = (addr - st->bk_base) >> st->bk_shift;
	size_t b = rel >= st->nbk ? st->nbk - 1 : (size_t)rel;

	finish_bucket(st, b);
	const struct rec_sym *g = st->syms + st->bk[b].at;
	size_t lo = 0, hi = st->bk[b].n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* as rec_symtab_find: up to 16 symbols back from the last starting
	 * at or below addr, into the buckets before when it takes them */
	const struct rec_sym *best = NULL;
	for (size_t i = lo, k = 0; k < 16; k++) {
		while (!i && b > 0) {
			if (!st->bk[--b].n)
				continue;
			finish_bucket(st, b);
			g = st->syms + st->bk[b].at;
			i = st->bk[b].n;
		}
		if (!i)
			break;
		const struct rec_sym *s = &g[--i];
		if (addr >= s->end)
			continue;
		if (s->sized)
			return s;
		if (!best)
			best = s;
	}
	return best;
}

const struct rec_sym *rec_symtab_find(struct rec_symtab *st, uint64_t addr)
{
	size_t lo = 0, hi = st->n;

	if (st->bk)
		return find_lazy(st, addr);
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
