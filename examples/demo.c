/*
 * The program `make demo` profiles: a toy web server that answers
 * requests in a loop.  Each request is parsed, routed, rendered,
 * compressed and checksummed, and every so often the server sorts its
 * access log, so that its flame graph has a few clear towers to read.
 *
 *   cc -O1 -g -fno-omit-frame-pointer -fno-inline -o demo examples/demo.c
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096

static uint32_t seed = 12345;

static uint32_t next_random(void)
{
	seed = seed * 1103515245u + 12345u;
	return seed >> 8;
}

/* ---- parsing ---- */

static size_t tokenize(const char *s, size_t n, size_t *starts)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] == ' ' || s[i] == '/' || s[i] == '?' || s[i] == '&')
			starts[k++] = i + 1;
	return k;
}

static int parse_header(const char *s, size_t n)
{
	int v = 0;
	for (int r = 0; r < 300; r++)
		for (size_t i = 0; i < n; i++)
			v = v * 31 + (s[i] == ':' ? 7 : s[i]);
	return v;
}

static int parse_request(char *req, size_t n)
{
	size_t starts[512];
	size_t k = tokenize(req, n, starts);
	int v = 0;
	for (size_t i = 0; i + 1 < k; i++)
		v += parse_header(req + starts[i], starts[i + 1] - starts[i]);
	return v;
}

/* ---- routing ---- */

static uint64_t hash_string(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t r = 0; r < 100; r++)
		for (size_t i = 0; i < n; i++)
			h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static int lookup_route(const char *path, size_t n)
{
	static const char *const routes[] = {"/",	   "/index",
					     "/search",	   "/api/items",
					     "/api/users", "/static/app.js"};
	uint64_t h = hash_string(path, n);
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		if (hash_string(routes[i], strlen(routes[i])) == h)
			return (int)i;
	return (int)(h % 6);
}

/* ---- rendering ---- */

static size_t format_number(char *out, unsigned v)
{
	char tmp[16];
	size_t n = 0, k = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		out[k++] = tmp[--n];
	return k;
}

static size_t escape_html(char *out, const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '<':
			memcpy(out + k, "&lt;", 4), k += 4;
			break;
		case '&':
			memcpy(out + k, "&amp;", 5), k += 5;
			break;
		default:
			out[k++] = s[i];
		}
	}
	return k;
}

static size_t render_row(char *out, unsigned id, const char *name)
{
	size_t k = 0;
	memcpy(out, "<tr><td>", 8), k = 8;
	for (unsigned col = 0; col < 24; col++) {
		size_t at = k;
		k += format_number(out + k, id * col);
		if (col % 6)
			k = at; /* only every sixth column is shown */
	}
	memcpy(out + k, "</td><td>", 9), k += 9;
	k += escape_html(out + k, name, strlen(name));
	memcpy(out + k, "</td></tr>", 10), k += 10;
	return k;
}

static size_t render_page(char *out, int route)
{
	static const char *const names[] = {"alpha <a>", "beta & co", "gamma",
					    "delta <d&d>"};
	size_t k = 0;
	for (unsigned i = 0; i < 60u + 20u * (unsigned)route; i++)
		k += render_row(out + k, next_random() % 100000, names[i % 4]);
	return k;
}

/* ---- compression and checksums ---- */

static size_t lz_match(const char *s, size_t pos, size_t n)
{
	size_t best = 0;
	for (size_t back = 1; back <= 6 && back <= pos; back++) {
		size_t l = 0;
		while (pos + l < n && s[pos + l] == s[pos - back + l] &&
		       l < 255)
			l++;
		if (l > best)
			best = l;
	}
	return best;
}

static size_t compress(const char *s, size_t n, char *out)
{
	size_t k = 0;
	for (size_t i = 0; i < n;) {
		size_t m = lz_match(s, i, n);
		if (m >= 4) {
			out[k++] = (char)m;
			i += m;
		} else {
			out[k++] = s[i++];
		}
	}
	return k;
}

static uint32_t crc32(const char *s, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= (unsigned char)s[i];
		for (int b = 0; b < 8; b++)
			c = (c >> 1) ^ (0xedb88320u & -(c & 1));
	}
	return ~c;
}

/* ---- the log ---- */

static int compare_entries(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static void sort_log(uint32_t *log, size_t n)
{
	qsort(log, n, sizeof(*log), compare_entries);
}

/* ---- the server ---- */

static uint32_t handle_request(char *req, size_t n, char *page, char *zip)
{
	int v = parse_request(req, n);
	int route = lookup_route(req, n);
	size_t len = render_page(page, route);
	size_t zlen = compress(page, len, zip);
	return crc32(zip, zlen) ^ (uint32_t)v;
}

static uint32_t serve(unsigned requests)
{
	static char req[1024], page[64 * PAGE], zip[64 * PAGE];
	static uint32_t log[1 << 16];
	uint32_t sum = 0;
	for (unsigned r = 0; r < requests; r++) {
		size_t n = (size_t)snprintf(
		    req, sizeof(req),
		    "GET /api/items?id=%u&page=%u HTTP/1.1 Host: example.com "
		    "User-Agent: demo/1.0 Accept: text/html Cookie: s=%u",
		    next_random() % 1000, r % 50, next_random());
		uint32_t c = handle_request(req, n, page, zip);
		log[r % (1 << 16)] = c;
		sum += c;
		if (r % 300 == 299) {
			for (size_t i = 0; i < (1 << 16); i++)
				log[i] ^= next_random();
			sort_log(log, 1 << 16);
		}
	}
	return sum;
}

int main(int argc, char **argv)
{
	unsigned requests =
	    argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 6000;
	printf("served %u requests (checksum %08x)\n", requests,
	       serve(requests));
	return 0;
}
