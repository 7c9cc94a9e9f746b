/* --nameattr FILE: per-function SVG attributes (title, links, classes). */
#ifndef EMBER_NAMEATTR_H
#define EMBER_NAMEATTR_H

#include "render.h"

struct ember_nameattr_ent {
	const char *title, *id, *klass, *g_extra, *href, *target, *a_extra;
};
struct ember_nameattr;

/* Reads FILE: "function<TAB>key=value<TAB>key=value..." lines.  Returns
 * EMBER_EIO (errno set) or EMBER_EFORMAT for a line without a tab. */
int ember_nameattr_load(struct ember_nameattr **na, const char *path);
void ember_nameattr_free(struct ember_nameattr *na);
const struct ember_nameattr_ent *
ember_nameattr_find(const struct ember_nameattr *na, const char *name,
		    size_t len);
/* Writes the frame's opening <g ...> or <a ...>, and its closing tag. */
void ember_nameattr_open(struct ember_buf *b,
			 const struct ember_nameattr_ent *e);
void ember_nameattr_close(struct ember_buf *b,
			  const struct ember_nameattr_ent *e);

#endif
