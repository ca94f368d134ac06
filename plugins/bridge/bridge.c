/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bridge ADD, in the reference's order: bridge, veth (peer created directly
 * in the pod netns, host end enslaved in the same request), host end tagged
 * and set up, port flags and VLANs, macspoofchk, IPAM, pod addresses and
 * routes, gateway on the bridge, forwarding, ipMasq, host port state. Every
 * created resource is pushed on ctx->undo, so a failure leaves nothing
 * behind. DEL and CHECK are in bridge-del.c and bridge-check.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/netlink.h>

/* IF_OPER_UP (RFC 2863) lives in <linux/if.h>, which clashes with <net/if.h>. */
#define OPER_UP 6

#include "base/macro.h"
#include "bridge.h"
#include "cni/log.h"
#include "nlw/addr.h"
#include "nlw/link.h"
#include "nlw/netns.h"
#include "nlw/route.h"
#include "nlw/sock.h"
#include "nlw/sysctl.h"
#include "pwnft/nft.h"

#define VETH_NAME_TRIES 10
/* Bounded wait for the host port (only if not up at the first look). */
#define PORT_WAIT_STEP_NS (2 * 1000 * 1000)
#define PORT_WAIT_MAX_STEPS 1250
#define DAD_WAIT_STEP_NS (20 * 1000 * 1000)
#define DAD_WAIT_MAX_STEPS 250

static void add_state_done(struct bridge_add *a)
{
	bridge_conf_done(&a->conf);
	a->host = nlw_sock_free(a->host);
	a->pod = nlw_sock_free(a->pod);
	if (a->netns_fd >= 0)
		close(a->netns_fd);
	a->netns_fd = -1;
	a->result = cni_result_free(a->result);
}

int bridge_open_netns(struct cni_ctx *ctx, int *ret_fd)
{
	int r = nlw_netns_open(ctx->netns, ret_fd);

	if (r == -ENOENT)
		return cni_errorf(&ctx->err, CNI_ERR_UNKNOWN_CONTAINER, r,
				  "CNI_NETNS: netns '%s' does not exist", ctx->netns);
	if (r < 0)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_ENV, r,
				  "CNI_NETNS: cannot open netns '%s': %s", ctx->netns, strerror(-r));
	return 0;
}

int bridge_open_sockets(struct cni_ctx *ctx, int netns_fd, struct nlw_sock **host,
			struct nlw_sock **pod)
{
	int r = nlw_sock_open(host);

	if (r < 0)
		return bridge_fail(ctx, NULL, r, "open netlink socket");
	if (netns_fd < 0)
		return 0;
	r = nlw_sock_open_in_netns(netns_fd, NETLINK_ROUTE, pod);
	if (r < 0)
		return bridge_fail(ctx, NULL, r, "open netlink socket in netns '%s'", ctx->netns);
	return 0;
}

/* Best-effort host sysctl: the reference ignores these errors too (logged). */
static void sysctl_try(int procfs_fd, const char *path, const char *value)
{
	int r = nlw_sysctl_set(procfs_fd, path, value);

	if (r < 0)
		cni_log_debug("sysctl %s=%s: %s, ignoring", path, value, strerror(-r));
}

static int create_bridge(struct cni_ctx *ctx, struct bridge_add *a)
{
	bool vf = a->conf.vlan || a->conf.has_trunk;
	int r;

	r = nlw_link_add_bridge(a->host, &(struct nlw_bridge_params){
						 .name = a->conf.bridge,
						 .mtu = a->conf.mtu,
						 .has_vlan_filtering = vf,
						 .vlan_filtering = vf,
					 });
	if (r == -EEXIST)
		return 0; /* a concurrent ADD created it first */
	if (r < 0)
		return bridge_fail(ctx, a->host, r, "create bridge '%s'%s", a->conf.bridge,
				   vf ? " with VLAN filtering (vlan/vlanTrunk)" : "");
	a->created_bridge = true;
	/* Rolled back only if this ADD created it (with its gateway addresses). */
	return bridge_undo_host_link(ctx, a->conf.bridge);
}

static int ensure_bridge(struct cni_ctx *ctx, struct bridge_add *a)
{
	char path[64];
	int r;

	r = nlw_link_get_by_name(a->host, a->conf.bridge, &a->br);
	if (r == -ENODEV) {
		r = create_bridge(ctx, a);
		if (r >= 0)
			r = nlw_link_get_by_name(a->host, a->conf.bridge, &a->br);
	}
	if (r < 0)
		return bridge_fail(ctx, a->host, r, "look up bridge '%s'", a->conf.bridge);
	memcpy(a->br_mac_before, a->br.mac, 6);
	if (strcmp(a->br.kind, "bridge") != 0)
		return cni_errorf(&ctx->err, CNI_ERR_EXISTS, -EEXIST,
				  "bridge: \"%s\" already exists but is not a bridge (kind '%s')",
				  a->conf.bridge, a->br.kind);
	if (a->conf.promisc_mode && !a->br.promisc) {
		r = nlw_link_set_promisc(a->host, a->br.ifindex, true);
		if (r < 0)
			return bridge_fail(ctx, a->host, r, "set promisc on '%s'", a->conf.bridge);
	}
	snprintf(path, sizeof(path), "net/ipv6/conf/%s/accept_ra", a->conf.bridge);
	sysctl_try(ctx->procfs_fd, path, "0");
	if (!(a->br.flags & IFF_UP)) {
		r = nlw_link_set_up(a->host, a->br.ifindex);
		if (r < 0)
			return bridge_fail(ctx, a->host, r, "set bridge '%s' up", a->conf.bridge);
	}
	return 0;
}

/*
 * One RTM_NEWLINK: host end named host_name, enslaved and still down, pod end
 * named CNI_IFNAME created directly in the pod netns with the MTU and MAC.
 */
static int create_veth(struct cni_ctx *ctx, struct bridge_add *a)
{
	struct nlw_link probe;
	int r = -EEXIST;

	for (unsigned attempt = 0; attempt < VETH_NAME_TRIES && r == -EEXIST; attempt++) {
		bridge_host_veth_name(ctx->container_id, ctx->ifname, attempt, a->host_name);
		r = nlw_link_add_veth(a->host, &(struct nlw_veth_params){
						       .name = a->host_name,
						       .mtu = a->conf.mtu,
						       .master = a->br.ifindex,
						       .peer_name = ctx->ifname,
						       .peer_netns_fd = a->netns_fd,
						       .peer_mac = a->conf.mac_source ? a->conf.mac : NULL,
					       });
		/* Which name is taken? The pod's is a hard error, ours a retry. */
		if (r == -EEXIST && nlw_link_get_by_name(a->pod, ctx->ifname, &probe) >= 0)
			return cni_errorf(&ctx->err, CNI_ERR_EXISTS, -EEXIST,
					  "container veth name (\"%s\") peer provided (\"%s\") already "
					  "exists", ctx->ifname, a->host_name);
	}
	if (r < 0)
		return bridge_fail(ctx, a->host, r, "create veth '%s' (peer '%s' in '%s')",
				   a->host_name, ctx->ifname, ctx->netns);
	r = bridge_undo_host_link(ctx, a->host_name);
	if (r < 0)
		return r;
	r = nlw_link_get_by_name(a->host, a->host_name, &a->hveth);
	if (r >= 0)
		r = nlw_link_get_by_name(a->pod, ctx->ifname, &a->cveth);
	if (r < 0)
		return bridge_fail(ctx, a->host, r, "look up veth '%s'", a->host_name);
	return 0;
}

/*
 * Tag the host end with the alias DEL checks before deleting a host veth
 * found by its derived name, then set it up. The order matters: an alias
 * change on an up link is a NETDEV_CHANGE, which IPv6 answers with a walk of
 * the namespace's whole routing table (about 1.5 ms with 1000 ports); on a
 * down link it notifies nobody.
 */
static int tag_host_veth(struct cni_ctx *ctx, struct bridge_add *a)
{
	char alias[NLW_ALIAS_MAX];
	int r;

	bridge_veth_alias(ctx->container_id, ctx->ifname, alias);
	r = nlw_link_set_alias(a->host, a->hveth.ifindex, alias);
	if (r < 0)
		return bridge_fail(ctx, a->host, r, "set alias of veth '%s'", a->host_name);
	r = nlw_link_set_up(a->host, a->hveth.ifindex);
	if (r < 0)
		return bridge_fail(ctx, a->host, r, "set veth '%s' up", a->host_name);
	return 0;
}

/*
 * The port's VLANs (vlan/vlanTrunk only). The list lives on the heap: at up
 * to 4095 entries it would otherwise put 32 KB on the stack of every ADD.
 */
static int setup_port_vlans(struct cni_ctx *ctx, struct bridge_add *a)
{
	_cleanup_free_ struct nlw_bridge_vlan *v = NULL;
	unsigned n;
	int r;

	if (!a->conf.preserve_default_vlan) {
		/* A new port only carries the bridge's default PVID (1). */
		r = nlw_bridge_vlan_del(a->host, a->hveth.ifindex,
					&(struct nlw_bridge_vlan){ .vid = 1 }, 1);
		if (r < 0 && r != -ENOENT && r != -EINVAL)
			return bridge_fail(ctx, a->host, r, "remove default VLAN from '%s'",
					   a->host_name);
	}
	v = calloc(BRIDGE_TRUNK_MAX + 1, sizeof(*v));
	if (!v)
		return bridge_fail(ctx, a->host, -ENOMEM, "add VLANs to port '%s'", a->host_name);
	n = bridge_plan_port_vlans(&a->conf, v, BRIDGE_TRUNK_MAX + 1);
	r = nlw_bridge_vlan_add(a->host, a->hveth.ifindex, v, n);
	if (r < 0)
		return bridge_fail(ctx, a->host, r, "add VLANs to port '%s' (needs bridge VLAN "
				   "filtering)", a->host_name);
	return 0;
}

static int setup_port(struct cni_ctx *ctx, struct bridge_add *a)
{
	char path[64];
	int r;

	snprintf(path, sizeof(path), "net/ipv6/conf/%s/accept_ra", a->host_name);
	sysctl_try(ctx->procfs_fd, path, "0");
	r = nlw_bridge_port_set(a->host, a->hveth.ifindex,
				&(struct nlw_brport_params){ .has_hairpin = true,
							     .hairpin = a->conf.hairpin_mode,
							     .has_isolated = true,
							     .isolated = a->conf.port_isolation });
	if (r < 0)
		return bridge_fail(ctx, a->host, r, "set hairpin/isolated on port '%s'", a->host_name);
	if (!a->conf.vlan && !a->conf.has_trunk)
		return 0;
	return setup_port_vlans(ctx, a);
}

static int build_result(struct cni_ctx *ctx, struct bridge_add *a)
{
	char mac[18];
	int r;

	a->result = cni_result_new(CNI_V110);
	if (!a->result)
		return -ENOMEM;
	r = cni_result_add_iface(a->result, a->conf.bridge, nlw_mac_fmt(a->br.mac, mac), NULL);
	if (r >= 0)
		r = cni_result_add_iface(a->result, a->host_name, nlw_mac_fmt(a->hveth.mac, mac),
					 NULL);
	if (r >= 0)
		r = cni_result_add_iface(a->result, ctx->ifname, nlw_mac_fmt(a->cveth.mac, mac),
					 ctx->netns);
	return r < 0 ? r : 0;
}

static int add_spoofchk(struct cni_ctx *ctx, struct bridge_add *a)
{
	struct pw_nft *nft = NULL;
	int r;

	r = pw_nft_open(&nft);
	if (r >= 0)
		r = pw_nft_spoof_add(nft, &(struct pw_nft_spoof){ .network = ctx->conf.name,
								  .container_id = ctx->container_id,
								  .ifname = ctx->ifname,
								  .host_ifname = a->host_name,
								  .mac = a->cveth.mac });
	if (r < 0) {
		r = cni_errorf(&ctx->err, CNI_ERR_PLUGIN, r, "macspoofchk: nftables: %s",
			       strerror(-r));
		if (nft && pw_nft_ext_ack(nft))
			cni_error_add_detail(&ctx->err, pw_nft_ext_ack(nft));
	}
	pw_nft_free(nft);
	return r < 0 ? r : bridge_undo_spoof(ctx, a->host_name, a->cveth.mac);
}

static int add_masq(struct cni_ctx *ctx, struct bridge_add *a)
{
	_cleanup_free_ struct ip_prefix *addrs = NULL;
	struct pw_nft *nft = NULL;
	size_t n;
	int r;

	r = bridge_result_addrs(a->result, &addrs, &n);
	if (r < 0 || n == 0)
		return r;
	r = pw_nft_open(&nft);
	if (r >= 0)
		r = pw_nft_masq_add(nft, &(struct pw_nft_masq){ .network = ctx->conf.name,
								.container_id = ctx->container_id,
								.ifname = ctx->ifname,
								.addrs = addrs,
								.n_addrs = n });
	if (r < 0) {
		r = cni_errorf(&ctx->err, CNI_ERR_PLUGIN, r, "ipMasq: nftables: %s", strerror(-r));
		if (nft && pw_nft_ext_ack(nft))
			cni_error_add_detail(&ctx->err, pw_nft_ext_ack(nft));
	}
	pw_nft_free(nft);
	return r < 0 ? r : bridge_undo_masq(ctx, addrs, n);
}

/* IPAM ADD and the bridge's completion of its result (gateways, default routes). */
static int run_ipam(struct cni_ctx *ctx, struct bridge_add *a)
{
	_cleanup_(cni_result_freep) struct cni_result *ipam = NULL;
	int r;

	r = bridge_ipam_add(ctx, &ipam);
	if (r < 0)
		return r;
	r = bridge_undo_ipam(ctx);
	if (r < 0)
		return r;
	if (ipam->n_ips == 0)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -EINVAL,
				  "IPAM plugin returned missing IP config");
	/* Take over ips, routes and DNS. */
	SWAP_FIELD(a->result->ips, ipam->ips);
	SWAP_FIELD(a->result->n_ips, ipam->n_ips);
	SWAP_FIELD(a->result->routes, ipam->routes);
	SWAP_FIELD(a->result->n_routes, ipam->n_routes);
	SWAP_FIELD(a->result->dns, ipam->dns);
	r = bridge_plan_l3(&a->conf, a->result, a->gws, ARRAY_SIZE(a->gws));
	if (r < 0)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, r,
				  "too many gateway addresses in the IPAM result");
	a->n_gws = (size_t)r;
	return 0;
}

#define POD_SYSCTLS_MAX 8

struct sysctl_batch {
	int procfs_fd;
	size_t n;
	char path[POD_SYSCTLS_MAX][96];
	const char *value[POD_SYSCTLS_MAX];
};

_printf_(3, 4) static void batch_put(struct sysctl_batch *b, const char *value, const char *fmt, ...)
{
	va_list ap;

	if (b->n >= POD_SYSCTLS_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(b->path[b->n], sizeof(b->path[b->n]), fmt, ap);
	va_end(ap);
	b->value[b->n++] = value;
}

/* Runs inside the pod netns: /proc/sys/net files belong to the opener's netns. */
static int batch_write(void *arg)
{
	struct sysctl_batch *b = arg;

	for (size_t i = 0; i < b->n; i++) {
		int r = nlw_sysctl_set(b->procfs_fd, b->path[i], b->value[i]);

		if (r < 0) /* best effort, as the reference */
			cni_log_debug("sysctl %s=%s: %s, ignoring", b->path[i], b->value[i],
				      strerror(-r));
	}
	return 0;
}

/* The pod interface's sysctls, all in one visit of the pod netns. */
static void pod_sysctls(struct cni_ctx *ctx, struct bridge_add *a, bool has_v6)
{
	struct sysctl_batch b = { .procfs_fd = ctx->procfs_fd };
	int r;

	batch_put(&b, "1", "net/ipv4/conf/%s/arp_notify", ctx->ifname);
	if (has_v6) {
		/* The IPv6 twin of arp_notify: unsolicited NA when the address comes up. */
		batch_put(&b, "1", "net/ipv6/conf/%s/ndisc_notify", ctx->ifname);
		batch_put(&b, "0", "net/ipv6/conf/%s/disable_ipv6", "lo");
		batch_put(&b, "0", "net/ipv6/conf/%s/disable_ipv6", ctx->ifname);
		batch_put(&b, "1", "net/ipv6/conf/%s/keep_addr_on_down", ctx->ifname);
		if (a->conf.enable_dad)
			batch_put(&b, "1", "net/ipv6/conf/%s/enhanced_dad", ctx->ifname);
		batch_put(&b, a->conf.enable_dad ? "1" : "0", "net/ipv6/conf/%s/accept_dad",
			  ctx->ifname);
	}
	r = nlw_netns_run(a->netns_fd, batch_write, &b);
	if (r < 0)
		cni_log_debug("sysctls in '%s': %s, ignoring", ctx->netns, strerror(-r));
}

static bool result_has_v6(const struct cni_result *r)
{
	for (size_t i = 0; i < r->n_ips; i++)
		if (r->ips[i].address.family == AF_INET6)
			return true;
	return false;
}

/* With enabledad, wait (bounded) until no address is tentative, as the reference does. */
static int wait_dad(struct cni_ctx *ctx, struct bridge_add *a)
{
	for (unsigned i = 0; i < DAD_WAIT_MAX_STEPS; i++) {
		int r = nlw_addr_dad_state(a->pod, a->cveth.ifindex);

		if (r == 0)
			return 0;
		if (r == -EADDRNOTAVAIL)
			return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, r,
					  "IPv6 duplicate address detection failed on '%s'",
					  ctx->ifname);
		if (r < 0)
			return bridge_fail(ctx, a->pod, r, "read addresses of '%s'", ctx->ifname);
		nanosleep(&(struct timespec){ .tv_nsec = DAD_WAIT_STEP_NS }, NULL);
	}
	return cni_errorf(&ctx->err, CNI_ERR_TRY_AGAIN, -ETIMEDOUT,
			  "IPv6 addresses of '%s' still tentative after 5s", ctx->ifname);
}

static const union ip_addr *family_gw(const struct cni_result *res, int family)
{
	for (size_t i = 0; i < res->n_ips; i++)
		if (res->ips[i].address.family == family && res->ips[i].has_gateway)
			return &res->ips[i].gateway;
	return NULL;
}

static int add_pod_route(struct cni_ctx *ctx, struct bridge_add *a, const struct cni_route *rt)
{
	const union ip_addr *gw = rt->has_gw ? &rt->gw : family_gw(a->result, rt->dst.family);
	struct nlw_route nr = { .dst = rt->dst, .oif = a->cveth.ifindex };
	char dst[IP_PREFIX_STRLEN];
	int r;

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
	r = nlw_route_append(a->pod, &nr);
	if (r == -EEXIST)
		return 0; /* the same route twice in the result */
	if (r < 0)
		return bridge_fail(ctx, a->pod, r, "add route %s in '%s'",
				   ip_prefix_fmt(&rt->dst, dst), ctx->netns);
	return 0;
}

static int configure_pod(struct cni_ctx *ctx, struct bridge_add *a)
{
	bool v6 = result_has_v6(a->result);
	char addr[IP_PREFIX_STRLEN];
	int r;

	pod_sysctls(ctx, a, v6);
	for (size_t i = 0; i < a->result->n_ips; i++) {
		const struct cni_ip *ip = &a->result->ips[i];
		struct nlw_addr_opts o = { .flags = 0 };

		if (ip->address.family == AF_INET6 && !a->conf.enable_dad)
			o.flags = NLW_ADDR_NODAD;
		r = nlw_addr_add(a->pod, a->cveth.ifindex, &ip->address, &o);
		if (r < 0)
			return bridge_fail(ctx, a->pod, r, "add address %s to '%s'",
					   ip_prefix_fmt(&ip->address, addr), ctx->ifname);
	}
	r = nlw_link_set_up(a->pod, a->cveth.ifindex);
	if (r < 0)
		return bridge_fail(ctx, a->pod, r, "set '%s' up", ctx->ifname);
	if (v6 && a->conf.enable_dad && family_gw(a->result, AF_INET6)) {
		r = wait_dad(ctx, a);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < a->result->n_routes; i++) {
		r = add_pod_route(ctx, a, &a->result->routes[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

static bool mac_is_zero(const unsigned char mac[6])
{
	static const unsigned char zero[6];

	return memcmp(mac, zero, 6) == 0;
}

/*
 * ensureAddr's conflict rule over the link's addresses of gw's family: a
 * conflicting one is an error, or removed with forceAddress. *ret_present
 * tells whether gw itself (same address and prefix) is there.
 */
static int clear_conflicts(struct cni_ctx *ctx, struct bridge_add *a, const struct nlw_link *link,
			   const struct ip_prefix *gw, bool *ret_present)
{
	_cleanup_free_ struct nlw_addr *list = NULL;
	char want[IP_PREFIX_STRLEN], have[IP_PREFIX_STRLEN];
	unsigned n = 0;
	int r;

	*ret_present = false;
	r = nlw_addr_list(a->host, link->ifindex, gw->family, &list, &n);
	if (r < 0)
		return bridge_fail(ctx, a->host, r, "list addresses of '%s'", link->name);
	ip_prefix_fmt(gw, want);
	for (unsigned i = 0; i < n; i++) {
		const struct ip_prefix *p = &list[i].prefix;

		if (p->prefixlen == gw->prefixlen && ip_addr_equal(p->family, &p->addr, &gw->addr)) {
			*ret_present = true;
			continue;
		}
		if (!bridge_addr_conflicts(p, gw) || (p->family == AF_INET6 && list[i].scope != 0))
			continue;
		if (!a->conf.force_address)
			return cni_errorf(&ctx->err, CNI_ERR_EXISTS, -EEXIST,
					  "\"%s\" already has an IP address different from %s (%s); "
					  "set forceAddress to replace it",
					  link->name, want, ip_prefix_fmt(p, have));
		r = nlw_addr_del(a->host, link->ifindex, p);
		if (r < 0 && r != -EADDRNOTAVAIL)
			return bridge_fail(ctx, a->host, r, "remove address %s from '%s'",
					   ip_prefix_fmt(p, have), link->name);
	}
	return 0;
}

static int add_gw_addr(struct nlw_sock *s, int ifindex, const struct ip_prefix *gw)
{
	/*
	 * No DAD for the gateway: it is ours by configuration, and a tentative
	 * gateway would leave pods without IPv6 for a second after the first ADD.
	 */
	return nlw_addr_add(s, ifindex, gw,
			    &(struct nlw_addr_opts){ .flags = gw->family == AF_INET6 ? NLW_ADDR_NODAD : 0 });
}

/*
 * Pin the MAC so it stops following the lowest port MAC: the one the bridge
 * had before our port joined (as the reference does), unless that was
 * all-zero (an empty existing bridge; the reference then fails with EINVAL):
 * then the current one.
 */
static int pin_mac(struct cni_ctx *ctx, struct bridge_add *a, const struct nlw_link *link)
{
	struct nlw_link now;
	int r;

	r = nlw_link_get_by_index(a->host, link->ifindex, &now);
	if (r >= 0 && link->ifindex == a->br.ifindex && !mac_is_zero(a->br_mac_before))
		memcpy(now.mac, a->br_mac_before, 6);
	if (r >= 0 && now.has_mac && !mac_is_zero(now.mac))
		r = nlw_link_set_mac(a->host, link->ifindex, now.mac);
	if (r < 0)
		return bridge_fail(ctx, a->host, r, "pin MAC of '%s'", link->name);
	return 0;
}

/* Put gw on the link (the reference's ensureAddr), honouring forceAddress. */
static int ensure_addr(struct cni_ctx *ctx, struct bridge_add *a, const struct nlw_link *link,
		       const struct ip_prefix *gw)
{
	char want[IP_PREFIX_STRLEN];
	bool present;
	int r;

	ip_prefix_fmt(gw, want);
	if (gw->family == AF_INET) {
		/*
		 * Steady state without a dump: IPv4 answers EEXIST only for the same
		 * address and mask. Conflicts are looked for after a fresh add.
		 */
		r = add_gw_addr(a->host, link->ifindex, gw);
		if (r == -EEXIST)
			return 0; /* already there: nothing to do, MAC pin included */
		if (r < 0)
			return bridge_fail(ctx, a->host, r, "add gateway %s to '%s'", want, link->name);
		r = clear_conflicts(ctx, a, link, gw, &present);
		if (r < 0) {
			(void)nlw_addr_del(a->host, link->ifindex, gw);
			return r;
		}
		return pin_mac(ctx, a, link);
	}
	/* IPv6 answers EEXIST for the same address with any prefix: look first. */
	r = clear_conflicts(ctx, a, link, gw, &present);
	if (r < 0 || present)
		return r;
	r = add_gw_addr(a->host, link->ifindex, gw);
	if (r < 0 && r != -EEXIST)
		return bridge_fail(ctx, a->host, r, "add gateway %s to '%s'", want, link->name);
	return pin_mac(ctx, a, link);
}

/* The "<bridge>.<vlan>" gateway veth of an L3 VLAN network (created once, shared). */
static int ensure_vlan_gw_link(struct cni_ctx *ctx, struct bridge_add *a, struct nlw_link *ret)
{
	char name[IFNAMSIZ + 16], peer[IFNAMSIZ], mac[18]; /* bridge "." vid: fits */
	struct nlw_link p;
	int r;

	snprintf(name, sizeof(name), "%s.%u", a->conf.bridge, a->conf.vlan);
	if (strlen(name) >= IFNAMSIZ)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "bridge: '%s' + VLAN %u gives gateway link name '%s', longer "
				  "than 15 bytes", a->conf.bridge, a->conf.vlan, name);
	r = nlw_link_get_by_name(a->host, name, ret);
	if (r == -ENODEV) {
		bridge_host_veth_name(a->conf.bridge, name, 0, peer);
		r = nlw_link_add_veth(a->host, &(struct nlw_veth_params){ .name = peer,
									  .master = a->br.ifindex,
									  .up = true,
									  .peer_name = name,
									  .peer_netns_fd = -1 });
		if (r >= 0)
			r = bridge_undo_host_link(ctx, name);
		if (r >= 0)
			r = nlw_link_get_by_name(a->host, peer, &p);
		if (r >= 0)
			r = nlw_bridge_vlan_add(a->host, p.ifindex,
						&(struct nlw_bridge_vlan){
							.vid = (uint16_t)a->conf.vlan,
							.flags = NLW_BRVLAN_PVID | NLW_BRVLAN_UNTAGGED },
						1);
		if (r >= 0)
			r = nlw_link_get_by_name(a->host, name, ret);
		if (r >= 0)
			r = nlw_link_set_up(a->host, ret->ifindex);
	}
	if (r < 0)
		return bridge_fail(ctx, a->host, r, "set up VLAN gateway link '%s'", name);
	r = cni_result_add_iface(a->result, name, nlw_mac_fmt(ret->mac, mac), NULL);
	return r < 0 ? r : 0;
}

static int enable_forwarding(struct cni_ctx *ctx, int family)
{
	const char *path = family == AF_INET ? "net/ipv4/ip_forward" : "net/ipv6/conf/all/forwarding";
	char cur[8];
	int r;

	if (nlw_sysctl_get(ctx->procfs_fd, path, cur, sizeof(cur)) >= 0 && strcmp(cur, "1") == 0)
		return 0;
	r = nlw_sysctl_set(ctx->procfs_fd, path, "1");
	if (r < 0)
		return bridge_fail(ctx, NULL, r, "enable forwarding (%s)", path);
	return 0;
}

static int setup_gateways(struct cni_ctx *ctx, struct bridge_add *a)
{
	struct nlw_link gwlink = a->br;
	bool fam[2] = { false, false };
	int r;

	if (a->n_gws == 0)
		return 0;
	if (a->conf.vlan) {
		r = ensure_vlan_gw_link(ctx, a, &gwlink);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < a->n_gws; i++) {
		r = ensure_addr(ctx, a, &gwlink, &a->gws[i].addr);
		if (r < 0)
			return r;
		fam[a->gws[i].addr.family == AF_INET6] = true;
	}
	r = fam[0] ? enable_forwarding(ctx, AF_INET) : 0;
	if (r >= 0 && fam[1])
		r = enable_forwarding(ctx, AF_INET6);
	return r;
}

/*
 * The reference sleeps 0/50/500/1000/1000 ms waiting for the host port to be
 * oper-up. Both ends are up by now, so it usually is at the first look;
 * otherwise poll briefly (2 ms steps, 2.5 s at most).
 */
static int wait_port_up(struct cni_ctx *ctx, struct bridge_add *a)
{
	int r = 0;

	for (unsigned i = 0; i < PORT_WAIT_MAX_STEPS; i++) {
		r = nlw_link_get_by_index(a->host, a->hveth.ifindex, &a->hveth);
		if (r < 0)
			return bridge_fail(ctx, a->host, r, "look up '%s'", a->host_name);
		if (a->hveth.operstate == OPER_UP)
			return 0;
		nanosleep(&(struct timespec){ .tv_nsec = PORT_WAIT_STEP_NS }, NULL);
	}
	return cni_errorf(&ctx->err, CNI_ERR_TRY_AGAIN, -ETIMEDOUT,
			  "bridge port in error state: '%s' operstate %u after 2.5s", a->host_name,
			  a->hveth.operstate);
}

/* The final MACs of bridge and port; port_fresh: a->hveth was just read. */
static int refresh_macs(struct cni_ctx *ctx, struct bridge_add *a, bool port_fresh)
{
	char mac[18];
	int r;

	r = nlw_link_get_by_index(a->host, a->br.ifindex, &a->br);
	if (r >= 0 && !port_fresh)
		r = nlw_link_get_by_index(a->host, a->hveth.ifindex, &a->hveth);
	if (r < 0)
		return bridge_fail(ctx, a->host, r, "look up bridge and port");
	for (size_t i = 0; i < 2; i++) {
		char *m = strdup(nlw_mac_fmt(i == 0 ? a->br.mac : a->hveth.mac, mac));

		if (!m)
			return -ENOMEM;
		free(a->result->ifaces[i].mac);
		a->result->ifaces[i].mac = m;
	}
	return 0;
}

static int add_l3(struct cni_ctx *ctx, struct bridge_add *a)
{
	int r;

	r = run_ipam(ctx, a);
	/*
	 * The spoof check goes in after IPAM (the reference: before), still
	 * before the pod's interface comes up: IPAM is the step most likely
	 * to fail, and a network's first ADD failing there then leaves no
	 * nftables table, chain or set behind.
	 */
	if (r >= 0 && a->conf.macspoofchk)
		r = add_spoofchk(ctx, a);
	if (r >= 0)
		r = configure_pod(ctx, a);
	if (r >= 0)
		r = setup_gateways(ctx, a);
	if (r >= 0 && a->conf.ip_masq)
		r = add_masq(ctx, a);
	return r;
}

static int add_steps(struct cni_ctx *ctx, struct bridge_add *a)
{
	int r;

	r = bridge_open_netns(ctx, &a->netns_fd);
	if (r >= 0)
		r = bridge_open_sockets(ctx, a->netns_fd, &a->host, &a->pod);
	if (r >= 0)
		r = ensure_bridge(ctx, a);
	if (r >= 0)
		r = create_veth(ctx, a);
	if (r >= 0)
		r = tag_host_veth(ctx, a);
	if (r >= 0)
		r = setup_port(ctx, a);
	if (r >= 0)
		r = build_result(ctx, a);
	if (r >= 0 && a->conf.macspoofchk && !a->conf.is_layer3)
		r = add_spoofchk(ctx, a);
	if (r >= 0 && a->conf.is_layer3)
		r = add_l3(ctx, a);
	else if (r >= 0 && !a->conf.disable_container_interface) {
		r = nlw_link_set_up(a->pod, a->cveth.ifindex);
		if (r < 0)
			r = bridge_fail(ctx, a->pod, r, "set '%s' up", ctx->ifname);
	}
	if (r >= 0 && !a->conf.disable_container_interface)
		r = wait_port_up(ctx, a);
	if (r >= 0)
		r = refresh_macs(ctx, a, !a->conf.disable_container_interface);
	return r;
}

static int cmd_add(struct cni_ctx *ctx)
{
	struct bridge_add a = { .netns_fd = -1 };
	int r;

	r = bridge_conf_parse(ctx, &a.conf);
	if (r >= 0)
		r = add_steps(ctx, &a);
	if (r >= 0 && ctx->conf.has_dns && !cni_dns_is_empty(&ctx->conf.dns)) {
		cni_dns_done(&a.result->dns);
		r = cni_dns_copy(&a.result->dns, &ctx->conf.dns);
	}
	if (r >= 0) {
		a.result->version = ctx->conf.version;
		ctx->result = TAKE_PTR(a.result);
	}
	add_state_done(&a);
	return r;
}

static int cmd_status(struct cni_ctx *ctx)
{
	struct bridge_conf c;
	int r = bridge_conf_parse(ctx, &c);

	if (r < 0)
		return r;
	if (c.is_layer3)
		r = bridge_ipam_run(ctx, CNI_CMD_STATUS);
	bridge_conf_done(&c);
	return r;
}

const struct cni_plugin_ops bridge_ops = {
	.name = "bridge",
	.about = "podwire bridge plugin: veth pairs from pods to a Linux bridge "
		 "(drop-in for the reference bridge)",
	.cni_args_keys = bridge_cni_args_keys,
	.add = cmd_add,
	.del = bridge_cmd_del,
	.check = bridge_cmd_check,
	.gc = bridge_cmd_gc,
	.status = cmd_status,
};
