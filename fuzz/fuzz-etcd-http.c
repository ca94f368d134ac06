/* fuzz-libs: pwetcd */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HTTP/1.1 responses of the etcd endpoint (untrusted): pwetcd's built-in
 * reader (status line, headers, Content-Length, chunked, until EOF) over a
 * pipe holding the input.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../ipam/cluster-ipam/src/pwetcd-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct timespec ts;
	int p[2];
	long st;
	char *body = NULL;
	size_t len;
	bool keep;

	if (size > 60000 || pipe2(p, O_CLOEXEC) < 0)
		return 0;
	if (write(p[1], data, size) != (ssize_t)size) {
		close(p[0]);
		close(p[1]);
		return 0;
	}
	close(p[1]);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (pwetcd_http_read_response(p[0], (uint64_t)ts.tv_sec * 1000u + 1000u, &st, &body, &len,
				      &keep) == 0)
		free(body);
	close(p[0]);
	return 0;
}
