/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The call every command starts from (config, CNI_ARGS, the apiserver), and
 * ADD: resolve every delegate, write the cache, run each delegate through
 * libcni's runtime side (updating the cache after each), move the default
 * route, set the cluster network's result, write network-status (last).
 * Every step pushes its undo on podnet's list, which DELetes what was
 * added, in reverse, when the ADD fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/file.h"
#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "cni/log.h"
#include "multinet.h"
#include "nlw/link.h"

int mn_call_init(struct mn_call *c, struct cni_ctx *ctx)
{
	enum cni_log_level lvl;
	int r;

	memset(c, 0, sizeof(*c));
	c->ctx = ctx;
	c->lenient = !cni_ctx_strict(ctx);
	if ((r = mn_conf_parse(ctx->conf.root, cni_ctx_strict(ctx), &c->conf, &ctx->err)) < 0)
		return r;
	/*
	 * Multus' level names (panic, verbose): the skeleton, which set podwire's,
	 * refuses them on ADD, CHECK and STATUS and ignores them on DEL and GC.
	 */
	if (ctx->conf.log_level && mn_log_level_parse(ctx->conf.log_level, &lvl) == 0)
		cni_log_set_level(lvl);
	if (ctx->path && *ctx->path)
		r = asprintf(&c->path, "%s:%s", c->conf.bin_dir, ctx->path);
	else
		r = asprintf(&c->path, "%s", c->conf.bin_dir);
	if (r < 0) {
		c->path = NULL;
		return -ENOMEM;
	}
	/* The multinet cache is the durable record; libcni's copy is for tooling. */
	c->rt = (struct cni_runtime){
	    .plugin_path = c->path, .cache_dir = c->conf.cni_dir, .cache_nosync = true};
	return 0;
}

void mn_call_done(struct mn_call *c)
{
	cni_runtime_ahead_drop(&c->ahead);
	mn_k8s_free(c->k8s);
	json_decref(c->pod);
	mn_devices_done(&c->devices);
	mn_conf_done(&c->conf);
	free(c->path);
	memset(c, 0, sizeof(*c));
}

static int dup_arg(const struct cni_ctx *ctx, const char *key, char **ret)
{
	const char *v = cni_args_get(&ctx->args, key);

	if (!v || !*v)
		return 0;
	return (*ret = strdup(v)) ? 0 : -ENOMEM;
}

int mn_pod_from_args(const struct cni_ctx *ctx, struct mn_pod *p)
{
	int r;

	if ((r = dup_arg(ctx, "K8S_POD_NAMESPACE", &p->namespace)) < 0 ||
	    (r = dup_arg(ctx, "K8S_POD_NAME", &p->name)) < 0 ||
	    (r = dup_arg(ctx, "K8S_POD_UID", &p->uid)) < 0 ||
	    (r = dup_arg(ctx, "K8S_POD_INFRA_CONTAINER_ID", &p->infra_id)) < 0)
		return r;
	return 0;
}

static int push_arg(struct mn_plan *p, const char *k, const char *v)
{
	struct cni_runtime_arg *nv;

	for (size_t i = 0; i < p->n_args; i++)
		if (streq(p->args[i].key, k))
			return 0;
	nv = reallocarray_safe(p->args, p->n_args + 1, sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	p->args = nv;
	p->args[p->n_args].key = strdup(k);
	p->args[p->n_args].value = strdup(v ? v : "");
	p->n_args++;
	return p->args[p->n_args - 1].key && p->args[p->n_args - 1].value ? 0 : -ENOMEM;
}

/* IgnoreUnknown and the four K8S_* keys first (Multus' order), then the rest. */
int mn_plan_args(struct mn_plan *p, const struct cni_ctx *ctx)
{
	static const char *const k8s[] = {"K8S_POD_NAMESPACE", "K8S_POD_NAME",
					  "K8S_POD_INFRA_CONTAINER_ID", "K8S_POD_UID"};
	int r = push_arg(p, "IgnoreUnknown", "true");

	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(k8s); i++)
		r = push_arg(p, k8s[i], cni_args_get(&ctx->args, k8s[i]));
	for (size_t i = 0; r >= 0 && i < ctx->args.n; i++)
		r = push_arg(p, ctx->args.items[i].key, ctx->args.items[i].value);
	return r;
}

/* A plan from CNI_* and CNI_ARGS, no delegates yet. */
static int mn_plan_init(struct mn_plan *p, const struct cni_ctx *ctx)
{
	int r;

	memset(p, 0, sizeof(*p));
	if (!(p->container_id = strdup(ctx->container_id ? ctx->container_id : "")) ||
	    !(p->netns = strdup(ctx->netns ? ctx->netns : "")) ||
	    !(p->ifname = strdup(ctx->ifname ? ctx->ifname : "eth0")))
		return -ENOMEM;
	if ((r = mn_pod_from_args(ctx, &p->pod)) < 0)
		return r;
	return mn_plan_args(p, ctx);
}

/* UID check on ADD only; static pods (config.source not "api") are exempt. */
static int check_uid(struct mn_call *c, const struct mn_plan *p)
{
	const char *uid =
	    json_string_value(json_object_get(json_object_get(c->pod, "metadata"), "uid"));
	const char *src = mn_k8s_annotation(c->pod, "kubernetes.io/config.source");

	if (!p->pod.uid || !uid || streq(uid, p->pod.uid) || (src && !streq(src, "api")))
		return 0;
	return cni_errorf(&c->ctx->err, CNI_ERR_PLUGIN, -ESTALE,
			  "pod %s/%s: expected UID %s but the apiserver has %s", p->pod.namespace,
			  p->pod.name, p->pod.uid, uid);
}

int mn_connect(struct mn_call *c)
{
	_cleanup_free_ char *session = NULL;
	struct mn_kubeconfig kc;
	int r;

	if (!c->conf.kubeconfig || c->k8s)
		return 0;
	if ((r = mn_kubeconfig_load(c->conf.kubeconfig, &kc, &c->ctx->err)) < 0)
		return r;
	if (!(session = mn_k8s_session_file(c->conf.cni_dir))) {
		mn_kubeconfig_done(&kc);
		return -ENOMEM;
	}
	r = mn_k8s_open(&kc, session, &c->k8s, &c->ctx->err);
	mn_kubeconfig_done(&kc);
	if (r < 0)
		return r;
	/* DEL and GC never wait long for it: they can do without. */
	if (c->lenient)
		mn_k8s_set_budget(c->k8s, MN_DEL_APISERVER_BUDGET_MS);
	return 0;
}

static int fetch_pod(struct mn_call *c, const struct mn_plan *p)
{
	int r;

	if (!c->k8s)
		return 0;
	if (!p->pod.namespace || !p->pod.name) {
		cni_log_warning("CNI_ARGS has no K8S_POD_NAMESPACE/K8S_POD_NAME: pod networks "
				"and network-status skipped");
		return 0;
	}
	r = mn_k8s_get_pod(c->k8s, p->pod.namespace, p->pod.name, &c->pod, &c->ctx->err);
	if (r < 0)
		return cni_error_wrapf(&c->ctx->err, r, "pod %s/%s", p->pod.namespace, p->pod.name);
	if (r == 0)
		return cni_errorf(&c->ctx->err, CNI_ERR_PLUGIN, -ENOENT,
				  "pod %s/%s not found in the apiserver", p->pod.namespace,
				  p->pod.name);
	return check_uid(c, p);
}

static int devinfo_prepare(struct mn_call *c, const struct mn_plan *p, struct mn_delegate *d);

/*
 * DEL without a cache: the pod from the apiserver, within the DEL's budget.
 * Anything that goes wrong is a warning: without the pod only the cluster
 * and default networks are deleted.
 */
static void rebuild_fetch_pod(struct mn_call *c, const struct mn_plan *p)
{
	const char *without = "only the cluster and default networks are deleted";
	int r;

	if ((r = mn_connect(c)) < 0) {
		(void)mn_lenient(c, r, without);
		return;
	}
	if (!c->k8s || !p->pod.namespace || !p->pod.name)
		return;
	r = mn_k8s_get_pod(c->k8s, p->pod.namespace, p->pod.name, &c->pod, &c->ctx->err);
	if (r < 0) {
		cni_error_wrapf(&c->ctx->err, r, "pod %s/%s", p->pod.namespace, p->pod.name);
		(void)mn_lenient(c, r, without);
	} else if (r == 0) {
		cni_log_warning("pod %s/%s is gone: %s", p->pod.namespace, p->pod.name, without);
	}
}

int mn_plan_rebuild(struct mn_call *c, struct mn_plan *p)
{
	int r;

	if ((r = mn_plan_init(p, c->ctx)) < 0)
		return r;
	c->pod_uid = p->pod.uid;
	rebuild_fetch_pod(c, p);
	if ((r = mn_resolve(c, p)) < 0)
		return r;
	for (size_t i = 0; i < p->n; i++)
		if ((r = devinfo_prepare(c, p, &p->d[i])) < 0)
			return r;
	return 0;
}

static long readiness_wait_ms(void)
{
	const char *s = getenv("PODWIRE_MULTINET_READINESS_MS"); /* test-only */
	uint64_t v;

	return s && safe_atou64(s, &v) == 0 && v < 3600000 ? (long)v : 45000;
}

static int wait_ready(struct mn_call *c, long wait_ms)
{
	const char *f = c->conf.readiness_file;

	for (long waited = 0; f; waited += 250) {
		struct timespec ts = {0, 250 * 1000000L};

		if (access(f, F_OK) == 0)
			return 0;
		if (waited >= wait_ms)
			return cni_errorf(&c->ctx->err, CNI_ERR_NOT_AVAILABLE, -ENOENT,
					  "readinessindicatorfile '%s' does not exist: is the "
					  "cluster network ready?",
					  f);
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* Fail before running anything when an ifname already exists in the pod. */
static int check_collisions(struct podnet *pn, const struct mn_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct nlw_link l;
		int r = nlw_link_get_by_name(pn->pod, p->d[i].ifname, &l);

		if (r == 0)
			return cni_errorf(&pn->ctx->err, CNI_ERR_EXISTS, -EEXIST,
					  "network %s: interface '%s' already exists in the pod",
					  p->d[i].display, p->d[i].ifname);
		if (r != -ENODEV)
			return podnet_fail(pn->ctx, pn->pod, r,
					   "network %s: look up '%s' in the pod", p->d[i].display,
					   p->d[i].ifname);
	}
	return 0;
}

void mn_runtime_conf(const struct mn_plan *p, const struct mn_delegate *d,
		     struct cni_runtime_conf *rc)
{
	*rc = (struct cni_runtime_conf){
	    .container_id = p->container_id,
	    .netns = p->netns,
	    .ifname = d->ifname,
	    .args = p->args,
	    .n_args = p->n_args,
	    .capability_args = d->cap_args,
	};
}

static void dashes(char *s)
{
	for (; *s; s++)
		if (*s == '/')
			*s = '-';
}

/*
 * The device plugin's device-info file, copied to the path handed to the
 * delegate (CNIDeviceInfoFile), next to deviceInfoDir in "../cni/".
 */
static int devinfo_prepare(struct mn_call *c, const struct mn_plan *p, struct mn_delegate *d)
{
	_cleanup_free_ char *dir = NULL, *disp = NULL;
	char *slash;

	if (!d->device_id)
		return 0;
	if (!(dir = strdup(c->conf.device_info_dir)))
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (!(disp = strdup(d->display)))
		return -ENOMEM;
	dashes(disp);
	if (asprintf(&d->devinfo_file, "%s/cni/%s-%s_%s", slash ? dir : ".", disp, p->container_id,
		     d->ifname) < 0) {
		d->devinfo_file = NULL;
		return -ENOMEM;
	}
	if (!d->cap_args && !(d->cap_args = json_object()))
		return -ENOMEM;
	json_object_set_new(d->cap_args, "deviceID", json_string(d->device_id));
	json_object_set_new(d->cap_args, "CNIDeviceInfoFile", json_string(d->devinfo_file));
	return 0;
}

static void copy_file(const char *src, const char *dst)
{
	_cleanup_close_ int in = open(src, O_RDONLY | O_CLOEXEC), out = -1;
	char buf[65536];
	ssize_t n;

	if (in < 0)
		return;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0444);
	if (out < 0)
		return;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
}

static void devinfo_copy(struct mn_call *c, const struct mn_delegate *d)
{
	_cleanup_free_ char *src = NULL, *res = NULL, *dir = NULL;
	char *slash;

	if (!d->devinfo_file || !d->resource_name || !(res = strdup(d->resource_name)))
		return;
	dashes(res);
	if (asprintf(&src, "%s/%s-%s-device.json", c->conf.device_info_dir, res, d->device_id) < 0)
		return;
	if (!(dir = strdup(d->devinfo_file)) || !(slash = strrchr(dir, '/')))
		return;
	*slash = '\0';
	(void)file_mkdir_parents(dir, 0755);
	copy_file(src, d->devinfo_file);
}

static json_t *devinfo_read(const struct mn_delegate *d)
{
	if (!d->devinfo_file || access(d->devinfo_file, R_OK) < 0)
		return NULL;
	json_t *v = json_load_file(d->devinfo_file, JSON_REJECT_DUPLICATES, NULL);

	if (!json_is_object(v)) {
		json_decref(v);
		return NULL;
	}
	return v;
}

/*
 * The cluster network's process, started before the apiserver calls so that
 * its start-up overlaps them. The pod may still replace the cluster network
 * (default-network) or refuse the ADD: then the process, which has read
 * nothing, is killed.
 */
static void start_master(struct mn_call *c, const struct mn_plan *p)
{
	struct cni_runtime_conf rc;

	if (p->n == 0 || !p->d[0].master || p->d[0].ifname_request)
		return;
	mn_runtime_conf(p, &p->d[0], &rc);
	rc.ifname = p->ifname;
	(void)cni_runtime_ahead_start(&c->rt, p->d[0].list, &rc);
}

/* While delegate i runs, delegate i + 1's first plugin is started. */
static void set_next(struct mn_call *c, const struct mn_plan *p, size_t i)
{
	c->ahead.next_list = i + 1 < p->n ? p->d[i + 1].list : NULL;
	if (c->ahead.next_list)
		mn_runtime_conf(p, &p->d[i + 1], &c->ahead.next_rc);
}

static int write_status(struct mn_call *c, const struct mn_plan *p)
{
	_cleanup_free_ char *text = NULL;
	json_t *arr;
	int r = 0;

	if (!c->k8s || !c->pod)
		return 0;
	if (mn_strv_contains(&c->conf.system_namespaces, p->pod.namespace)) {
		cni_log_info("pod namespace %s is a system namespace: no network-status",
			     p->pod.namespace);
		return 0;
	}
	if (!(arr = json_array()))
		return -ENOMEM;
	for (size_t i = 0; i < p->n && r >= 0; i++) {
		json_t *di = devinfo_read(&p->d[i]);
		const struct mn_status_net net = {p->d[i].display, p->d[i].master, p->d[i].result,
						  di};

		r = mn_status_append(arr, &net, c->conf.version, &c->ctx->err);
		json_decref(di);
	}
	text = r >= 0 ? json_dumps(arr, JSON_COMPACT) : NULL;
	json_decref(arr);
	if (r < 0 || !text)
		return r < 0 ? r : -ENOMEM;
	r = mn_k8s_patch_status(c->k8s, p->pod.namespace, p->pod.name, text, &c->ctx->err);
	return r < 0 ? cni_error_wrapf(&c->ctx->err, r, "network-status") : 0;
}

static int set_result(struct mn_call *c, const struct mn_plan *p)
{
	const json_t *res = NULL;

	for (size_t i = 0; i < p->n && !res; i++)
		if (p->d[i].master)
			res = p->d[i].result;
	for (size_t i = 0; i < p->n && !res; i++)
		res = p->d[i].result;
	if (!res)
		return cni_errorf(&c->ctx->err, CNI_ERR_PLUGIN, -EINVAL,
				  "no delegate returned a result");
	return cni_result_from_json_any(res, c->conf.version, "cluster network result",
					&c->ctx->result, &c->ctx->err);
}

/*
 * The working set of an ADD lives on the heap, owned by the undo step of
 * the cache entry: pushed first, that step runs last and frees it, so every
 * later step (the DEL of a delegate, the tombstone) can still use the call
 * and the plan.
 */
struct mn_add {
	struct mn_call c;
	struct mn_plan p;
	bool cached;		       /* the cache entry is written */
	struct cni_error rollback_err; /* the delegates' DELs that failed on rollback */
};

static void add_free(void *arg)
{
	struct mn_add *a = arg;

	cni_error_done(&a->rollback_err);
	mn_plan_done(&a->p);
	mn_call_done(&a->c);
	free(a);
}

/* Undo of the tombstone's removal: a DEL after the failed ADD is a no-op again. */
static int undo_tombstone(struct podnet *pn, void *arg)
{
	struct mn_add *a = arg;

	(void)pn;
	return mn_tombstone_write(a->c.conf.cni_dir, a->p.container_id, a->p.ifname);
}

/*
 * Undo of the cache entry, once written: it goes once every delegate's DEL
 * succeeded (the steps that ran before this one); otherwise it stays, and
 * the runtime's DEL runs every delegate again.
 */
static int undo_cache(struct podnet *pn, void *arg)
{
	struct mn_add *a = arg;

	(void)pn;
	if (!a->cached)
		return 0;
	if (!cni_error_isset(&a->rollback_err))
		return mn_cache_remove(a->c.conf.cni_dir, a->p.container_id);
	cni_log_error("rollback: %s; the cache stays for the runtime's DEL",
		      a->rollback_err.msg ? a->rollback_err.msg : "a DEL failed");
	return 0;
}

struct delegate_undo {
	struct mn_add *a;
	size_t i;
};

static int undo_delegate(struct podnet *pn, void *arg)
{
	struct delegate_undo *u = arg;

	(void)pn;
	return mn_del_delegate(&u->a->c, &u->a->p, u->i, &u->a->rollback_err);
}

/*
 * Attach delegate i: its undo (a DEL) is pushed before its ADD runs, since a
 * delegate whose ADD failed may have made part of its chain (libcni rolls
 * nothing back); then the ADD, and its result appended to the cache.
 */
static int attach_delegate(struct podnet *pn, struct mn_add *a, size_t i)
{
	struct mn_call *c = &a->c;
	struct mn_delegate *d = &a->p.d[i];
	struct delegate_undo *u = malloc(sizeof(*u));
	struct cni_runtime_conf rc;
	char what[192];
	json_t *result = NULL;
	int r;

	if (!u)
		return -ENOMEM;
	*u = (struct delegate_undo){a, i};
	snprintf(what, sizeof(what), "DEL network %s (%s)", d->display, d->ifname);
	if ((r = podnet_undo_push(pn, what, undo_delegate, u, free)) < 0)
		return r;
	devinfo_copy(c, d);
	set_next(c, &a->p, i);
	mn_runtime_conf(&a->p, d, &rc);
	r = cni_runtime_add(&c->rt, d->list, &rc, &result, &c->ctx->err);
	if (r < 0)
		return cni_error_wrapf(&c->ctx->err, r, "network %s (%s)", d->display, d->ifname);
	d->result = result;
	d->state = MN_ADDED;
	cni_log_info("network %s: added as %s", d->display, d->ifname);
	return mn_cache_update(c->conf.cni_dir, &a->p, i, i + 1, &c->ctx->err);
}

/*
 * A DEL of an earlier attachment with this ID and ifname left a tombstone:
 * gone before anything runs, so a DEL never takes this attachment for done.
 * (The cache, written next, wins over it anyway.)
 */
static int remove_tombstone(struct podnet *pn, struct mn_add *a)
{
	const char *dir = a->c.conf.cni_dir;
	int r;

	if (!mn_tombstone_exists(dir, a->p.container_id, a->p.ifname))
		return 0;
	r = mn_tombstone_remove(dir, a->p.container_id, a->p.ifname);
	if (r < 0) {
		cni_log_warning("cannot remove the tombstone of %s/%s: %s, ignoring",
				a->p.container_id, a->p.ifname, strerror(-r));
		return 0;
	}
	return podnet_undo_push(pn, "put the tombstone back", undo_tombstone, a, NULL);
}

/* Everything before the first delegate, ending with the durable cache entry. */
static int prepare(struct podnet *pn, struct mn_add *a)
{
	struct mn_call *c = &a->c;
	struct mn_plan *p = &a->p;
	int r;

	if ((r = wait_ready(c, readiness_wait_ms())) < 0 || (r = mn_plan_init(p, c->ctx)) < 0)
		return r;
	c->pod_uid = p->pod.uid;
	if ((r = mn_resolve_master_early(c, p)) < 0)
		return r;
	start_master(c, p);
	if ((r = mn_connect(c)) < 0 || (r = fetch_pod(c, p)) < 0 || (r = mn_resolve(c, p)) < 0 ||
	    (r = mn_route_validate(p, &c->ctx->err)) < 0 || (r = check_collisions(pn, p)) < 0)
		return r;
	for (size_t i = 0; i < p->n; i++)
		if ((r = devinfo_prepare(c, p, &p->d[i])) < 0)
			return r;
	if ((r = remove_tombstone(pn, a)) < 0 ||
	    (r = mn_cache_write(c->conf.cni_dir, p, true, &c->ctx->err)) < 0)
		return r;
	a->cached = true;
	return 0;
}

/* After every delegate: default routes, the result, then network-status, the last step. */
static int finish(struct podnet *pn, struct mn_add *a)
{
	struct mn_call *c = &a->c;
	int r = mn_route_apply(pn, &a->p, &c->rt);

	/* The cache already has every result unless default-route edited them. */
	if (r > 0)
		r = mn_cache_update(c->conf.cni_dir, &a->p, 0, a->p.n, &c->ctx->err);
	if (r >= 0)
		r = set_result(c, &a->p);
	if (r >= 0)
		r = write_status(c, &a->p);
	return r;
}

static int add_run(struct podnet *pn, struct mn_add *a)
{
	int r = mn_call_init(&a->c, pn->ctx);

	if (r < 0)
		return r;
	a->c.rt.ahead = &a->c.ahead;
	if ((r = prepare(pn, a)) < 0)
		return r;
	for (size_t i = 0; i < a->p.n; i++)
		if ((r = attach_delegate(pn, a, i)) < 0)
			return r;
	return finish(pn, a);
}

/* A failure anywhere is undone by podnet, every step in reverse (attach_delegate: DELs). */
int mn_cmd_add(struct podnet *pn)
{
	struct mn_add *a = calloc(1, sizeof(*a));
	int r;

	if (!a)
		return -ENOMEM;
	/* Pushed first: it owns a and runs last, after every step that uses a. */
	r = podnet_undo_push(pn, "remove the cache entry", undo_cache, a, add_free);
	if (r < 0)
		return r;
	r = add_run(pn, a);
	/* A process started ahead that nobody needs is killed before any DEL runs. */
	cni_runtime_ahead_drop(&a->c.ahead);
	return r;
}
