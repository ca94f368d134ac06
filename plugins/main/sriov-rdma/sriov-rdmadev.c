/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VF's RDMA device: checks before any change (exclusive netns mode, the
 * device in the host netns), the move into the pod by RDMA netlink (nldev
 * SET with RDMA_NLDEV_NET_NS_FD), verification there (nldev GET through a
 * socket opened in the pod netns, then libibverbs when the library can see
 * the device), and the move back. The kernel looks devices up in the
 * socket's netns and requires it to be the device's current netns, so the
 * move back is sent on a socket created inside the pod netns.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/netlink.h>

#include "base/dl.h"
#include "base/parse.h"
#include "cni/log.h"
#include "nlw/netns.h"
#include "nlw/rdma.h"
#include "nlw/sock.h"
#include "sriov-rdma.h"

#define EXCLUSIVE_HINT                                                                             \
	"run `rdma system set netns exclusive` before any pod starts (persist with `options "      \
	"ib_core netns_mode=0` in /etc/modprobe.d)"

static int open_real(int netns_fd, struct nlw_sock **ret)
{
	if (netns_fd < 0)
		return nlw_sock_open_protocol(NETLINK_RDMA, ret);
	return nlw_sock_open_in_netns(netns_fd, NETLINK_RDMA, ret);
}

static int (*rdma_open)(int netns_fd, struct nlw_sock **ret) = open_real;

void sr_rdma_set_open(int (*open_fn)(int netns_fd, struct nlw_sock **ret))
{
	rdma_open = open_fn ? open_fn : open_real;
}

int sr_rdma_precheck(struct sr_run *r)
{
	const char *dev = r->st.vf.rdma_dev;
	struct nlw_rdma_dev d;
	int e;

	r->st.rdma_move = false;
	if (!dev[0] && r->conf.rdma == SR_RDMA_ON)
		return cni_errorf(&r->ctx->err, CNI_ERR_INVALID_CONFIG, -ENODEV,
				  "rdma: \"on\" but VF %s has no RDMA device (no infiniband/ under "
				  "its PCI device in sysfs)",
				  r->st.vf.bdf);
	if (!dev[0] || r->conf.rdma == SR_RDMA_OFF)
		return 0;
	e = rdma_open(-1, &r->rdma);
	if (e < 0)
		return podnet_fail(r->ctx, NULL, e,
				   "rdma: VF %s has RDMA device '%s' but RDMA netlink "
				   "is unavailable (kernel without ib_core?)",
				   r->st.vf.bdf, dev);
	e = nlw_rdma_netns_mode(r->rdma);
	if (e == 1)
		return cni_errorf(
		    &r->ctx->err, CNI_ERR_PLUGIN, -EOPNOTSUPP,
		    "rdma: the RDMA subsystem's netns mode is \"shared\", moving '%s' "
		    "needs \"exclusive\": " EXCLUSIVE_HINT,
		    dev);
	if (e < 0)
		return podnet_fail(r->ctx, r->rdma, e, "rdma: read the RDMA netns mode");
	e = nlw_rdma_dev_get_by_name(r->rdma, dev, &d);
	if (e < 0)
		return podnet_fail(r->ctx, r->rdma, e,
				   "rdma: RDMA device '%s' of VF %s in the host netns", dev,
				   r->st.vf.bdf);
	r->rdma_index = d.index;
	r->st.rdma_move = true;
	return 0;
}

int sr_rdma_to_pod(struct sr_run *r)
{
	int e = nlw_rdma_dev_set_netns(r->rdma, r->rdma_index, r->pn->netns_fd);

	if (e < 0)
		return podnet_fail(r->ctx, r->rdma, e,
				   "rdma: move RDMA device '%s' into netns '%s'", r->st.vf.rdma_dev,
				   r->ctx->netns);
	return 0;
}

/* ---- libibverbs, loaded on demand: ~0.9 ms less per exec (bench/sriov-ibverbs.sh) ---- */

struct ibv_device;
struct ibv_context;

struct verbs {
	void *lib;
	struct ibv_device **(*get_list)(int *);
	void (*free_list)(struct ibv_device **);
	const char *(*name)(struct ibv_device *);
	struct ibv_context *(*open)(struct ibv_device *);
	int (*close)(struct ibv_context *);
	int (*query_port)(struct ibv_context *, uint8_t, void *);
	const char *want;
	int state; /* port 1 state (IBV_PORT_*), -1 when not found */
	int err;
};

static bool verbs_load(struct verbs *v, char *why, size_t why_len)
{
	static const char *const sonames[] = {"libibverbs.so.1", NULL};
	const struct dl_sym syms[] = {
	    DL_SYM("ibv_get_device_list", v->get_list),
	    DL_SYM("ibv_free_device_list", v->free_list),
	    DL_SYM("ibv_get_device_name", v->name),
	    DL_SYM("ibv_open_device", v->open),
	    DL_SYM("ibv_close_device", v->close),
	    DL_SYM("ibv_query_port", v->query_port),
	};

	v->lib = dl_load(sonames, syms, sizeof(syms) / sizeof(syms[0]), why, why_len);
	return v->lib != NULL;
}

/* Runs inside the pod netns: rdma-core enumerates devices through netlink there. */
static int verbs_probe(void *arg)
{
	struct verbs *v = arg;
	struct ibv_device **list;
	int n = 0;

	v->state = -1;
	list = v->get_list(&n);
	for (int i = 0; list && i < n; i++) {
		/* struct ibv_port_attr starts with enum ibv_port_state; 256 bytes cover it. */
		unsigned char attr[256] = {0};
		struct ibv_context *c;

		if (!streq(v->name(list[i]), v->want))
			continue;
		c = v->open(list[i]);
		if (!c) {
			v->err = -errno;
			break;
		}
		v->err = v->query_port(c, 1, attr);
		memcpy(&v->state, attr, sizeof(int));
		v->close(c);
		break;
	}
	if (list)
		v->free_list(list);
	return 0;
}

static int verify_verbs(struct sr_run *r)
{
	struct verbs v = {.want = r->st.vf.rdma_dev};
	char why[256];
	int e;

	if (r->pn->netns_fd < 0 || rdma_open != open_real)
		return 0; /* the test seam: no real device to open */
	if (!verbs_load(&v, why, sizeof(why))) {
		cni_log_debug("rdma: libibverbs not available (%s): nldev verification only", why);
		goto out;
	}
	e = nlw_netns_run(r->pn->netns_fd, verbs_probe, &v);
	if (e < 0 || v.state < 0)
		cni_log_info("rdma: libibverbs does not list '%s' in the pod (provider missing?): "
			     "verified by nldev only",
			     v.want);
	else if (v.err)
		return cni_errorf(&r->ctx->err, CNI_ERR_PLUGIN, v.err < 0 ? v.err : -EIO,
				  "rdma: '%s' is listed in the pod but ibv_open_device/"
				  "ibv_query_port fails (user-space provider ABI mismatch?)",
				  v.want);
	else
		cni_log_debug("rdma: '%s' port 1 state %d in the pod", v.want, v.state);
out:
	if (v.lib)
		dlclose(v.lib);
	return 0;
}

int sr_rdma_in_pod(struct sr_run *r)
{
	struct nlw_sock *s = NULL;
	struct nlw_rdma_dev d;
	int e;

	if (r->pn->netns_fd < 0)
		return 0;
	e = rdma_open(r->pn->netns_fd, &s);
	if (e >= 0)
		e = nlw_rdma_dev_get_by_name(s, r->st.vf.rdma_dev, &d);
	nlw_sock_free(s);
	return e == -ENODEV ? 0 : e < 0 ? e : 1;
}

int sr_rdma_verify(struct sr_run *r)
{
	int e = sr_rdma_in_pod(r);

	if (e == 0)
		return cni_errorf(&r->ctx->err, CNI_ERR_PLUGIN, -ENODEV,
				  "rdma: '%s' moved but nldev does not show it in netns '%s'",
				  r->st.vf.rdma_dev, r->ctx->netns);
	if (e < 0)
		return podnet_fail(r->ctx, NULL, e, "rdma: verify '%s' in the pod",
				   r->st.vf.rdma_dev);
	return verify_verbs(r);
}

/* Back to the host netns; a device already in the host counts as done (-ENODEV: neither). */
int sr_rdma_release(struct sr_run *r)
{
	struct nlw_sock *s = NULL;
	struct nlw_rdma_dev d;
	int e = -ENODEV;

	if (!r->st.rdma_move)
		return 0;
	/* No RDMA netlink in the pod netns: no device there either. */
	if (r->pn->netns_fd >= 0 && rdma_open(r->pn->netns_fd, &s) >= 0) {
		e = nlw_rdma_dev_get_by_name(s, r->st.vf.rdma_dev, &d);
		if (e >= 0)
			e = nlw_rdma_dev_set_netns(s, d.index, r->host_ns_fd);
		if (e < 0 && e != -ENODEV)
			e = podnet_fail(r->ctx, s, e, "rdma: move '%s' back to the host",
					r->st.vf.rdma_dev);
		nlw_sock_free(s);
		if (e != -ENODEV)
			return e;
		s = NULL;
	}
	/* Without RDMA netlink in the host there is no device to wait for either. */
	if (rdma_open(-1, &s) < 0)
		return -ENODEV;
	e = nlw_rdma_dev_get_by_name(s, r->st.vf.rdma_dev, &d);
	nlw_sock_free(s);
	if (e < 0 && e != -ENODEV)
		return podnet_fail(r->ctx, NULL, e, "rdma: look up '%s' in the host",
				   r->st.vf.rdma_dev);
	return e < 0 ? e : 0;
}
