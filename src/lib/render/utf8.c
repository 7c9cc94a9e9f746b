/* UTF-8 decoding and XML escaping for the SVG writer. */
#include <string.h>

#include "render.h"

uint32_t ember_utf8_next(const char *str, size_t n, size_t *len)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t c = s[0], min;
	size_t need;

	*len = 1;
	if (c < 0x80)
		return c;
	if (c >= 0xc2 && c <= 0xdf) {
		need = 1, min = 0x80, c &= 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 2, min = 0x800, c &= 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3, min = 0x10000, c &= 0x07;
	} else {
		return c; /* invalid lead byte */
	}
	if (n <= need)
		return s[0];
	for (size_t i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return s[0];
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return s[0];
	*len = need + 1;
	return c;
}

size_t ember_utf8_count(const char *s, size_t n)
{
	size_t count = 0, i = 0, len;

	while (i < n) {
		if ((unsigned char)s[i] < 0x80) {
			i++;
		} else {
			ember_utf8_next(s + i, n - i, &len);
			i += len;
		}
		count++;
	}
	return count;
}

void ember_xml_escape(struct ember_buf *b, const char *s, size_t n, int quot)
{
	size_t i = 0, run = 0, len;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		const char *rep = NULL;
		if (c >= 0x20 && c < 0x7f && c != '&' && c != '<' && c != '>' &&
		    !(quot && c == '"')) {
			i++;
			continue;
		}
		if (c == '&')
			rep = "&amp;", len = 1;
		else if (c == '<')
			rep = "&lt;", len = 1;
		else if (c == '>')
			rep = "&gt;", len = 1;
		else if (c == '"')
			rep = "&quot;", len = 1;
		else if (c == '\t' || c == '\n' || c == '\r')
			len = 1; /* allowed in XML as they are */
		else if (c < 0x20)
			rep = "\xef\xbf\xbd", len = 1; /* not allowed: U+FFFD */
		else if (c == 0x7f)
			len = 1; /* DEL is allowed */
		else {
			uint32_t cp = ember_utf8_next(s + i, n - i, &len);
			/* invalid UTF-8, or a non-character XML forbids */
			if (len == 1 || cp == 0xfffe || cp == 0xffff)
				rep = "\xef\xbf\xbd";
		}
		if (rep) {
			ember_buf_add(b, s + run, i - run);
			ember_buf_adds(b, rep);
			run = i + len;
		}
		i += len;
	}
	ember_buf_add(b, s + run, n - run);
}
