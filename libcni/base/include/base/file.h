/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The file helpers every module needs, written once: write a buffer whole,
 * read a file whole (bounded), replace a file atomically. Every descriptor
 * is O_CLOEXEC, every open O_NOFOLLOW. Return 0 (or a length) or a negative
 * errno.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* write() until all of buf is written (EINTR and short writes retried). */
int fd_write_all(int fd, const void *buf, size_t len);

/*
 * Read fd to its end into a new NUL-terminated buffer (*ret, caller frees),
 * growing from 256 bytes. More than max bytes is -EFBIG. Returns the length.
 */
int fd_read_all(int fd, size_t max, char **ret);

/* The same for `name` under dirfd (AT_FDCWD for a path), opened O_NOFOLLOW. */
int file_read_at(int dirfd, const char *name, size_t max, char **ret);

/* At most the first max bytes of dirfd/name (a longer file is cut, not an error). */
int file_read_prefix_at(int dirfd, const char *name, size_t max, char **ret);

/*
 * Replace dirfd/name by buf, atomically: written to a temporary name in the
 * same directory (mode `mode`), fsync()ed when `sync`, then renamed over
 * name. On failure the temporary file is removed and name is unchanged.
 */
int file_replace_at(int dirfd, const char *name, const void *buf, size_t len, mode_t mode,
		    bool sync);

/* The same for a path (its directory opened for the call). */
int file_replace(const char *path, const void *buf, size_t len, mode_t mode, bool sync);

/*
 * mkdir -p: create `path` (absolute or relative) and every missing parent,
 * each with `mode` (the umask applies); components that exist are left as
 * they are. 0 when path is a directory afterwards (also through a symlink);
 * -ENOTDIR when path or a parent exists and is not a directory, -ENOMEM,
 * -EINVAL for an empty path, or the errno of the mkdir that failed
 * (-EACCES, -EROFS, -ENOSPC, ...).
 */
int file_mkdir_parents(const char *path, mode_t mode);
