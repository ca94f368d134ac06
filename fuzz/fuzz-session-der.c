/* fuzz-libs: pwhttp */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The DER surgery on a saved TLS session (pwhttp's der.c, which takes the
 * server certificate, field [3], out of what OpenSSL's i2d wrote): any
 * input. It aborts when refused input was changed, or when a result is not
 * a well-formed SEQUENCE, is longer than the input, still holds a [3]
 * child, or changes when the surgery runs on it again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../pwhttp/src/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *a = malloc(size ? size : 1), *b = malloc(size ? size : 1);
	size_t n, again;

	if (!a || !b)
		goto out;
	memcpy(a, data, size);
	n = pwhttp_der_drop_child(a, size, 0xa3);
	if (n == 0) {
		if (memcmp(a, data, size) != 0)
			abort();
		goto out;
	}
	if (n > size || a[0] != 0x30)
		abort();
	memcpy(b, a, n);
	again = pwhttp_der_drop_child(b, n, 0xa3); /* well-formed, nothing left to drop */
	if (again != n || memcmp(a, b, n) != 0)
		abort();
out:
	free(a);
	free(b);
	return 0;
}
