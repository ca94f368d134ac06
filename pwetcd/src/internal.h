/* SPDX-License-Identifier: Apache-2.0 */
/* pwetcd internals shared by the builder and the client. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "pwetcd/etcd.h"

json_t *pwetcd_json_b64(const char *data, size_t len);
json_t *pwetcd_json_i64(int64_t n);
int pwetcd_json_set_key(json_t *o, const char *key, size_t key_len, bool prefix);
/* Request bodies (owned, free()); NULL when out of memory or without a key. */
char *pwetcd_range_body(const struct pwetcd_range_req *req);
char *pwetcd_put_body(const char *key, const char *value, size_t value_len, int64_t lease);
char *pwetcd_delete_body(const char *key, bool prefix);
int pwetcd_txn_error(const struct pwetcd_txn *t);
