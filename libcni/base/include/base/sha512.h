/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SHA-512 (FIPS 180-4) for names derived from IDs, as the reference plugins
 * derive them: cnitool's container ID, bandwidth's IFB device. Not a general
 * crypto API (no streaming, no side-channel hardening needed here).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define SHA512_DIGEST_SIZE 64

/* Hash len bytes of data into out. */
void sha512(const void *data, size_t len, uint8_t out[SHA512_DIGEST_SIZE]);
