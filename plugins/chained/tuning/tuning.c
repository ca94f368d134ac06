/* SPDX-License-Identifier: Apache-2.0 */
/* tuning's ADD, DEL and CHECK: parse, plan, apply (with undo), restore. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/log.h"
#include "nlw/nlw.h"
#include "podnet/chain.h"
#include "tuning.h"

#define SYSCTL_VALUE_MAX 4096

static void fmt_mac(const unsigned char m[TUNING_MAC_LEN], char buf[18])
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* ---- sysctls ---- */

struct sysctl_undo {
	char path[TUNING_SYSCTL_PATH_MAX];
	char old[SYSCTL_VALUE_MAX];
};

static int sysctl_undo_fn(struct podnet *pn, void *arg)
{
	struct sysctl_undo *u = arg;

	return nlw_sysctl_set_in_netns(pn->netns_fd, pn->ctx->procfs_fd, u->path, u->old);
}

/* A kernel refusal of a sysctl is a config error when it is about the key or value. */
static int sysctl_error(struct cni_ctx *ctx, const struct tuning_sysctl *s, int r, const char *op)
{
	unsigned code =
	    r == -ENOENT || r == -EINVAL || r == -ERANGE ? CNI_ERR_INVALID_CONFIG : CNI_ERR_PLUGIN;

	return cni_errorf(&ctx->err, code, r, "sysctl: cannot %s '%s' (%s, value '%s'): %s", op,
			  s->key, s->path, s->value,
			  r == -ENOENT ? "no such sysctl in the pod's network namespace"
				       : strerror(-r));
}

struct sysctl_apply {
	struct podnet *pn;
	const struct tuning_conf *conf;
};

/* Runs inside the pod netns: /proc/sys/net shows the netns of whoever opens it. */
static int sysctl_apply_fn(void *arg)
{
	struct sysctl_apply *a = arg;
	struct cni_ctx *ctx = a->pn->ctx;

	for (size_t i = 0; i < a->conf->n_sysctls; i++) {
		const struct tuning_sysctl *s = &a->conf->sysctls[i];
		struct sysctl_undo *u = calloc(1, sizeof(*u));
		int r;

		if (!u)
			return -ENOMEM;
		memcpy(u->path, s->path, sizeof(u->path));
		r = nlw_sysctl_get(ctx->procfs_fd, s->path, u->old, sizeof(u->old));
		if (r < 0) {
			free(u);
			return sysctl_error(ctx, s, r, "read");
		}
		r = nlw_sysctl_set(ctx->procfs_fd, s->path, s->value);
		if (r < 0) {
			free(u);
			return sysctl_error(ctx, s, r, "write");
		}
		r = podnet_undo_push(a->pn, s->path, sysctl_undo_fn, u, free);
		if (r < 0)
			return r;
	}
	return 0;
}

static int apply_sysctls(struct podnet *pn, const struct tuning_conf *c)
{
	struct cni_ctx *ctx = pn->ctx;
	struct sysctl_apply a = {pn, c};
	int r;

	if (c->n_sysctls == 0)
		return 0;
	r = nlw_netns_run(pn->netns_fd, sysctl_apply_fn, &a);
	if (r < 0 && !cni_error_isset(&ctx->err))
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, r, "enter the pod netns '%s'",
				  ctx->netns);
	return r;
}

/* ---- interface attributes ---- */

/* What DEL will restore: the current value of every attribute the config changes. */
static void backup_from_link(const struct tuning_conf *c, const struct nlw_link *l,
			     struct tuning_backup *b)
{
	*b = (struct tuning_backup){0};
	if (c->has_mac && l->has_mac) {
		b->has_mac = true;
		memcpy(b->mac, l->mac, TUNING_MAC_LEN);
	}
	if (c->promisc) {
		b->has_promisc = true;
		b->promisc = l->promisc;
	}
	if (c->mtu)
		b->mtu = l->mtu;
	if (c->has_allmulti) {
		b->has_allmulti = true;
		b->allmulti = l->allmulti;
	}
	if (c->has_txqlen && l->has_txqlen) {
		b->has_txqlen = true;
		b->txqlen = l->txqlen;
	}
}

/*
 * An earlier ADD of the same attachment (a runtime retrying) already saved
 * the true originals: what it saved wins over the current, tuned values.
 */
static void backup_merge(struct tuning_backup *b, const struct tuning_backup *old)
{
	if (old->has_mac && b->has_mac)
		memcpy(b->mac, old->mac, TUNING_MAC_LEN);
	if (old->has_promisc && b->has_promisc)
		b->promisc = old->promisc;
	if (old->mtu && b->mtu)
		b->mtu = old->mtu;
	if (old->has_allmulti && b->has_allmulti)
		b->allmulti = old->allmulti;
	if (old->has_txqlen && b->has_txqlen)
		b->txqlen = old->txqlen;
}

/* Append "failed to restore <what>: <errno>" to errbuf when r failed; keep the first r. */
static void note_restore(int r, const char *what, char *errbuf, size_t errlen, int *first)
{
	size_t used = strlen(errbuf);

	if (r >= 0)
		return;
	snprintf(errbuf + used, errlen - used, "%sfailed to restore %s: %s", used ? "; " : "", what,
		 strerror(-r));
	if (!*first)
		*first = r;
}

/* Restore in the reference's order: mtu, mac, promisc, allmulti, then txQLen. */
static int restore_link(struct nlw_sock *sock, int ifindex, const struct tuning_backup *b,
			char *errbuf, size_t errlen)
{
	int first = 0;

	if (b->mtu)
		note_restore(nlw_link_set_mtu(sock, ifindex, b->mtu), "MTU", errbuf, errlen,
			     &first);
	if (b->has_mac)
		note_restore(nlw_link_set_mac(sock, ifindex, b->mac), "MAC address", errbuf, errlen,
			     &first);
	if (b->has_promisc)
		note_restore(nlw_link_set_promisc(sock, ifindex, b->promisc), "promiscuous mode",
			     errbuf, errlen, &first);
	if (b->has_allmulti)
		note_restore(nlw_link_set_allmulti(sock, ifindex, b->allmulti),
			     "all-multicast mode", errbuf, errlen, &first);
	if (b->has_txqlen)
		note_restore(nlw_link_set_txqlen(sock, ifindex, b->txqlen), "txQLen", errbuf,
			     errlen, &first);
	return first;
}

struct link_undo {
	int ifindex;
	struct tuning_backup orig;
	char path[PATH_MAX]; /* backup file to remove, "" if none */
	bool had_file;	     /* an earlier ADD's file: keep it */
};

static int link_undo_fn(struct podnet *pn, void *arg)
{
	struct link_undo *u = arg;
	char err[512] = "";
	int r = restore_link(pn->pod, u->ifindex, &u->orig, err, sizeof(err));

	if (r < 0)
		cni_log_warning("%s", err);
	if (u->path[0] && !u->had_file && unlink(u->path) < 0 && errno != ENOENT)
		r = -errno;
	return r;
}

static int link_error(struct cni_ctx *ctx, int r, const char *key, const char *value)
{
	bool config = r == -EINVAL || r == -ERANGE || r == -EADDRNOTAVAIL;

	return cni_errorf(&ctx->err, config ? CNI_ERR_INVALID_CONFIG : CNI_ERR_PLUGIN, r,
			  "%s: cannot set '%s' on '%s' in the pod: %s", key, value, ctx->ifname,
			  strerror(-r));
}

/* The reference's order: mac, promisc, mtu, allmulti, then txQLen. */
static int set_link(struct cni_ctx *ctx, struct nlw_sock *sock, int ifindex,
		    const struct tuning_conf *c)
{
	char v[24];
	int r;

	fmt_mac(c->mac, v);
	if (c->has_mac && (r = nlw_link_set_mac(sock, ifindex, c->mac)) < 0)
		return link_error(ctx, r, c->mac_src, v);
	if (c->promisc && (r = nlw_link_set_promisc(sock, ifindex, true)) < 0)
		return link_error(ctx, r, "promisc", "true");
	snprintf(v, sizeof(v), "%u", c->mtu);
	if (c->mtu && (r = nlw_link_set_mtu(sock, ifindex, c->mtu)) < 0)
		return link_error(ctx, r, "mtu", v);
	if (c->has_allmulti && (r = nlw_link_set_allmulti(sock, ifindex, c->allmulti)) < 0)
		return link_error(ctx, r, "allmulti", c->allmulti ? "true" : "false");
	snprintf(v, sizeof(v), "%u", c->txqlen);
	if (c->has_txqlen && (r = nlw_link_set_txqlen(sock, ifindex, c->txqlen)) < 0)
		return link_error(ctx, r, "txQLen", v);
	return 0;
}

/* Save the originals, push their restore, then change the link. */
static int apply_link(struct podnet *pn, const struct tuning_conf *c)
{
	struct link_undo *u = calloc(1, sizeof(*u));
	struct cni_ctx *ctx = pn->ctx;
	struct tuning_backup old;
	struct nlw_link l;
	int r;

	if (!u)
		return -ENOMEM;
	r = podnet_pod_iface(pn, &l);
	if (r >= 0)
		r = tuning_backup_path(c->data_dir, ctx->container_id, ctx->ifname, u->path,
				       sizeof(u->path));
	if (r < 0) {
		free(u);
		return r == -ENAMETOOLONG ? cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, r,
						       "dataDir: '%s' is too long", c->data_dir)
					  : r;
	}
	u->ifindex = l.ifindex;
	backup_from_link(c, &l, &u->orig);
	u->had_file = tuning_backup_read(u->path, &old) == 0;
	if (u->had_file)
		backup_merge(&u->orig, &old);
	r = tuning_backup_write(c->data_dir, u->path, &u->orig);
	if (r < 0) {
		free(u);
		return cni_errorf(&ctx->err, CNI_ERR_IO, r, "dataDir: cannot save '%s': %s",
				  c->data_dir, strerror(-r));
	}
	r = podnet_undo_push(pn, "restore link attributes", link_undo_fn, u, free);
	return r < 0 ? r : set_link(ctx, pn->pod, l.ifindex, c);
}

/* prevResult passes through; the interface named CNI_IFNAME gets the new MAC. */
static int build_result(struct cni_ctx *ctx, const struct tuning_conf *c)
{
	char mac[18];

	ctx->result = cni_result_dup(ctx->prev_result);
	if (!ctx->result)
		return -ENOMEM;
	if (!c->has_mac)
		return 0;
	fmt_mac(c->mac, mac);
	for (size_t i = 0; i < ctx->result->n_ifaces; i++) {
		struct cni_iface *f = &ctx->result->ifaces[i];

		if (streq(f->name, ctx->ifname)) {
			free(f->mac);
			f->mac = strdup(mac);
			if (!f->mac)
				return -ENOMEM;
		}
	}
	return 0;
}

static const char *allowlist_file(void)
{
	const char *f = getenv(TUNING_ALLOWLIST_ENV);

	return isempty(f) ? TUNING_ALLOWLIST_FILE : f;
}

/* ADD's and CHECK's frame: parse the config, require prevResult, run step. */
static int with_conf(struct podnet *pn, int (*step)(struct podnet *, const struct tuning_conf *))
{
	struct tuning_conf c;
	int r = tuning_conf_parse(pn->ctx, &c);

	if (r < 0)
		return r;
	r = podnet_require_prev(pn->ctx);
	if (r >= 0)
		r = step(pn, &c);
	tuning_conf_done(&c);
	return r;
}

static int add_steps(struct podnet *pn, const struct tuning_conf *c)
{
	int r = tuning_allowlist_check(pn->ctx, c, allowlist_file());

	if (r >= 0)
		r = apply_sysctls(pn, c);
	if (r >= 0 && tuning_conf_has_link_attrs(c))
		r = apply_link(pn, c);
	if (r >= 0)
		r = build_result(pn->ctx, c);
	return r;
}

static int cmd_add(struct podnet *pn)
{
	return with_conf(pn, add_steps);
}

/* ---- DEL ---- */

static void drop_backup(const char *path, const char *why)
{
	cni_log_info("%s: removing backup %s", why, path);
	if (unlink(path) < 0 && errno != ENOENT)
		cni_log_warning("cannot remove %s: %s", path, strerror(errno));
}

/*
 * Restore what ADD saved. Best effort and never an error, as the
 * reference: a failed restore is logged and the file kept for a later DEL.
 */
static int restore_from(struct podnet *pn, const char *path, const struct tuning_backup *b)
{
	struct cni_ctx *ctx = pn->ctx;
	struct nlw_link l;
	char err[512] = "";
	int r;

	if (!podnet_has_pod(pn)) {
		drop_backup(path, "pod netns gone");
		return 0;
	}
	r = nlw_link_get_by_name(pn->pod, ctx->ifname, &l);
	if (r == -ENODEV) {
		drop_backup(path, "pod interface gone");
		return 0;
	}
	if (r >= 0)
		r = restore_link(pn->pod, l.ifindex, b, err, sizeof(err));
	if (r < 0) {
		cni_log_warning("restore %s in %s: %s; keeping %s", ctx->ifname, ctx->netns,
				err[0] ? err : strerror(-r), path);
		return 0;
	}
	drop_backup(path, "restored");
	return 0;
}

static int cmd_del(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct tuning_conf c = {.data_dir = TUNING_DEFAULT_DATA_DIR};
	struct tuning_backup b;
	char path[PATH_MAX];
	int r;

	/* Lenient: a bad key is a warning on DEL; only dataDir matters here. */
	if (tuning_conf_parse(ctx, &c) < 0)
		c.data_dir = TUNING_DEFAULT_DATA_DIR;
	r = tuning_backup_path(c.data_dir, ctx->container_id, ctx->ifname, path, sizeof(path));
	if (r >= 0)
		r = tuning_backup_read(path, &b);
	if (r == -EINVAL)
		drop_backup(path, "malformed");
	else if (r < 0 && r != -ENOENT)
		cni_log_warning("read backup %s: %s", path, strerror(-r));
	else if (r >= 0)
		restore_from(pn, path, &b);
	tuning_conf_done(&c);
	return 0;
}

/* ---- CHECK ---- */

static int check_sysctls(struct cni_ctx *ctx, const struct tuning_conf *c, int netns_fd)
{
	char cur[SYSCTL_VALUE_MAX];

	for (size_t i = 0; i < c->n_sysctls; i++) {
		const struct tuning_sysctl *s = &c->sysctls[i];
		int r =
		    nlw_sysctl_get_in_netns(netns_fd, ctx->procfs_fd, s->path, cur, sizeof(cur));

		if (r < 0)
			return sysctl_error(ctx, s, r, "read");
		if (!streq(cur, s->value))
			return cni_errorf(&ctx->err, CNI_ERR_CHECK_FAILED, -EINVAL,
					  "sysctl: configured value of '%s' (%s) is '%s', current "
					  "value is '%s'",
					  s->key, s->path, s->value, cur);
	}
	return 0;
}

static int differs(struct cni_ctx *ctx, const char *what, const char *want, const char *cur)
{
	return cni_errorf(&ctx->err, CNI_ERR_CHECK_FAILED, -EINVAL,
			  "%s of '%s': configured '%s', current '%s'", what, ctx->ifname, want,
			  cur);
}

static int differs_uint(struct cni_ctx *ctx, const char *what, unsigned want, unsigned cur)
{
	char w[16], c[16];

	snprintf(w, sizeof(w), "%u", want);
	snprintf(c, sizeof(c), "%u", cur);
	return differs(ctx, what, w, c);
}

static const char *bool_str(bool b)
{
	return b ? "true" : "false";
}

static int check_link(struct cni_ctx *ctx, const struct tuning_conf *c, const struct nlw_link *l)
{
	char want[24], cur[24];

	fmt_mac(c->mac, want);
	fmt_mac(l->mac, cur);
	if (c->has_mac && memcmp(c->mac, l->mac, TUNING_MAC_LEN) != 0)
		return differs(ctx, c->mac_src, want, cur);
	/* The reference's rule: promisc false means "must be off" in CHECK. */
	if (c->promisc != l->promisc)
		return differs(ctx, "promisc", bool_str(c->promisc), bool_str(l->promisc));
	if (c->mtu && c->mtu != l->mtu)
		return differs_uint(ctx, "mtu", c->mtu, l->mtu);
	if (c->has_allmulti && c->allmulti != l->allmulti)
		return differs(ctx, "allmulti", bool_str(c->allmulti), bool_str(l->allmulti));
	if (c->has_txqlen && c->txqlen != l->txqlen)
		return differs_uint(ctx, "txQLen", c->txqlen, l->txqlen);
	return 0;
}

static int check_steps(struct podnet *pn, const struct tuning_conf *c)
{
	struct cni_ctx *ctx = pn->ctx;
	struct nlw_link l;
	int r = check_sysctls(ctx, c, pn->netns_fd);

	if (r >= 0) {
		r = podnet_pod_iface(pn, &l);
		if (r < 0)
			ctx->err.code = CNI_ERR_CHECK_FAILED;
	}
	if (r >= 0)
		r = check_link(ctx, c, &l);
	return r;
}

static int cmd_check(struct podnet *pn)
{
	return with_conf(pn, check_steps);
}

static const char *const tuning_cni_args[] = {"MAC", NULL};

const struct podnet_plugin_ops tuning_ops = {
    .name = "tuning",
    .about = "podwire tuning: sysctls and interface attributes of a pod interface",
    .cni_args_keys = tuning_cni_args,
    .add = {cmd_add, PODNET_POD},
    .del = {cmd_del, PODNET_POD},
    .check = {cmd_check, PODNET_POD},
};
