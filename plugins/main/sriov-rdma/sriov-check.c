/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CHECK (the state against the kernel: the VF netdev in the pod with its
 * name, MAC, MTU, up and the addresses of prevResult; the PF-side keys as
 * asked; the RDMA device in the pod netns) and STATUS (stateDir writable,
 * the RDMA netns mode, the IPAM's STATUS).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/log.h"
#include "nlw/addr.h"
#include "nlw/link.h"
#include "nlw/rdma.h"
#include "nlw/sock.h"
#include "nlw/vf.h"
#include "podnet/check.h"
#include "sriov-rdma.h"

static int differs(struct cni_ctx *ctx, const char *what, const char *bdf)
{
	return cni_errorf(&ctx->err, CNI_ERR_CHECK_FAILED, -EINVAL, "VF %s: %s", bdf, what);
}

/* prevResult's addresses on the pod netdev and its routes in the pod (podnet's CHECK helpers). */
static int check_l3(struct sr_run *r, int ifindex)
{
	const struct cni_result *pr = r->ctx->prev_result;
	int e;

	if (!pr)
		return 0;
	e = podnet_check_addrs(r->pn, ifindex, pr);
	return e < 0 ? e : podnet_check_routes(r->pn, pr);
}

static int check_netdev(struct sr_run *r)
{
	struct nlw_link l;
	const char *bdf = r->st.vf.bdf;

	if (nlw_link_get_by_name(r->pn->pod, r->ctx->ifname, &l) < 0 ||
	    l.ifindex != r->st.pod_ifindex)
		return differs(r->ctx, "netdev is not in the pod under CNI_IFNAME", bdf);
	if (memcmp(l.mac, r->st.pod_mac, 6) != 0)
		return differs(r->ctx, "netdev MAC differs from the one ADD set", bdf);
	if (l.mtu != r->st.pod_mtu)
		return differs(r->ctx, "netdev MTU differs from the one ADD set", bdf);
	if (!(l.flags & IFF_UP))
		return differs(r->ctx, "netdev is down", bdf);
	return check_l3(r, l.ifindex);
}

static int check_pf(struct sr_run *r)
{
	struct nlw_vf_info have;
	int e;

	if (!r->st.applied)
		return 0;
	e = nlw_vf_get(r->pn->host, r->st.pf_ifindex, r->st.vf.index, &have);
	if (e < 0)
		return podnet_fail(r->ctx, r->pn->host, e, "read VF %d of PF '%s'", r->st.vf.index,
				   r->st.vf.pf_name);
	for (size_t i = 0; i < ARRAY_SIZE(sr_pf_order); i++) {
		unsigned key = sr_pf_order[i];

		if ((r->st.applied & key) && !sr_plan_matches(&r->st.want, &have, key))
			return cni_errorf(&r->ctx->err, CNI_ERR_CHECK_FAILED, -EINVAL,
					  "%s: VF %s on PF '%s' differs from the config",
					  sr_pf_key_name(key), r->st.vf.bdf, r->st.vf.pf_name);
	}
	return 0;
}

int sr_check(struct sr_run *r)
{
	struct cni_ctx *ctx = r->ctx;
	int e = sr_conf_parse(ctx, &r->conf);

	if (e >= 0)
		e = sr_state_dir_open(r->conf.state_dir, &r->dir_fd);
	if (e >= 0)
		e = sr_state_load(r->dir_fd, r->conf.device_id, &r->st);
	if (e == -ENOENT || (e >= 0 && (!streq(r->st.container_id, ctx->container_id) ||
					!streq(r->st.ifname, ctx->ifname) || !r->st.complete)))
		return cni_errorf(&ctx->err, CNI_ERR_CHECK_FAILED, -ENOENT,
				  "VF %s: no complete attachment of %s/%s", r->conf.device_id,
				  ctx->container_id, ctx->ifname);
	if (e < 0)
		return cni_error_isset(&ctx->err) ? e : podnet_fail(ctx, NULL, e, "stateDir: read");
	if (!r->st.vf.dpdk)
		e = check_netdev(r);
	if (e >= 0)
		e = check_pf(r);
	if (e >= 0 && r->st.rdma_move && sr_rdma_in_pod(r) != 1)
		e = differs(ctx, "RDMA device is not in the pod netns", r->st.vf.bdf);
	if (e >= 0 && ctx->conf.ipam_type)
		e = sr_ipam_run(ctx, CNI_CMD_CHECK);
	return e;
}

static int status_rdma(struct cni_ctx *ctx, enum sr_rdma_mode mode)
{
	struct nlw_sock *s = NULL;
	int e;

	if (mode == SR_RDMA_OFF)
		return 0;
	e = nlw_sock_open_protocol(NETLINK_RDMA, &s);
	if (e >= 0)
		e = nlw_rdma_netns_mode(s);
	nlw_sock_free(s);
	if (e == 1)
		return cni_errorf(
		    &ctx->err, CNI_ERR_NOT_AVAILABLE, -EOPNOTSUPP,
		    "rdma: the RDMA subsystem's netns mode is \"shared\"; VFs with an "
		    "RDMA device need `rdma system set netns exclusive`");
	if (e < 0 && mode == SR_RDMA_ON)
		return cni_errorf(&ctx->err, CNI_ERR_NOT_AVAILABLE, e,
				  "rdma: \"on\" but RDMA netlink is unavailable (kernel without "
				  "ib_core?)");
	return 0;
}

int sr_cmd_status(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct sr_conf c;
	int e = sr_conf_parse(ctx, &c), fd = -1, tmp;

	if (e < 0)
		return e;
	e = sr_state_dir_open(c.state_dir, &fd);
	if (e >= 0) {
		tmp = openat(fd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
		e = tmp < 0 ? negative_errno() : 0;
		if (tmp >= 0)
			close(tmp);
	}
	if (e < 0)
		e = cni_errorf(&ctx->err, CNI_ERR_NOT_AVAILABLE, e,
			       "stateDir: '%s' is not writable", c.state_dir);
	if (fd >= 0)
		close(fd);
	if (e >= 0)
		e = status_rdma(ctx, c.rdma);
	if (e >= 0 && ctx->conf.ipam_type)
		e = sr_ipam_run(ctx, CNI_CMD_STATUS);
	sr_conf_done(&c);
	return e;
}
