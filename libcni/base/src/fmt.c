/* SPDX-License-Identifier: Apache-2.0 */
#include "base/fmt.h"

static char *fmt_base(char *p, uint64_t v, unsigned base, unsigned width)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[64];
	unsigned n = 0;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v && n < sizeof(tmp));
	while (n < width && n < sizeof(tmp))
		tmp[n++] = '0';
	while (n)
		*p++ = tmp[--n];
	return p;
}

char *fmt_dec(char *p, uint64_t v, unsigned width)
{
	return fmt_base(p, v, 10, width);
}

char *fmt_hex(char *p, uint64_t v, unsigned width)
{
	return fmt_base(p, v, 16, width);
}
