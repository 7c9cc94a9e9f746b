/*
 * Kernel symbols from /proc/kallsyms ("ffffffff81000000 T _stext", module
 * symbols with a "\t[module]" suffix).  Text symbols (t, T, w, W) only, as
 * perf keeps them; their sizes come from the next symbol.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "record/symtab.h"

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t rec_kallsyms_parse(struct rec_symtab *st, const char *p, size_t n)
{
	const char *end = p + n;
	size_t added = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		const char *q = p;
		uint64_t addr = 0;
		int digits = 0, v;
		while (q < eol && (v = hexval((unsigned char)*q)) >= 0 &&
		       digits < 16) {
			addr = addr << 4 | (uint64_t)v;
			q++;
			digits++;
		}
		if (!digits || q + 3 > eol || q[0] != ' ' || q[2] != ' ')
			goto next;
		char type = q[1];
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			goto next;
		const char *name = q + 3;
		const char *ne = name;
		while (ne < eol && *ne != '\t' && *ne != ' ')
			ne++;
		if (ne == name)
			goto next;
		int bind = type == 'T'	 ? STB_GLOBAL
			   : type == 't' ? STB_LOCAL
					 : STB_WEAK;
		rec_symtab_add(st, addr, 0, name, (size_t)(ne - name), bind, 1);
		st->syms[st->n - 1].module = ne < eol && ne[0] == '\t';
		added++;
	next:
		p = eol + 1;
	}
	return added;
}

int rec_kallsyms_load(struct rec_symtab *st, const char *path)
{
	struct ember_buf b = EMBER_BUF_INIT;
	int fd = open(path ? path : "/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return errno == ENOENT ? EMBER_ENOENT : EMBER_EPERM;
	for (;;) {
		ember_buf_grow(&b, 1 << 20);
		ssize_t n = read(fd, b.buf + b.len, b.alloc - b.len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = EMBER_EIO;
			break;
		}
		if (n == 0)
			break;
		ember_buf_setlen(&b, b.len + (size_t)n);
	}
	close(fd);
	if (!err) {
		size_t before = st->n;
		rec_kallsyms_parse(st, b.buf, b.len);
		/* kernel.kptr_restrict shows every address as 0 */
		int visible = 0;
		for (size_t i = before; i < st->n && !visible; i++)
			visible = st->syms[i].start != 0;
		if (st->n > before && !visible)
			err = EMBER_EPERM;
		else if (st->n == before)
			err = EMBER_EFORMAT;
		if (err)
			st->n = before;
	}
	ember_buf_release(&b);
	return err;
}
