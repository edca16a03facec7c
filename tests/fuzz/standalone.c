/* SPDX-License-Identifier: MIT */
/*
 * Runs a libFuzzer target without libFuzzer: over the files named on the
 * command line, then over pseudo-random inputs biased towards the
 * boundaries the parsers check.  Deterministic, so it is a test too.
 *   fuzz-X [--iterations N] [FILE...]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t
next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int
run_file(const char *path)
{
	uint8_t *buf;
	long len;
	FILE *f = fopen(path, "rb");

	if (!f) {
		perror(path);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc(len ? len : 1);
	if (!buf || fread(buf, 1, len, f) != (size_t)len) {
		fclose(f);
		free(buf);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

int
main(int argc, char *argv[])
{
	static const uint32_t edges[] = {
		0, 1, 4, 7, 8, 12, 16, 24, 28, 29, 32, 256, 4096, 4097,
		0x7fffffff, 0x80000000u, 0xfffffff8u, 0xffffffffu,
	};
	unsigned long iterations = 200000, i;
	uint64_t seed = 0x1f2e3d4c5b6a7988ull;
	uint8_t *buf = malloc(8192);
	int a = 1;

	if (a + 1 < argc && strcmp(argv[a], "--iterations") == 0) {
		iterations = strtoul(argv[a + 1], NULL, 0);
		a += 2;
	}
	for (; a < argc; a++)
		if (run_file(argv[a]))
			return 1;

	for (i = 0; buf && i < iterations; i++) {
		size_t len = next(&seed) % (next(&seed) % 2 ? 64 : 8192), k;

		for (k = 0; k < len; k++)
			buf[k] = (uint8_t)next(&seed);
		/* plant boundary values at aligned places now and then */
		for (k = 0; k + 4 <= len; k += 4)
			if (next(&seed) % 8 == 0)
				memcpy(buf + k,
				       &edges[next(&seed) %
					      (sizeof(edges) / sizeof(edges[0]))],
				       4);
		LLVMFuzzerTestOneInput(buf, len);
	}
	free(buf);
	printf("%lu inputs survived\n", iterations);
	return 0;
}
