/*
 * Where input comes from: a reader (compressed data, pipes), a plain file read
 * directly (so that threads' jobs are filled without another copy), or a
 * buffer.  src_next hands out pieces that end at line boundaries (but the
 * input's last); src_fill appends to a job whatever comes next; a format
 * not made of lines takes the input whole (collapse_input).  Files are
 * read, never mapped: one cut short while read must end in EMBER_ETRUNC,
 * not SIGBUS.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver.h"

/* Reads up to n bytes: how many (0 at the end), or EMBER_EIO, or
 * EMBER_ETRUNC when the file ends before the size it had when opened. */
static ssize_t fd_read(struct source *s, char *p, size_t n)
{
	if (s->eof)
		return s->err;
	for (;;) {
		ssize_t got = read(s->fd, p, n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 || (!got && s->pos < s->size)) {
			s->eof = 1;
			s->err = got < 0 ? EMBER_EIO : EMBER_ETRUNC;
			return s->err;
		}
		if (!got)
			s->eof = 1;
		s->pos += (size_t)got;
		ember_read_stop(s->pos);
		return got;
	}
}

void src_raw(struct source *s)
{
	s->raw = 1;
	if (s->r)
		ember_reader_set_max_line(s->r, 0);
}

/* Drops the bytes of buf handed out last time. */
static void drop_kept(struct source *s)
{
	if (s->keep) {
		memmove(s->buf, s->buf + s->keep, s->blen - s->keep);
		s->blen -= s->keep;
		s->keep = 0;
		s->scanned = 0;
	}
}

/* Makes room in buf for PIECE more bytes. */
static void reserve(struct source *s)
{
	if (s->balloc - s->blen < PIECE) {
		size_t a = s->balloc ? s->balloc * 2 : 2 * PIECE;
		if (a > EMBER_MAX_LINE + 2 * PIECE)
			a = EMBER_MAX_LINE + 2 * PIECE;
		if (a < s->blen + PIECE)
			a = s->blen + PIECE;
		s->balloc = a;
		s->buf = ember_xrealloc(s->buf, s->balloc);
	}
}

int src_peek(struct source *s, const char **p, size_t *n)
{
	if (s->r)
		return ember_reader_peek(s->r, p, n);
	if (s->fd < 0) {
		*p = s->data + s->pos;
		*n = s->len - s->pos < PIECE ? s->len - s->pos : PIECE;
		return *n ? 1 : 0;
	}
	drop_kept(s);
	while (s->blen < PIECE && !s->eof) {
		reserve(s);
		ssize_t got = fd_read(s, s->buf + s->blen, PIECE - s->blen);
		if (got < 0)
			return (int)got;
		s->blen += (size_t)got;
	}
	*p = s->buf;
	*n = s->blen;
	return s->blen ? 1 : s->err;
}

int src_next(struct source *s, const char **p, size_t *n)
{
	if (s->r)
		return ember_reader_next(s->r, p, n);
	if (s->fd < 0) {
		if (s->pos >= s->len)
			return 0;
		size_t take = s->len - s->pos;
		if (take > PIECE) {
			/* up to the last newline, or the end of a long line */
			const char *at = s->data + s->pos;
			const char *nl = memrchr(at, '\n', PIECE);
			if (!nl)
				nl = memchr(at + PIECE, '\n', take - PIECE);
			if (nl)
				take = (size_t)(nl - at) + 1;
		}
		*p = s->data + s->pos;
		*n = take;
		s->pos += take;
		return 1;
	}
	drop_kept(s);
	for (;;) {
		/* only the bytes new since the last look are searched */
		const char *nl = NULL;
		if (s->blen > s->scanned)
			nl = memrchr(s->buf + s->scanned, '\n',
				     s->blen - s->scanned);
		if (!nl)
			s->scanned = s->blen;
		if (s->raw && s->blen && (s->blen >= PIECE || s->eof))
			s->keep = s->blen; /* not lines: any piece will do */
		else if (nl && (s->blen >= PIECE || s->eof))
			s->keep = (size_t)(nl - s->buf) + 1;
		else if (s->eof && s->scanned == s->blen)
			s->keep = s->blen; /* a last line without a newline */
		else if (!s->raw && s->scanned == s->blen &&
			 s->blen > EMBER_MAX_LINE)
			return EMBER_ETOOLONG;
		if (s->keep) {
			*p = s->buf;
			*n = s->keep;
			return 1;
		}
		if (s->eof)
			return s->err;
		reserve(s);
		ssize_t got = fd_read(s, s->buf + s->blen, s->balloc - s->blen);
		if (got < 0)
			return (int)got;
		s->blen += (size_t)got;
	}
}

/* Room for n more bytes; a job's first buffer is `first` bytes. */
static void job_reserve(struct job *j, size_t n, size_t first)
{
	if (j->len + n + 1 > j->alloc) {
		size_t a = j->alloc ? j->alloc : first;
		while (a < j->len + n + 1)
			a *= 2;
		j->buf = ember_xrealloc(j->buf, a);
		j->alloc = a;
	}
}

/* A job is filled up to job_size and the piece that crosses it: from
 * memory or a reader, the pieces are as big as the input at most, so a
 * small input (a pipe's, or the fuzz targets' tiny jobs) makes small
 * jobs rather than a megabyte each. */
void job_append(struct job *j, const char *p, size_t n, size_t job_size)
{
	job_reserve(j, n, job_size + (n < PIECE ? n : PIECE) + 4096);
	memcpy(j->buf + j->len, p, n);
	j->len += n;
}

int src_fill(struct source *s, struct job *j, size_t job_size)
{
	const char *p;
	size_t n;

	if (s->fd >= 0) {
		if (s->blen > s->keep) {
			/* bytes read before (to guess the format) */
			job_append(j, s->buf + s->keep, s->blen - s->keep,
				   job_size);
			s->blen = s->keep = s->scanned = 0;
			return 1;
		}
		if (s->eof)
			return s->err;
		/* into the room there is, which job_size + PIECE leaves */
		job_reserve(j, 4096, job_size + PIECE + 4096);
		size_t room = j->alloc - j->len - 1;
		ssize_t got =
		    fd_read(s, j->buf + j->len, room < PIECE ? room : PIECE);
		if (got < 0)
			return (int)got;
		j->len += (size_t)got;
		return got > 0;
	}
	int rc = src_next(s, &p, &n);
	if (rc == 1)
		job_append(j, p, n, job_size);
	return rc;
}

size_t src_unread(struct source *s, const char *p, size_t n)
{
	const char *nl = memrchr(p, '\n', n);
	size_t whole = nl ? (size_t)(nl - p) + 1 : 0;

	if (s->fd < 0 || whole == n)
		return n;
	size_t tail = n - whole;
	drop_kept(s);
	if (s->balloc < s->blen + tail) {
		s->balloc = s->blen + tail + PIECE;
		s->buf = ember_xrealloc(s->buf, s->balloc);
	}
	memmove(s->buf + tail, s->buf, s->blen);
	memcpy(s->buf, p + whole, tail);
	s->blen += tail;
	return whole;
}

uint64_t src_size(const struct source *s)
{
	return s->r ? ember_reader_size(s->r) : s->size;
}

uint64_t src_pos(const struct source *s)
{
	return s->r ? ember_reader_pos(s->r) : s->pos;
}

int src_open(struct source *s, const char *path)
{
	struct stat st;
	unsigned char magic[16];
	ssize_t got;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (path && strcmp(path, "-")) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
		    (got = pread(fd, magic, sizeof(magic), 0)) >= 0 &&
		    ember_codec_detect(magic, (size_t)got, 1) <= 0) {
			posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
			s->fd = fd;
			s->size = (uint64_t)st.st_size;
			return 0;
		}
		/* anything else is read once, from this descriptor: a FIFO
		 * opened again would wait for another writer */
		if (fd >= 0)
			return ember_reader_fdopen(&s->r, fd);
	}
	return ember_reader_open(&s->r, path);
}

void src_close(struct source *s)
{
	if (s->r)
		ember_reader_close(s->r);
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
}

void src_mem(struct source *s, const char *data, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->data = data;
	s->len = s->size = len;
}

/* ---- an input taken whole ---- */

int cl_input_next(struct collapse_input *in, const char **p, size_t *n)
{
	return src_next(in->src, p, n);
}

int cl_input_all(struct collapse_input *in, const char **p, size_t *n)
{
	struct source *s = in->src;
	struct ember_buf b = EMBER_BUF_INIT;
	const char *q;
	size_t qn;
	int rc;

	if (s->fd < 0 && !s->r) {
		*p = s->data; /* in memory already */
		*n = s->len;
		return 0;
	}
	if (s->fd >= 0) {
		/* read whole, from the start (whatever src_peek took), not
		 * mapped: a file cut short meanwhile must not kill us */
		rc = ember_read_file(s->fd, s->size, &in->all, n);
		if (rc == EMBER_ETRUNC)
			s->pos = *n; /* how far it went, for the message */
		*p = in->all;
		return rc;
	}
	while ((rc = cl_input_next(in, &q, &qn)) == 1)
		ember_buf_add(&b, q, qn);
	if (rc < 0) {
		ember_buf_release(&b);
		return rc;
	}
	in->all = ember_buf_detach(&b, n);
	*p = in->all;
	return 0;
}

int cl_input_fd(const struct collapse_input *in)
{
	return in->src->fd;
}

const char *cl_input_name(const struct collapse_input *in)
{
	return in->name;
}

void collapse_input_release(struct collapse_input *in)
{
	free(in->all);
	in->all = NULL;
}
