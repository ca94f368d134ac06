/* SPDX-License-Identifier: Apache-2.0 */
/* Private declarations shared by the runtime-side files (runtime*.c). */
#pragma once

#include <stddef.h>

/* Read a whole file (at most max bytes, else -EFBIG); NUL-terminated, owned. */
int runtime_read_file(const char *path, size_t max, char **ret, size_t *ret_len);

/* Sorted full paths of regular files in dir ending in one of exts (NULL-terminated). */
int runtime_conf_files(const char *dir, const char *const *exts, char ***ret, size_t *ret_n);

void runtime_strv_free(char **v, size_t n);
