/* SPDX-License-Identifier: Apache-2.0 */
#include "base/fmt.h"

char *fmt_dec(char *p, uint64_t v, unsigned width)
{
	char tmp[24];
	unsigned n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < width && n < sizeof(tmp))
		tmp[n++] = '0';
	while (n)
		*p++ = tmp[--n];
	return p;
}
