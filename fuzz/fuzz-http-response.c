/* fuzz-libs: pwhttp */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HTTP/1.1 responses from a server (untrusted: etcd, the apiserver):
 * pwhttp's reader (status line, headers, Content-Length, chunked, until
 * EOF) over a pipe holding the input.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "pwhttp/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct timespec ts;
	int p[2];
	struct pwhttp_response resp;
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
	if (pwhttp_read_response(p[0], (uint64_t)ts.tv_sec * 1000u + 1000u, &resp, &keep) == 0)
		free(resp.body);
	close(p[0]);
	return 0;
}
