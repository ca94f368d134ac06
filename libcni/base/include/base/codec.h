/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The byte-string codecs: base64 (RFC 4648 section 4, the standard alphabet
 * with padding, as Go's encoding/json writes []byte and etcd's JSON gateway
 * sends keys and values) and hex. Decoders refuse the whole input on any
 * bad character, a wrong length or misplaced padding.
 */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* The characters b64_encode writes for len bytes (the NUL not counted). */
#define B64_ENCODED_LEN(len) (((len) + 2) / 3 * 4)
/* The most bytes b64_decode writes for len characters. */
#define B64_DECODED_MAX(len) ((len) / 4 * 3)

/*
 * len bytes at in as base64 at out, NUL-terminated: out holds
 * B64_ENCODED_LEN(len) + 1. Returns the characters written (NUL excluded).
 */
size_t b64_encode(const void *in, size_t len, char *out);

/*
 * len characters of base64 at in into out (B64_DECODED_MAX(len) bytes).
 * Returns the bytes written or -EINVAL: a length not a multiple of 4, a
 * character outside the alphabet, '=' other than one or two at the very end.
 */
ssize_t b64_decode(const char *in, size_t len, void *out);

/* As b64_encode into a new buffer; NULL when out of memory. */
char *b64_encode_dup(const void *in, size_t len);

/*
 * As b64_decode into a new NUL-terminated buffer (*ret, owned; *ret_len
 * bytes before the NUL). Returns 0, -EINVAL or -ENOMEM.
 */
int b64_decode_dup(const char *in, size_t len, char **ret, size_t *ret_len);

/* The value of the hex digit c (either case), or -1. */
int hex_digit(char c);

/* len bytes at in as 2 * len lower-case hex digits at p (no NUL); returns the end. */
char *hex_encode(char *p, const void *in, size_t len);

/*
 * Exactly 2 * n hex digits (either case) at s into n bytes at out. Returns 0,
 * or -EINVAL at the first other character (out may be partly written then).
 */
int hex_decode(const char *s, size_t n, void *out);
