/*
 * replay.c — main() for the fuzz targets when libFuzzer is not linked in
 * (a build without --enable-fuzzing, with gcc): runs
 * LLVMFuzzerTestOneInput once over each file named on the command line, as
 * a libFuzzer binary does when given files. test/fuzz/replay.sh uses it to
 * replay the seed corpora and every input that once crashed a target under
 * the sanitizer build of make check. The convention is LLVM's
 * StandaloneFuzzTargetMain.c.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 1;
		}
		size_t cap = 4096, len = 0, got;
		uint8_t *buf = malloc(cap);
		while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0)
			if ((len += got) == cap)
				buf = realloc(buf, cap *= 2);
		if (!buf || ferror(f)) {
			perror(argv[i]);
			return 1;
		}
		fclose(f);
		/* An exact-size copy, so ASan sees a read past the input's end. */
		uint8_t *in = malloc(len ? len : 1);
		if (!in)
			return 1;
		memcpy(in, buf, len);
		free(buf);
		LLVMFuzzerTestOneInput(in, len);
		free(in);
	}
	printf("%s: %d inputs\n", argv[0], argc - 1);
	return 0;
}
