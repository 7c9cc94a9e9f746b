/*
 * --nameattr: attributes for the frames of named functions, read from a
 * file of "function<TAB>key=value..." lines (keys: title, id, class, href,
 * target, g_extra, a_extra; others are ignored, as flamegraph.pl does).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nameattr.h"

struct ember_nameattr {
	struct ember_intern names; /* function -> index into ents */
	struct ember_nameattr_ent *ents;
	size_t alloc;
	struct ember_arena arena;
};

static const char *dup(struct ember_nameattr *na, const char *s, size_t n)
{
	return ember_arena_strndup(&na->arena, s, n);
}

int ember_nameattr_load(struct ember_nameattr **out, const char *path)
{
	struct ember_input *in;
	int err = ember_input_load(&in, path);

	*out = NULL;
	if (err)
		return err == EMBER_ENOENT ? (errno = ENOENT, EMBER_EIO) : err;
	struct ember_nameattr *na = ember_xcalloc(1, sizeof(*na));
	ember_intern_init(&na->names);
	ember_arena_init(&na->arena);

	size_t len;
	const char *p = ember_input_data(in, &len), *end = p + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		const char *tab = memchr(p, '\t', (size_t)(eol - p));
		if (!tab) {
			if (eol > p) { /* flamegraph.pl dies here too */
				err = EMBER_EFORMAT;
				break;
			}
			p = nl ? nl + 1 : end;
			continue;
		}
		uint32_t id = ember_intern(&na->names, p, (size_t)(tab - p));
		EMBER_GROW(na->ents, id + 1, na->alloc);
		struct ember_nameattr_ent *e = &na->ents[id];
		memset(e, 0, sizeof(*e)); /* a later line replaces an earlier */
		const char *f = tab + 1;
		while (f <= eol) {
			const char *fe = memchr(f, '\t', (size_t)(eol - f));
			if (!fe)
				fe = eol;
			const char *eq = memchr(f, '=', (size_t)(fe - f));
			if (eq) {
				size_t kn = (size_t)(eq - f);
				const char *v =
				    dup(na, eq + 1, (size_t)(fe - eq - 1));
				if (kn == 5 && !memcmp(f, "title", 5))
					e->title = v;
				else if (kn == 2 && !memcmp(f, "id", 2))
					e->id = v;
				else if (kn == 5 && !memcmp(f, "class", 5))
					e->klass = v;
				else if (kn == 7 && !memcmp(f, "g_extra", 7))
					e->g_extra = v;
				else if (kn == 4 && !memcmp(f, "href", 4))
					e->href = v;
				else if (kn == 6 && !memcmp(f, "target", 6))
					e->target = v;
				else if (kn == 7 && !memcmp(f, "a_extra", 7))
					e->a_extra = v;
			}
			f = fe + 1;
		}
		p = nl ? nl + 1 : end;
	}
	ember_input_free(in);
	if (err) {
		ember_nameattr_free(na);
		return err;
	}
	*out = na;
	return 0;
}

void ember_nameattr_free(struct ember_nameattr *na)
{
	if (!na)
		return;
	ember_intern_release(&na->names);
	ember_arena_release(&na->arena);
	free(na->ents);
	free(na);
}

const struct ember_nameattr_ent *
ember_nameattr_find(const struct ember_nameattr *na, const char *name,
		    size_t len)
{
	uint32_t id = ember_intern_find(&na->names, name, len);
	return id == UINT32_MAX ? NULL : &na->ents[id];
}

static void attr(struct ember_buf *b, const char *key, const char *val)
{
	if (!val || !*val)
		return;
	ember_buf_addch(b, ' ');
	ember_buf_adds(b, key);
	ember_buf_adds(b, "=\"");
	ember_xml_escape(b, val, strlen(val), 1);
	ember_buf_addch(b, '"');
}

static void raw(struct ember_buf *b, const char *text)
{
	if (!text || !*text)
		return;
	ember_buf_addch(b, ' ');
	ember_buf_adds(b, text); /* *_extra: attribute text, as given */
}

void ember_nameattr_open(struct ember_buf *b,
			 const struct ember_nameattr_ent *e)
{
	if (!e) {
		ember_buf_adds(b, "<g>");
		return;
	}
	if (e->href && *e->href) {
		ember_buf_adds(b, "<a");
		attr(b, "xlink:href", e->href);
		attr(b, "target", e->target && *e->target ? e->target : "_top");
		raw(b, e->a_extra);
	} else {
		ember_buf_adds(b, "<g");
	}
	attr(b, "id", e->id);
	attr(b, "class", e->klass);
	raw(b, e->g_extra);
	ember_buf_addch(b, '>');
}

void ember_nameattr_close(struct ember_buf *b,
			  const struct ember_nameattr_ent *e)
{
	ember_buf_adds(b, e && e->href && *e->href ? "</a>" : "</g>");
}
