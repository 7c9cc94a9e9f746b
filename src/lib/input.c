/*
 * Reading input: whole files and streams read in chunks of whole lines,
 * both with read(): a file mapped and truncated meanwhile would kill the
 * reader with SIGBUS.  Compressed data (gzip, xz, zstd, bzip2),
 * recognised by its magic bytes, is decompressed on the way
 * (decompress.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define FILE_CHUNK (1u << 20) /* bytes of a whole file read at a time */

static int is_stdin(const char *path)
{
	return !path || !strcmp(path, "-");
}

static int open_path(const char *path)
{
	if (is_stdin(path))
		return dup(0);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static int errno_code(void)
{
	switch (errno) {
	case ENOENT:
	case ENOTDIR:
		return EMBER_ENOENT;
	case EACCES:
	case EPERM:
		return EMBER_EPERM;
	case ENOMEM:
		return EMBER_ENOMEM;
	}
	return EMBER_EIO;
}

/* ---- reading files without mapping them ---- */

void ember_read_stop(uint64_t pos)
{
	static int stopped;
	const char *v = getenv("EMBER_READ_STOP_AT");
	char *end;

	if (!v || !*v || __atomic_load_n(&stopped, __ATOMIC_RELAXED))
		return;
	errno = 0;
	unsigned long long at = strtoull(v, &end, 10);
	if (errno || *end || pos < at)
		return;
	if (!__atomic_exchange_n(&stopped, 1, __ATOMIC_RELAXED))
		raise(SIGSTOP);
}

ssize_t ember_pread_full(int fd, void *p, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k =
		    pread(fd, (char *)p + got, n - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (!k)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

int ember_read_file(int fd, uint64_t size, char **p, size_t *n)
{
	/* room for a byte more than size: reading it tells the end */
	size_t alloc = (size_t)size + 4097, len = 0;
	char *buf;

	*p = NULL;
	*n = 0;
	if (size > SIZE_MAX - 8192)
		return EMBER_ENOMEM;
	buf = ember_xmalloc(alloc);
	for (;;) {
		if (alloc - len < 4097) {
			if (alloc > SIZE_MAX / 2) {
				free(buf);
				return EMBER_ENOMEM;
			}
			alloc *= 2; /* the file grows while read */
			buf = ember_xrealloc(buf, alloc);
		}
		size_t want = alloc - len - 1;
		if (want > FILE_CHUNK)
			want = FILE_CHUNK;
		ssize_t got = ember_pread_full(fd, buf + len, want, len);
		if (got < 0) {
			int err = errno_code();
			free(buf);
			return err;
		}
		len += (size_t)got;
		ember_read_stop(len);
		if ((size_t)got < want)
			break;
	}
	if (len < size) {
		free(buf);
		*n = len;
		return EMBER_ETRUNC;
	}
	buf[len] = '\0';
	*p = buf;
	*n = len;
	return 0;
}

static int read_all(int fd, struct ember_buf *b)
{
	for (;;) {
		if (b->alloc - b->len < 65536)
			ember_buf_grow(b, b->len < 65536 ? 65536 : b->len);
		ssize_t r = read(fd, b->buf + b->len, b->alloc - b->len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno_code();
		if (r == 0)
			break;
		b->len += (size_t)r;
	}
	b->buf[b->len] = '\0';
	return 0;
}

struct ember_input {
	const char *data;
	size_t len;
	const char *name; /* as given; "-" for standard input */
	char *buf;	  /* data */
};

int ember_input_load(struct ember_input **inp, const char *path)
{
	struct ember_buf b = EMBER_BUF_INIT;
	struct stat st;
	int fd, err = 0;

	*inp = NULL;
	fd = open_path(path);
	if (fd < 0)
		return errno_code();
	struct ember_input *in = ember_xcalloc(1, sizeof(*in));
	in->name = is_stdin(path) ? "-" : path;
	in->data = "";
	/* read, not mapped: a file cut short meanwhile must not kill us */
	if (fstat(fd, &st))
		st.st_mode = 0;
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		free(in);
		errno = EISDIR;
		return EMBER_EIO;
	}
	if (!is_stdin(path) && S_ISREG(st.st_mode)) {
		/* a file cut short while read is an error too */
		char *p;
		size_t n;
		err = ember_read_file(fd, (uint64_t)st.st_size, &p, &n);
		if (!err) {
			b.buf = p;
			b.len = n;
			b.alloc = n + 1;
		}
	} else {
		err = read_all(fd, &b);
	}
	close(fd);
	int codec = err ? 0 : ember_codec_detect(b.buf, b.len, 1);
	if (codec > 0) {
		struct ember_buf z = EMBER_BUF_INIT;
		err = ember_decompress(codec, b.buf, b.len, &z);
		ember_buf_release(&b);
		b = z;
	}
	if (err) {
		ember_buf_release(&b);
		free(in);
		return err;
	}
	in->buf = ember_buf_detach(&b, &in->len);
	in->data = in->buf;
	*inp = in;
	return 0;
}

const char *ember_input_data(const struct ember_input *in, size_t *len)
{
	*len = in->len;
	return in->data;
}

const char *ember_input_name(const struct ember_input *in)
{
	return in->name;
}

void ember_input_free(struct ember_input *in)
{
	if (!in)
		return;
	free(in->buf);
	free(in);
}

/* ---- streaming ---- */

#define CHUNK (1u << 18) /* bytes read at a time */

struct ember_reader {
	int fd;
	int eof;	/* no more decompressed bytes will come */
	int detected;	/* the first bytes were checked for magic bytes */
	int compressed; /* decompressing (dec: until the data ends) */
	int in_end;	/* no more compressed bytes will come */
	int err;	/* reported once everything before it is handed out */
	uint64_t pos, size;
	struct ember_dec *dec;
	unsigned char *raw; /* compressed bytes: [next, next + avail) */
	const unsigned char *next;
	size_t avail;
	char *buf; /* decompressed bytes: [0, len) */
	size_t len, alloc;
	size_t keep;	 /* bytes of buf handed out by the last call */
	size_t scanned;	 /* buf[0, scanned) holds no newline */
	size_t max_line; /* 0: pieces end anywhere */
};

int ember_reader_open(struct ember_reader **rp, const char *path)
{
	int fd = open_path(path);

	*rp = NULL;
	if (fd < 0)
		return errno_code();
	return ember_reader_fdopen(rp, fd);
}

int ember_reader_fdopen(struct ember_reader **rp, int fd)
{
	struct ember_reader *r;
	struct stat st;

	*rp = NULL;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		errno = EISDIR;
		return EMBER_EIO;
	}
	r = ember_xcalloc(1, sizeof(*r));
	r->fd = fd;
	if (S_ISREG(st.st_mode)) {
		/* what is left from the offset on (standard input may be a
		 * file read in part already) */
		off_t at = lseek(fd, 0, SEEK_CUR);
		if (at >= 0 && at < st.st_size)
			r->size = (uint64_t)(st.st_size - at);
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	}
	r->alloc = 2 * CHUNK;
	r->buf = ember_xmalloc(r->alloc + 1);
	r->max_line = EMBER_MAX_LINE;
	*rp = r;
	return 0;
}

void ember_reader_set_max_line(struct ember_reader *r, size_t max)
{
	r->max_line = max;
}

static ssize_t raw_read(struct ember_reader *r, void *p, size_t n)
{
	for (;;) {
		ssize_t got = read(r->fd, p, n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got > 0) {
			r->pos += (uint64_t)got;
			ember_read_stop(r->pos);
		}
		return got;
	}
}

/* The error of an end of file: a regular file that ends before the size
 * it had when opened was cut short while read. */
static int end_code(const struct ember_reader *r)
{
	return r->size && r->pos < r->size ? EMBER_ETRUNC : 0;
}

static void dec_end(struct ember_reader *r, int err)
{
	ember_dec_free(r->dec);
	r->dec = NULL;
	r->eof = 1;
	if (err && !r->err)
		r->err = err;
}

/* Starts decompressing: the len bytes at buf are the first compressed
 * ones. */
static void dec_start(struct ember_reader *r, int codec)
{
	r->raw = ember_xmalloc(r->len > CHUNK ? r->len : CHUNK);
	memcpy(r->raw, r->buf, r->len);
	r->next = r->raw;
	r->avail = r->len;
	r->len = 0;
	r->compressed = 1;
	r->eof = 0;
	r->err = 0;
	if (ember_dec_new(&r->dec, codec))
		dec_end(r, EMBER_ENOMEM);
}

/* Appends up to `room` decompressed bytes at buf + len (at least one byte
 * unless the input ends or fails). */
static void fill(struct ember_reader *r, size_t room)
{
	if (!r->compressed) {
		ssize_t got = raw_read(r, r->buf + r->len, room);
		if (got < 0) {
			r->err = errno_code();
			r->eof = 1;
			return;
		}
		if (got == 0) {
			r->eof = 1;
			r->err = end_code(r);
		}
		r->len += (size_t)got;
		if (!r->detected) {
			/* a few bytes more may tell */
			int codec = ember_codec_detect(r->buf, r->len, r->eof);
			r->detected = codec >= 0;
			if (codec > 0)
				dec_start(r, codec);
		}
		if (!r->compressed)
			return;
	}
	size_t before = r->len;
	while (r->len == before && !r->eof) {
		if (!r->avail && !r->in_end) {
			ssize_t got = raw_read(r, r->raw, CHUNK);
			if (got < 0) {
				dec_end(r, errno_code());
				break;
			}
			r->in_end = !got;
			r->next = r->raw;
			r->avail = (size_t)got;
		}
		size_t made;
		int rc = ember_dec_run(r->dec, &r->next, &r->avail, r->in_end,
				       r->buf + r->len, room, &made);
		r->len += made;
		/* the data ends (bytes after it are ignored), or is corrupt
		 * or cut short: ETRUNC when the file was cut while read */
		if (rc == 1)
			dec_end(r, r->in_end ? end_code(r) : 0);
		else if (rc < 0)
			dec_end(r,
				rc == EMBER_EFORMAT && r->in_end && end_code(r)
				    ? end_code(r)
				    : rc);
	}
}

/* Drops what was handed out last time. */
static void drop_kept(struct ember_reader *r)
{
	if (r->keep) {
		memmove(r->buf, r->buf + r->keep, r->len - r->keep);
		r->len -= r->keep;
		r->keep = 0;
		r->scanned = 0;
	}
}

int ember_reader_peek(struct ember_reader *r, const char **p, size_t *len)
{
	drop_kept(r);
	while (r->len < CHUNK && !r->eof)
		fill(r, CHUNK - r->len);
	*p = r->buf;
	*len = r->len;
	return r->len ? 1 : r->err;
}

int ember_reader_next(struct ember_reader *r, const char **p, size_t *len)
{
	drop_kept(r);
	for (;;) {
		/* hand out everything up to the last newline (only the new
		 * bytes are searched: a long line is scanned once) */
		char *nl = NULL;
		if (r->len > r->scanned)
			nl = memrchr(r->buf + r->scanned, '\n',
				     r->len - r->scanned);
		if (!nl && !r->keep && r->len > r->scanned)
			r->scanned = r->len;
		if (!r->max_line && r->len && (r->len >= CHUNK || r->eof))
			r->keep = r->len; /* not lines: any piece will do */
		else if (nl && (r->len >= CHUNK || r->eof))
			r->keep = (size_t)(nl - r->buf) + 1;
		else if (r->eof && r->scanned == r->len)
			r->keep = r->len; /* a last line without a newline */
		else if (r->max_line && r->scanned == r->len &&
			 r->len > r->max_line)
			return EMBER_ETOOLONG;
		if (r->keep) {
			*p = r->buf;
			*len = r->keep;
			return 1;
		}
		if (r->eof)
			return r->err;
		if (r->alloc - r->len < CHUNK) {
			/* doubling, but no further than a refused line needs */
			size_t a = r->alloc * 2;
			if (r->max_line && a > r->max_line + 2 * CHUNK)
				a = r->max_line + 2 * CHUNK;
			if (a < r->len + CHUNK)
				a = r->len + CHUNK;
			r->alloc = a;
			r->buf = ember_xrealloc(r->buf, r->alloc + 1);
		}
		fill(r, CHUNK);
	}
}

uint64_t ember_reader_pos(const struct ember_reader *r)
{
	return r->pos;
}

uint64_t ember_reader_size(const struct ember_reader *r)
{
	return r->size;
}

void ember_reader_close(struct ember_reader *r)
{
	if (!r)
		return;
	ember_dec_free(r->dec);
	close(r->fd);
	free(r->raw);
	free(r->buf);
	free(r);
}
