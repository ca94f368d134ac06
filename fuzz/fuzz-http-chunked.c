/* fuzz-libs: pwhttp */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A chunked body from a server (untrusted: etcd's watch stream, the
 * apiserver): pwhttp's incremental decoder, fed the body at once and in
 * reads of 1-16 bytes (the first input byte), in place as the reader does.
 * It aborts when the two disagree (result, data, bytes taken) or when a
 * decode claims more output than input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pwhttp/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct outcome {
	int r;
	size_t len, used;
};

static struct outcome decode(const char *in, size_t n, size_t step, char *buf)
{
	struct pwhttp_chunked d;
	struct outcome o = {0};

	pwhttp_chunked_init(&d, 1u << 16);
	memcpy(buf, in, n);
	for (size_t at = 0; at < n && o.r == 0;) {
		size_t k = n - at < step ? n - at : step, out, used;

		/* the data goes right after what came before, as in response.c */
		o.r = pwhttp_chunked_decode(&d, buf + at, k, buf + o.len, &out, &used);
		if (used > k || out > used)
			abort();
		if (o.r >= 0) {
			o.len += out;
			o.used += used;
		}
		at += k;
	}
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data + 1;
	struct outcome whole, steps;
	char *a, *b;

	if (size < 1 || size > 65536)
		return 0;
	a = malloc(size);
	b = malloc(size);
	if (a && b) {
		whole = decode(in, size - 1, size, a);
		steps = decode(in, size - 1, 1 + data[0] % 16, b);
		if (whole.r != steps.r ||
		    (whole.r >= 0 && (whole.len != steps.len || whole.used != steps.used ||
				      memcmp(a, b, whole.len) != 0)))
			abort();
	}
	free(a);
	free(b);
	return 0;
}
