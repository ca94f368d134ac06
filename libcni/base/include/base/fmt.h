/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Zero-padded decimal numbers in fixed-width strings (the IPAM state
 * stamp), written at p without a terminating NUL; returns the end.
 */
#pragma once

#include <stdint.h>

/* Decimal, at least width digits (zero-padded; width 0 or 1: no padding). */
char *fmt_dec(char *p, uint64_t v, unsigned width);
