/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Number formatting for the few fixed-width strings written on every ADD and
 * DEL (MACs, host veth names, the IPAM state stamp). printf's padding code
 * and its tables sit in areas of libc that nothing else on those paths
 * touches, and the kernel maps libc in 64 KB windows around each page used:
 * these keep that code out of every plugin call's RSS.
 *
 * Each function writes at p without a terminating NUL and returns the end.
 */
#pragma once

#include <stdint.h>

/* Decimal, at least width digits (zero-padded; width 0 or 1: no padding). */
char *fmt_dec(char *p, uint64_t v, unsigned width);

/* Lower-case hex, at least width digits (zero-padded). */
char *fmt_hex(char *p, uint64_t v, unsigned width);
