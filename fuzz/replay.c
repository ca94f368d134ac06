/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Corpus replayer: runs a libFuzzer entry point over every file of the
 * directories given on the command line, so fuzz targets are exercised by
 * ctest even where clang's libFuzzer is not used.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(int dirfd, const char *name)
{
	struct stat st;
	uint8_t *buf;
	ssize_t n;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -1;
	}
	n = read(fd, buf, (size_t)st.st_size);
	close(fd);
	if (n >= 0)
		LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return n < 0 ? -1 : 1;
}

int main(int argc, char **argv)
{
	unsigned count = 0;

	for (int i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *de;

		if (!d) {
			fprintf(stderr, "replay: cannot open corpus '%s'\n", argv[i]);
			return 1;
		}
		while ((de = readdir(d))) {
			int r = replay_file(dirfd(d), de->d_name);

			if (r < 0) {
				closedir(d);
				return 1;
			}
			count += (unsigned)r;
		}
		closedir(d);
	}
	printf("replayed %u inputs\n", count);
	return count ? 0 : 1;
}
