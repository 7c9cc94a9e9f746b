/* Runs a libFuzzer target's entry point over files given as arguments:
 * `make test` replays every input the fuzzers ever crashed on. */
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		unsigned char *buf = NULL;
		size_t n = 0, cap = 0, r;
		if (!f) {
			perror(argv[i]);
			return 1;
		}
		do {
			if (n == cap)
				buf = realloc(buf, cap = cap * 2 + 4096);
			r = fread(buf + n, 1, cap - n, f);
			n += r;
		} while (r);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
		free(buf);
	}
	printf("replayed %d inputs\n", argc - 1);
	return 0;
}
