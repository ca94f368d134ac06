/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tuning (chained): sysctls in the pod's netns and attributes of the pod
 * interface CNI_IFNAME (mac, mtu, promisc, allmulti, txQLen), with the
 * originals of the attributes saved in dataDir and restored on DEL. Same
 * keys and behaviour as the reference tuning plugin; differences in README.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cni/plugin.h"
#include "podnet/podnet.h"

#define TUNING_DEFAULT_DATA_DIR "/run/cni/tuning"
#define TUNING_ALLOWLIST_FILE "/etc/cni/tuning/allowlist.conf"
/* Test-only: another allow-list file (README, "Test-only variables"). */
#define TUNING_ALLOWLIST_ENV "PODWIRE_TUNING_ALLOWLIST"

#define TUNING_MAC_LEN 6
#define TUNING_SYSCTL_PATH_MAX 256
#define TUNING_SYSCTL_MAX 256 /* entries accepted in the merged map */

struct tuning_sysctl {
	const char *key;		   /* as written in the config (borrowed from the JSON) */
	const char *value;		   /* borrowed */
	char path[TUNING_SYSCTL_PATH_MAX]; /* under /proc/sys: "net/core/somaxconn" */
};

struct tuning_conf {
	const char *data_dir; /* borrowed; default TUNING_DEFAULT_DATA_DIR */

	struct tuning_sysctl *sysctls; /* owned, config order, args.cni.sysctl merged in */
	size_t n_sysctls;

	bool has_mac;
	unsigned char mac[TUNING_MAC_LEN];
	const char *mac_src; /* which key gave the MAC, for messages */

	bool promisc; /* only true is applied, as the reference */
	unsigned mtu; /* 0: unset */
	bool has_allmulti, allmulti;
	bool has_txqlen;
	unsigned txqlen;
};

/* True when some interface attribute is configured (a backup file is written). */
bool tuning_conf_has_link_attrs(const struct tuning_conf *c);

/*
 * Parse the plugin's keys from ctx->conf.root, args.cni, runtimeConfig and
 * CNI_ARGS, with the reference's precedence (mac: conf < CNI_ARGS MAC <
 * runtimeConfig.mac < args.cni.mac; args.cni.* over the plain keys).
 * Every sysctl key is normalized and checked here (code 7 naming the key
 * and the value). On DEL and GC bad values are ignored with a warning.
 * Returns 0 or a negative errno with ctx->err set. *ret owns sysctls.
 */
int tuning_conf_parse(struct cni_ctx *ctx, struct tuning_conf *ret);
void tuning_conf_done(struct tuning_conf *c);

/*
 * A sysctl key to its path under /proc/sys, in sysctl(8)'s notation: when
 * the first separator is '.', dots separate and '/' stands for a dot inside
 * a component; when it is '/', slashes separate and dots are literal. Then
 * the first "IFNAME" becomes ifname, "." and empty components drop, ".."
 * removes the previous one (as filepath.Clean). The result must be inside
 * net/ ("net/<something>"), printable without spaces. Returns 0 or -EINVAL
 * (escapes net/, empty, bad characters) or -ENAMETOOLONG.
 */
int tuning_sysctl_path(const char *key, const char *ifname, char *buf, size_t len);

/*
 * MAC as Go's net.ParseMAC reads a 6-byte one: "aa:bb:cc:dd:ee:ff",
 * "aa-bb-cc-dd-ee-ff" or "aabb.ccdd.eeff", hex in either case. Returns 0 or
 * -EINVAL.
 */
int tuning_mac_parse(const char *s, unsigned char mac[TUNING_MAC_LEN]);

/*
 * The allow list (tuning-allow.c): when the file exists, every sysctl key
 * (as written in the config) must match one of its lines, each an extended
 * regular expression matched anywhere in the key (blank lines skipped,
 * lines trimmed). A missing file allows everything. Returns 0, or a
 * negative errno with ctx->err set (code 7: not allowed or bad pattern;
 * code 5: unreadable file).
 */
int tuning_allowlist_check(struct cni_ctx *ctx, const struct tuning_conf *c, const char *file);

/* Saved originals (tuning-backup.c); the file is JSON with the reference's keys. */
struct tuning_backup {
	bool has_mac;
	unsigned char mac[TUNING_MAC_LEN];
	bool has_promisc, promisc;
	unsigned mtu; /* 0: not saved */
	bool has_allmulti, allmulti;
	bool has_txqlen;
	unsigned txqlen;
};

/* "<dataDir>/<containerID>_<ifname>.json". Returns 0 or -ENAMETOOLONG. */
int tuning_backup_path(const char *data_dir, const char *cid, const char *ifname, char *buf,
		       size_t len);
/* JSON text of b (owned, free()), or NULL on allocation failure. */
char *tuning_backup_format(const struct tuning_backup *b);
/* Parse the JSON text of a backup. Returns 0 or -EINVAL (malformed). */
int tuning_backup_parse(const char *text, size_t len, struct tuning_backup *ret);
/* Read path. Returns 0, -ENOENT (no backup), -EINVAL (malformed), I/O errnos. */
int tuning_backup_read(const char *path, struct tuning_backup *ret);
/* Create the directory (0700) and write the file atomically (0600). */
int tuning_backup_write(const char *dir, const char *path, const struct tuning_backup *b);

extern const struct podnet_plugin_ops tuning_ops;
