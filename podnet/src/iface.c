/* SPDX-License-Identifier: Apache-2.0 */
/* A pod interface configured from a result: sysctls, addresses, up, routes. */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "cni/log.h"
#include "nlw/addr.h"
#include "nlw/link.h"
#include "nlw/route.h"
#include "nlw/sock.h"
#include "nlw/sysctl.h"
#include "podnet/iface.h"

#define DAD_WAIT_STEP_NS (20 * 1000 * 1000)
#define DAD_WAIT_MAX_STEPS 250

void podnet_sysctl_try(struct cni_ctx *ctx, const char *path, const char *value)
{
	int r = nlw_sysctl_set(ctx->procfs_fd, path, value);

	if (r < 0)
		cni_log_debug("sysctl %s=%s: %s, ignoring", path, value, strerror(-r));
}

/* The pod interface's sysctls, all in one visit of the pod netns. */
static void pod_sysctls(struct podnet *pn, const struct podnet_iface *o, bool has_v6)
{
	struct nlw_sysctl_batch b;
	const char *n = o->name;
	int r;

	nlw_sysctl_batch_init(&b, pn->ctx->procfs_fd);
	if (!o->p2p)
		(void)nlw_sysctl_batch_put(&b, "1", "net/ipv4/conf/%s/arp_notify", n);
	if (has_v6) {
		/* The IPv6 twin of arp_notify: unsolicited NA when the address comes up. */
		if (!o->p2p)
			(void)nlw_sysctl_batch_put(&b, "1", "net/ipv6/conf/%s/ndisc_notify", n);
		(void)nlw_sysctl_batch_put(&b, "0", "net/ipv6/conf/%s/disable_ipv6", "lo");
		(void)nlw_sysctl_batch_put(&b, "0", "net/ipv6/conf/%s/disable_ipv6", n);
		(void)nlw_sysctl_batch_put(&b, "1", "net/ipv6/conf/%s/keep_addr_on_down", n);
		if (o->enable_dad)
			(void)nlw_sysctl_batch_put(&b, "1", "net/ipv6/conf/%s/enhanced_dad", n);
		(void)nlw_sysctl_batch_put(&b, o->enable_dad ? "1" : "0",
					   "net/ipv6/conf/%s/accept_dad", n);
	}
	if (b.n == 0)
		return;
	r = nlw_sysctl_batch_write(&b, pn->netns_fd);
	if (r < 0) {
		cni_log_debug("sysctls in '%s': %s, ignoring", pn->ctx->netns, strerror(-r));
		return;
	}
	for (size_t i = 0; i < b.n; i++)
		if (b.err[i] < 0) /* best effort, as the reference */
			cni_log_debug("sysctl %s=%s: %s, ignoring", b.path[i], b.value[i],
				      strerror(-b.err[i]));
}

/* With enable_dad, wait (bounded) until no address is tentative, as the reference does. */
static int wait_dad(struct podnet *pn, const struct podnet_iface *o)
{
	struct cni_ctx *ctx = pn->ctx;

	for (unsigned i = 0; i < DAD_WAIT_MAX_STEPS; i++) {
		int r = nlw_addr_dad_state(pn->pod, o->ifindex);

		if (r == 0)
			return 0;
		if (r == -EADDRNOTAVAIL)
			return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, r,
					  "IPv6 duplicate address detection failed on '%s'",
					  o->name);
		if (r < 0)
			return podnet_fail(ctx, pn->pod, r, "read addresses of '%s'", o->name);
		nanosleep(&(struct timespec){.tv_nsec = DAD_WAIT_STEP_NS}, NULL);
	}
	return cni_errorf(&ctx->err, CNI_ERR_TRY_AGAIN, -ETIMEDOUT,
			  "IPv6 addresses of '%s' still tentative after 5s", o->name);
}

int podnet_pod_route_add(struct podnet *pn, int ifindex, const struct cni_route *rt,
			 const struct cni_result *res)
{
	bool on_link = rt->has_scope && rt->scope == NLW_SCOPE_LINK;
	const union ip_addr *gw = rt->has_gw ? &rt->gw : NULL;
	struct nlw_route nr = {.dst = rt->dst, .oif = ifindex};
	char dst[IP_PREFIX_STRLEN];
	int r;

	/* A route without a gateway goes via the result's, unless it is on-link. */
	if (!gw && !on_link)
		gw = cni_result_family_gw(res, rt->dst.family);
	ip_prefix_mask(&nr.dst);
	if (gw) {
		nr.has_gw = true;
		nr.gw = *gw;
	}
	nr.priority = rt->priority;
	nr.table = rt->has_table ? rt->table : 0;
	nr.scope = rt->has_scope ? (unsigned char)rt->scope : 0;
	/* The reference drops these (marked bug); podwire applies them. */
	nr.mtu = rt->mtu;
	nr.advmss = rt->advmss;
	r = nlw_route_append(pn->pod, &nr);
	if (r == -EEXIST)
		return 0; /* the same route twice in the result */
	if (r < 0)
		return podnet_fail(pn->ctx, pn->pod, r, "add route %s in '%s'",
				   ip_prefix_fmt(&rt->dst, dst), pn->ctx->netns);
	return 0;
}

static int add_addrs(struct podnet *pn, const struct podnet_iface *o, const struct cni_result *res)
{
	char addr[IP_PREFIX_STRLEN];

	for (size_t i = 0; i < res->n_ips; i++) {
		const struct cni_ip *ip = &res->ips[i];
		struct nlw_addr_opts ao = {.flags = 0};
		int r;

		if (ip->address.family == AF_INET6 && !o->enable_dad)
			ao.flags = NLW_ADDR_NODAD;
		r = nlw_addr_add(pn->pod, o->ifindex, &ip->address, &ao);
		if (r < 0)
			return podnet_fail(pn->ctx, pn->pod, r, "add address %s to '%s'",
					   ip_prefix_fmt(&ip->address, addr), o->name);
	}
	return 0;
}

int podnet_iface_configure(struct podnet *pn, const struct podnet_iface *o,
			   const struct cni_result *res)
{
	bool v6 = cni_result_has_family(res, AF_INET6);
	int r;

	pod_sysctls(pn, o, v6);
	r = add_addrs(pn, o, res);
	if (r < 0)
		return r;
	r = o->is_up ? 0 : nlw_link_set_up(pn->pod, o->ifindex);
	if (r < 0)
		return podnet_fail(pn->ctx, pn->pod, r, "set '%s' up", o->name);
	if (v6 && o->enable_dad && cni_result_family_gw(res, AF_INET6)) {
		r = wait_dad(pn, o);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < o->n_pre_routes; i++) {
		r = podnet_pod_route_add(pn, o->ifindex, &o->pre_routes[i], res);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < res->n_routes; i++) {
		r = podnet_pod_route_add(pn, o->ifindex, &res->routes[i], res);
		if (r < 0)
			return r;
	}
	return 0;
}

int podnet_host_forwarding(struct cni_ctx *ctx, int family)
{
	const char *path =
	    family == AF_INET ? "net/ipv4/ip_forward" : "net/ipv6/conf/all/forwarding";
	char cur[8];
	int r;

	if (nlw_sysctl_get(ctx->procfs_fd, path, cur, sizeof(cur)) >= 0 && strcmp(cur, "1") == 0)
		return 0;
	r = nlw_sysctl_set(ctx->procfs_fd, path, "1");
	if (r < 0)
		return podnet_fail(ctx, NULL, r, "enable forwarding (%s)", path);
	return 0;
}
