/*
 * Names for the recorded frames, once per unique frame, after recording:
 * kernel addresses from /proc/kallsyms, file offsets from the file's ELF
 * symbols (or its separate debug file's), JIT addresses from the process's
 * perf map.  Each name is then folded as `perf script | ember collapse
 * perf` would fold it: a frame without a symbol is "[module basename]",
 * "[unknown]" outside any mapping, and --kernel/--jit add "_[k]"/"_[j]".
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "record/record.h"

struct symctx {
	struct ember_record *r;
	struct rec_symtab kernel;
	int kernel_state; /* 0 untried, 1 loaded, -1 unavailable */
	struct ember_buf raw, out;
};

/* ---- folding names as stackcollapse-perf does ------------------------- */

static int go_method(const char *s, size_t n)
{
	/* ".(...)." as in "net/http.(*Client).Do": keep the parentheses */
	for (size_t i = 0; i + 1 < n; i++) {
		if (s[i] != '.' || s[i + 1] != '(')
			continue;
		for (size_t j = i + 2; j + 1 < n; j++)
			if (s[j] == ')' && s[j + 1] == '.')
				return 1;
	}
	return 0;
}

/* Where a parameter list starts: the first '(' outside <...>, {...} and
 * [...] that does not open "(anonymous namespace)"; n if none. */
static size_t params_start(const char *s, size_t n)
{
	static const char anon[] = "(anonymous namespace)";
	int depth = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '<' || c == '{' || c == '[')
			depth++;
		else if ((c == '>' || c == '}' || c == ']') && depth > 0)
			depth--;
		else if (c == '(' && !depth) {
			if (n - i >= sizeof(anon) - 1 &&
			    !memcmp(s + i, anon, sizeof(anon) - 1)) {
				i += sizeof(anon) - 2;
				continue;
			}
			/* "operator()" is a name, not parameters */
			if (i >= 8 && !memcmp(s + i - 8, "operator", 8) &&
			    i + 1 < n && s[i + 1] == ')') {
				i++;
				continue;
			}
			return i;
		}
	}
	return n;
}

void rec_fold_name(struct ember_buf *out, const char *name, size_t len)
{
	size_t end = go_method(name, len) ? len : params_start(name, len);

	for (size_t i = 0; i < end; i++) {
		char c = name[i];
		if (c == ';')
			ember_buf_addch(out, ':');
		else if (c != '"' && c != '\'')
			ember_buf_addch(out, c);
	}
}

/* ---- symbol sources --------------------------------------------------- */

static const char *kernel_sym(struct symctx *c, uint64_t addr)
{
	if (!c->kernel_state) {
		rec_symtab_init(&c->kernel, REC_SYMTAB_KALLSYMS);
		int err = rec_kallsyms_load(&c->kernel, NULL);
		c->kernel_state = err ? -1 : 1;
		if (err == EMBER_EPERM)
			ember_log(EMBER_LOG_WARN,
				  "kernel symbols are hidden by "
				  "kernel.kptr_restrict: set it to 0, or run "
				  "as root, to name kernel frames");
		else if (err)
			ember_log(EMBER_LOG_WARN,
				  "cannot read /proc/kallsyms: kernel frames "
				  "stay unnamed");
		rec_symtab_finish(&c->kernel);
	}
	const struct rec_sym *s =
		c->kernel_state > 0 ? rec_symtab_find(&c->kernel, addr) : NULL;
	return s ? s->name : NULL;
}

static int load_vdso(struct rec_elf *e)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	char line[512];
	size_t size = 0;
	FILE *f;

	if (!base || !(f = fopen("/proc/self/maps", "re")))
		return EMBER_ENOENT;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%llx-%llx", &lo, &hi) == 2 && lo == base) {
			size = (size_t)(hi - lo);
			break;
		}
	}
	fclose(f);
	if (!size)
		return EMBER_ENOENT;
	return rec_elf_open_mem(e, (const void *)base, size);
}

static void load_dso(struct rec_dso *d)
{
	int err = EMBER_ENOENT;

	d->loaded = 1;
	d->elf.fd = d->debug.fd = -1;
	rec_symtab_init(&d->syms, REC_SYMTAB_ELF);
	d->syms.demangle = 1;
	if (d->kind == REC_DSO_VDSO)
		err = load_vdso(&d->elf);
	else if (d->kind == REC_DSO_FILE && !d->deleted)
		err = rec_elf_open(&d->elf, d->path);
	if (err) {
		if (d->kind == REC_DSO_FILE && !d->deleted)
			ember_log(EMBER_LOG_INFO, "no symbols for '%s'",
				  d->path);
		return;
	}
	d->usable = 1;
	if (d->kind == REC_DSO_FILE &&
	    !rec_debuginfo_open(&d->elf, d->path, NULL, &d->debug, NULL)) {
		if (d->debug.has_symtab)
			d->has_debug = 1;
		else
			rec_elf_close(&d->debug);
	}
	if (d->has_debug)
		rec_elf_symbols(&d->debug, &d->syms, 0);
	else if (!rec_elf_symbols(&d->elf, &d->syms, 0))
		rec_elf_symbols(&d->elf, &d->syms, 1);
	rec_elf_plt_symbols(&d->elf, &d->syms);
	rec_symtab_finish(&d->syms);
}

static const char *dso_sym(struct rec_dso *d, uint64_t off)
{
	uint64_t vaddr;

	if (!d->loaded)
		load_dso(d);
	if (!d->usable)
		return NULL;
	rec_elf_off_to_vaddr(&d->elf, off, &vaddr);
	const struct rec_sym *s = rec_symtab_find(&d->syms, vaddr);
	return s ? rec_symtab_name(&d->syms, s) : NULL;
}

static void load_perfmap(struct ember_record *r, struct rec_proc *p)
{
	struct ember_buf why = EMBER_BUF_INIT;

	rec_symtab_init(&p->perfmap, REC_SYMTAB_PERFMAP);
	int v = rec_perfmap_load(&p->perfmap, r->o.perfmap_dir, &p->owner,
				 &why);
	p->perfmap_state = v + 1;
	if (why.len)
		ember_log(EMBER_LOG_WARN, "%s", why.buf);
	ember_buf_release(&why);
	rec_symtab_finish(&p->perfmap);
}

static const char *jit_sym(struct ember_record *r, struct rec_proc *p,
			   uint64_t addr)
{
	/* a forked child runs its parent's JIT code too */
	for (int depth = 0; p && depth < 16; p = p->parent, depth++) {
		if (!p->perfmap_state)
			load_perfmap(r, p);
		const struct rec_sym *s = rec_symtab_find(&p->perfmap, addr);
		if (s)
			return s->name;
	}
	return NULL;
}

/* ---- one frame -------------------------------------------------------- */

static void name_frame(struct symctx *c, const struct rec_frame *f)
{
	struct ember_record *r = c->r;
	struct ember_buf *raw = &c->raw, *out = &c->out;
	const char *sym = NULL;
	int bracket_module = 0, jit = 0, java = 0;

	ember_buf_reset(raw);
	ember_buf_reset(out);
	switch (f->kind) {
	case REC_FRAME_KERNEL:
		sym = kernel_sym(c, f->addr);
		bracket_module = 1;
		if (!sym)
			ember_buf_adds(raw, "[[kernel.kallsyms]]");
		break;
	case REC_FRAME_DSO: {
		struct rec_dso *d = r->world.dsos[f->obj];
		sym = dso_sym(d, f->addr);
		bracket_module = d->path[0] == '[';
		if (!sym)
			ember_buf_addf(raw, "[%s]", d->base);
		break;
	}
	case REC_FRAME_JIT: {
		struct rec_proc *p = r->world.procs[f->obj];
		sym = jit_sym(r, p, f->addr);
		jit = 1;
		if (p->comm != UINT32_MAX) {
			const char *comm =
				ember_intern_str(&r->world.comms, p->comm, NULL);
			java = !strncmp(comm, "java", 4);
		}
		if (!sym)
			ember_buf_addf(raw, "[perf-%d.map]", p->pid);
		break;
	}
	default:
		ember_buf_adds(raw, "[unknown]");
		break;
	}
	if (sym)
		ember_buf_adds(raw, sym);
	const char *s = raw->buf;
	size_t n = raw->len;
	/* perf-map-agent's "Lcom/x/Y;.m": the JVM type letter goes */
	if (java && sym && s[0] == 'L' && memchr(s, '/', n)) {
		s++;
		n--;
	}
	rec_fold_name(out, s, n);
	if (r->o.annotate_kernel && bracket_module)
		ember_buf_adds(out, "_[k]");
	else if (r->o.annotate_jit && jit)
		ember_buf_adds(out, "_[j]");
}

void rec_symbolize(struct ember_record *r, struct ember_intern *names,
		   uint32_t *ids)
{
	struct symctx c;

	memset(&c, 0, sizeof(c));
	c.r = r;
	ember_buf_init(&c.raw, 256);
	ember_buf_init(&c.out, 256);
	for (size_t i = 0; i < r->frames.n; i++) {
		const struct rec_frame *f = &r->frames.v[i];
		if (f->kind == REC_FRAME_ROOT) {
			size_t len;
			const char *s = ember_intern_str(&r->roots, f->obj, &len);
			ids[i] = ember_intern(names, s, len);
			continue;
		}
		name_frame(&c, f);
		ids[i] = ember_intern(names, c.out.buf, c.out.len);
	}
	if (c.kernel_state)
		rec_symtab_release(&c.kernel);
	ember_buf_release(&c.raw);
	ember_buf_release(&c.out);
}
