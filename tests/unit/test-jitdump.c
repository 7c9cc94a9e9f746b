/* Unit tests of the jitdump reader: every record type, lookups by address
 * and time, line tables, code bytes, a dump read while it is written
 * (last record incomplete), and corrupt dumps. */
#include "harness.h"
#include "unwind-helpers.h"

/* A JIT_CODE_DEBUG_INFO for code at addr: entries at addr + 0, 8, 16
 * for lines 10, 11, 12; the second with the "same file" marker. */
static void jd_debug(struct bytes *o, uint64_t ts, uint64_t addr)
{
	static const char f1[] = "a.js", f2[] = "\xff";
	size_t size = 16 + 16 + 3 * 16 + sizeof(f1) + sizeof(f2) + sizeof(f1);

	jd_rec(o, 2, (uint32_t)size, ts);
	put64(o, addr);
	put64(o, 3);
	put64(o, addr);
	put32(o, 10);
	put32(o, 0);
	put(o, f1, sizeof(f1));
	put64(o, addr + 8);
	put32(o, 11);
	put32(o, 0);
	put(o, f2, sizeof(f2));
	put64(o, addr + 16);
	put32(o, 12);
	put32(o, 0);
	put(o, "b.js", 5);
}

static void jd_move(struct bytes *o, uint64_t ts, uint64_t from, uint64_t to,
		    uint64_t size, uint64_t index)
{
	jd_rec(o, 1, 16 + 48, ts);
	put32(o, 42);
	put32(o, 43);
	put64(o, to);
	put64(o, from);
	put64(o, to);
	put64(o, size);
	put64(o, index);
}

static void test_records(void)
{
	static const uint8_t code[16] = {0x55, 0x48, 0x89, 0xe5, 1, 2,	3,  4,
					 5,    6,    7,	   8,	 9, 10, 11, 12};
	static const uint8_t cfa16[] = {0x44, 0x0e, 0x10};
	struct bytes d = {0}, eh = {0};
	struct ember_jitdump *jd;
	const struct ember_jit_code *c;
	const char *file;
	int line;
	uint8_t buf[32];

	jd_header(&d, 42);
	jd_rec(&d, 99, 24, 1); /* unknown: skipped by its size */
	put64(&d, 0);
	jd_debug(&d, 2, 0x1000);
	jd_eh_for(&eh, 0x1000, 16, "zR", cfa16, sizeof(cfa16));
	jd_unwind(&d, 2, &eh);
	jd_load(&d, 3, 0x1000, 16, 1, "JS:*first", code);
	jd_load(&d, 4, 0x2000, 0x20, 2, "second", NULL);
	jd_move(&d, 5, 0x1000, 0x3000, 16, 1);
	jd_load(&d, 6, 0x1000, 8, 3, "reused", NULL);
	jd_rec(&d, 3, 16, 7); /* CLOSE */
	CHECK(ember_jitdump_from_memory(d.b, d.n, &jd) == 0);
	const struct ember_jitdump_info *in = ember_jitdump_info(jd);
	CHECK(in->pid == 42 && in->version == 1 && in->elf_mach == 62);
	CHECK(in->closed && in->records == 8 && in->bad_records == 0);
	CHECK(ember_jitdump_count(jd) == 4);

	/* the first code, at its time: name, lines, CFI, bytes */
	c = ember_jitdump_find(jd, 0x1004, 3);
	CHECK(c && !strcmp(c->name, "JS:*first") && c->index == 1);
	CHECK(c && c->end_time == 5 && c->nlines == 3 && c->eh_frame &&
	      c->eh_frame_addr == 0x1010);
	CHECK(ember_jitdump_line(c, 0x1004, &file, &line) == 0 && line == 10 &&
	      !strcmp(file, "a.js"));
	CHECK(ember_jitdump_line(c, 0x100a, &file, &line) == 0 && line == 11 &&
	      !strcmp(file, "a.js"));
	CHECK(ember_jitdump_line(c, 0x1010, &file, &line) == 0 && line == 12 &&
	      !strcmp(file, "b.js"));
	CHECK(ember_jitdump_line(c, 0xfff, &file, &line) == EMBER_ENOENT);
	CHECK(ember_jitdump_read_code(jd, c, 0x1000, buf, 32) == 16 &&
	      !memcmp(buf, code, 16));
	CHECK(ember_jitdump_read_code(jd, c, 0x100e, buf, 32) == 2 &&
	      buf[1] == 12);
	CHECK(ember_jitdump_read_code(jd, c, 0x1010, buf, 1) == 0);

	/* after the move, the same code elsewhere; the old address holds
	 * the code loaded later */
	c = ember_jitdump_find(jd, 0x3008, UINT64_MAX);
	CHECK(c && !strcmp(c->name, "JS:*first") && c->time == 5 &&
	      c->eh_frame_addr == 0x3010);
	CHECK(c && ember_jitdump_read_code(jd, c, 0x3000, buf, 4) == 4 &&
	      buf[0] == 0x55);
	c = ember_jitdump_find(jd, 0x1004, UINT64_MAX);
	CHECK(c && !strcmp(c->name, "reused"));
	c = ember_jitdump_find(jd, 0x100c, UINT64_MAX); /* reused is shorter */
	CHECK(c && !strcmp(c->name, "JS:*first"));
	c = ember_jitdump_find(jd, 0x1004, 4);
	CHECK(c && !strcmp(c->name, "JS:*first"));
	c = ember_jitdump_find(jd, 0x2010, UINT64_MAX);
	CHECK(c && !strcmp(c->name, "second") && !c->eh_frame &&
	      c->nlines == 0);
	CHECK(ember_jitdump_find(jd, 0x2020, UINT64_MAX) == NULL);
	CHECK(ember_jitdump_find(jd, 0xfff, UINT64_MAX) == NULL);
	CHECK(ember_jitdump_get(jd, 0) &&
	      !strcmp(ember_jitdump_get(jd, 0)->name, "JS:*first"));
	CHECK(ember_jitdump_get(jd, 4) == NULL);
	ember_jitdump_free(jd);
	free(d.b);
	free(eh.b);
}

/* Read while being written: whole records only, the rest on update. */
static void test_growing(void)
{
	char path[] = "/tmp/ember-test-jd-XXXXXX";
	int fd = mkstemp(path);
	struct bytes d = {0};
	struct ember_jitdump *jd;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	/* nothing yet, then half a header: an empty dump, no error */
	CHECK(ember_jitdump_open(path, &jd) == 0);
	CHECK(ember_jitdump_count(jd) == 0);
	jd_header(&d, 7);
	CHECK(write(fd, d.b, 20) == 20);
	CHECK(ember_jitdump_update(jd) == 0);
	jd_load(&d, 1, 0x1000, 8, 1, "one", NULL);
	jd_load(&d, 2, 0x2000, 8, 2, "two", NULL);
	size_t cut = d.n - 10;
	CHECK(write(fd, d.b + 20, cut - 20) == (ssize_t)(cut - 20));
	CHECK(ember_jitdump_update(jd) == 1);
	CHECK(ember_jitdump_count(jd) == 1);
	CHECK(ember_jitdump_find(jd, 0x2000, UINT64_MAX) == NULL);
	CHECK(ember_jitdump_update(jd) == 0);
	CHECK(write(fd, d.b + cut, d.n - cut) == (ssize_t)(d.n - cut));
	CHECK(ember_jitdump_update(jd) == 1);
	const struct ember_jit_code *c =
	    ember_jitdump_find(jd, 0x2004, UINT64_MAX);
	CHECK(c && !strcmp(c->name, "two"));
	CHECK(ember_jitdump_info(jd)->bytes == d.n);
	ember_jitdump_free(jd);
	/* a large dump, read across the reader's chunks */
	CHECK(ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0);
	d.n = 0;
	jd_header(&d, 7);
	static uint8_t big[300000];
	for (int i = 0; i < 20; i++)
		jd_load(&d, 10 + i, 0x100000 * (i + 1), sizeof(big), i, "big",
			big);
	CHECK(write(fd, d.b, d.n) == (ssize_t)d.n);
	CHECK(ember_jitdump_open(path, &jd) == 0);
	CHECK(ember_jitdump_count(jd) == 20);
	ember_jitdump_free(jd);
	close(fd);
	unlink(path);
	CHECK(ember_jitdump_open(path, &jd) == EMBER_ENOENT);
	free(d.b);
}

static void test_corrupt(void)
{
	struct bytes d = {0};
	struct ember_jitdump *jd;

	jd_header(&d, 1);
	set32(&d, 0, 0x4454694A); /* other byte order */
	CHECK(ember_jitdump_from_memory(d.b, d.n, &jd) == EMBER_ENOTSUP);
	set32(&d, 0, 0x12345678);
	CHECK(ember_jitdump_from_memory(d.b, d.n, &jd) == EMBER_EFORMAT);
	set32(&d, 0, 0x4A695444);
	set32(&d, 8, 12); /* header shorter than its fields */
	CHECK(ember_jitdump_from_memory(d.b, d.n, &jd) == EMBER_EFORMAT);
	set32(&d, 8, 48); /* a longer header: records after it */
	put64(&d, 0);
	jd_load(&d, 1, 0x1000, 4, 1, "a", NULL);
	/* records too short for their type are counted and skipped */
	jd_rec(&d, 0, 16 + 8, 2);
	put64(&d, 0);
	jd_rec(&d, 1, 16, 2);
	jd_rec(&d, 2, 16 + 4, 2);
	put32(&d, 0);
	jd_rec(&d, 4, 16 + 24, 2);
	put64(&d, 1000);
	put64(&d, 0);
	put64(&d, 0);
	/* a name without its NUL, code bytes missing */
	jd_rec(&d, 0, 16 + 40 + 3, 3);
	put32(&d, 1);
	put32(&d, 1);
	put64(&d, 0x5000);
	put64(&d, 0x5000);
	put64(&d, 64);
	put64(&d, 9);
	put(&d, "abc", 3);
	jd_load(&d, 4, 0x2000, 4, 2, "b", NULL);
	/* a record size below the record header: nothing after it */
	jd_rec(&d, 0, 8, 5);
	jd_load(&d, 6, 0x3000, 4, 3, "c", NULL);
	CHECK(ember_jitdump_from_memory(d.b, d.n, &jd) == 0);
	CHECK(ember_jitdump_count(jd) == 3);
	CHECK(ember_jitdump_info(jd)->bad_records == 5);
	const struct ember_jit_code *c =
	    ember_jitdump_find(jd, 0x5010, UINT64_MAX);
	uint8_t b[4];
	CHECK(c && !strcmp(c->name, "abc") && c->code_off == UINT64_MAX &&
	      ember_jitdump_read_code(jd, c, 0x5010, b, 4) == 0);
	CHECK(ember_jitdump_find(jd, 0x3000, UINT64_MAX) == NULL);
	ember_jitdump_free(jd);
	/* every truncation of a valid dump parses */
	d.n = 0;
	jd_header(&d, 1);
	jd_debug(&d, 1, 0x1000);
	jd_load(&d, 1, 0x1000, 24, 1, "x", NULL);
	for (size_t n = 0; n <= d.n; n++) {
		CHECK(ember_jitdump_from_memory(d.b, n, &jd) == 0);
		CHECK(ember_jitdump_count(jd) == (n == d.n));
		ember_jitdump_free(jd);
	}
	free(d.b);
}

int main(void)
{
	test_records();
	test_growing();
	test_corrupt();
	DONE();
}
