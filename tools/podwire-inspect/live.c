/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Live state: one RTM_GETLINK dump in the host netns (tagged host veths,
 * bridges, host-side stats64), one in each distinct pod netns (the pod
 * interface), one route dump for bgp-route's host routes, sysfs for RDMA.
 * Never a request per attachment.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <linux/netfilter.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/ipaddr.h"
#include "base/macro.h"
#include "base/parse.h"
#include "inspect.h"
#include "nlw/link.h"
#include "nlw/netns.h"
#include "nlw/rdma.h"
#include "nlw/route.h"
#include "nlw/sock.h"
#include "podnet/name.h"
#include "pwnft/nft.h"

/* bgp-route's protocol number of pod routes (plugins/main/bgp-route/README.md, routeProtocols). */
#define PI_RTPROT_POD 80

struct links {
	struct nlw_link *v;
	unsigned n;
};

static int link_idx_cmp(const void *a, const void *b)
{
	int x = ((const struct nlw_link *)a)->ifindex, y = ((const struct nlw_link *)b)->ifindex;

	return x < y ? -1 : x > y;
}

static const struct nlw_link *link_by_index(const struct links *l, int ifindex)
{
	struct nlw_link key = {.ifindex = ifindex};

	return bsearch(&key, l->v, l->n, sizeof(*l->v), link_idx_cmp);
}

static const struct nlw_link *link_by_name(const struct links *l, const char *name)
{
	for (unsigned i = 0; i < l->n; i++)
		if (streq(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

static void set_host_link(struct pi_att *a, const struct links *host, const struct nlw_link *l)
{
	const struct nlw_link *m = l->master ? link_by_index(host, l->master) : NULL;

	snprintf(a->host_ifname, sizeof(a->host_ifname), "%s", l->name);
	if (m)
		snprintf(a->bridge, sizeof(a->bridge), "%s", m->name);
	a->has_host_stats = l->has_stats;
	a->host_stats = l->stats;
}

static int stray_veth(struct pi_inv *inv, const struct nlw_link *l)
{
	char **p = reallocarray_safe(inv->stray_veths, inv->n_stray_veths + 1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	inv->stray_veths = p;
	if (asprintf(&p[inv->n_stray_veths], "%s\t%s", l->name, l->alias) < 0)
		return -ENOMEM;
	inv->n_stray_veths++;
	return 0;
}

/* Tagged host devices: join each to its attachment, or keep it as a stray. */
static int join_tagged(struct pi_inv *inv, const struct links *host)
{
	for (unsigned i = 0; i < host->n; i++) {
		const struct nlw_link *l = &host->v[i];
		char copy[NLW_ALIAS_MAX];
		const char *net, *cid, *ifname;
		struct pi_att *a;
		int r;

		if (podnet_alias_parse(l->alias, copy, &net, &cid, &ifname) < 0)
			continue;
		a = pi_inv_find(inv, cid, ifname);
		if (!a || !(a->sources & (PI_SRC_CACHE | PI_SRC_MULTINET | PI_SRC_SRIOV))) {
			r = stray_veth(inv, l);
			if (r < 0)
				return r;
			continue;
		}
		a->sources |= PI_SRC_VETH;
		set_host_link(a, host, l);
	}
	return 0;
}

/* Attachments that named a host device in their result but carry no tag. */
static void join_untagged(struct pi_inv *inv, const struct links *host)
{
	for (size_t i = 0; i < inv->n_atts; i++) {
		struct pi_att *a = &inv->atts[i];
		const struct nlw_link *l;

		if ((a->sources & PI_SRC_VETH) || !a->host_ifname[0])
			continue;
		l = link_by_name(host, a->host_ifname);
		if (l)
			set_host_link(a, host, l);
		else
			(void)pi_att_add_problem(a, "host device %s is gone", a->host_ifname);
	}
}

static bool route_to(const struct nlw_route *rt, unsigned n, const char *ip, int oif)
{
	struct ip_prefix p;

	if (ip_prefix_parse(ip, &p) < 0)
		return true; /* nothing we can compare: do not accuse */
	for (unsigned i = 0; i < n; i++)
		if (rt[i].oif == oif && rt[i].dst.family == p.family &&
		    ip_addr_equal(p.family, &rt[i].dst.addr, &p.addr))
			return true;
	return false;
}

/* bgp-route: each pod IP has its proto-80 host route through the host veth. */
static int check_bgp_routes(struct pi_inv *inv, struct nlw_sock *sock, const struct links *host)
{
	struct nlw_route_filter f = {.protocol = PI_RTPROT_POD};
	struct nlw_route *rt = NULL;
	unsigned n = 0;
	int r = nlw_route_list(sock, &f, &rt, &n);

	if (r < 0)
		return r == -ENOMEM ? r : 0;
	for (size_t i = 0; i < inv->n_atts; i++) {
		struct pi_att *a = &inv->atts[i];
		const struct nlw_link *l;

		if (!pi_att_has_plugin(a, "bgp-route") || !a->host_ifname[0])
			continue;
		l = link_by_name(host, a->host_ifname);
		for (size_t k = 0; l && k < a->n_ips; k++)
			if (!route_to(rt, n, a->ips[k], l->ifindex))
				(void)pi_att_add_problem(a, "no host route proto 80 to %s dev %s",
							 a->ips[k], a->host_ifname);
	}
	free(rt);
	return 0;
}

/* An element's key as `nft list` would show it: an address, or ifname [. MAC]. */
static void fmt_key(const struct pw_nft_elem *el, char *buf, size_t len)
{
	const unsigned char *k = el->key;
	char mac[18];

	if (!k || (el->key_len != 4 && el->key_len != 16 && el->key_len < IFNAMSIZ)) {
		snprintf(buf, len, "?");
	} else if (el->key_len == 4 || (el->key_len == 16 && memchr(k, '\0', 16) == NULL)) {
		union ip_addr a = {0};
		char ip[INET6_ADDRSTRLEN];

		memcpy(&a, k, el->key_len);
		snprintf(buf, len, "%s",
			 ip_addr_fmt(el->key_len == 4 ? AF_INET : AF_INET6, &a, ip));
	} else if (el->key_len >= IFNAMSIZ + NLW_MAC_LEN) {
		snprintf(buf, len, "%.*s . %s", IFNAMSIZ, (const char *)k,
			 nlw_mac_fmt(k + IFNAMSIZ, mac));
	} else {
		snprintf(buf, len, "%.*s", IFNAMSIZ, (const char *)k);
	}
}

static int nft_elem(const struct pw_nft_elem *el, void *userdata)
{
	struct pi_inv *inv = userdata;
	const char *slash = strchr(el->tag, '/');
	char cid[256], key[64], object[512];
	struct pi_att *a, tag = {0};

	if (!slash || slash == el->tag || (size_t)(slash - el->tag) >= sizeof(cid))
		return 0; /* untagged: not an attachment's */
	snprintf(cid, sizeof(cid), "%.*s", (int)(slash - el->tag), el->tag);
	a = pi_inv_find(inv, cid, slash + 1);
	if (a && (a->sources & (PI_SRC_CACHE | PI_SRC_MULTINET | PI_SRC_SRIOV))) {
		a->nft_elements++;
		return 0;
	}
	fmt_key(el, key, sizeof(key));
	snprintf(object, sizeof(object), "%s podwire %s { %s }",
		 el->family == NFPROTO_BRIDGE ? "bridge" : "inet", el->set, key);
	tag.container_id = cid;
	tag.ifname = (char *)slash + 1;
	tag.network = (char *)el->network;
	return pi_inv_leak(inv, "nft-element", object, "nftables element tagged for no attachment",
			   &tag);
}

/* podwire's nftables elements (both tables), joined to attachments by their tag. */
static int scan_nft(struct pi_inv *inv)
{
	_cleanup_(pw_nft_freep) struct pw_nft *nft = NULL;
	int r = pw_nft_open(&nft);

	if (r == -EPROTONOSUPPORT)
		return 0; /* no nf_tables: nothing of ours */
	if (r >= 0)
		r = pw_nft_list_elems(nft, nft_elem, inv);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return pi_inv_file_error(inv, "nftables", "cannot list podwire's sets: %s",
					 strerror(-r));
	return 0;
}

static int scan_host(struct pi_inv *inv)
{
	_cleanup_nlw_sock_ struct nlw_sock *sock = NULL;
	struct links host = {0};
	int r = nlw_sock_open(&sock);

	if (r < 0)
		return pi_inv_file_error(inv, "netlink", "cannot open a netlink socket: %s",
					 strerror(-r));
	r = nlw_link_list(sock, NULL, &host.v, &host.n);
	if (r < 0)
		return pi_inv_file_error(inv, "netlink", "link dump of the host netns: %s",
					 strerror(-r));
	qsort(host.v, host.n, sizeof(*host.v), link_idx_cmp);
	r = join_tagged(inv, &host);
	if (r >= 0) {
		join_untagged(inv, &host);
		r = check_bgp_routes(inv, sock, &host);
	}
	free(host.v);
	return r;
}

static void set_pod_link(struct pi_att *a, const struct links *pod)
{
	const struct nlw_link *l = link_by_name(pod, a->ifname);
	char mac[18];

	a->netns_state = PI_NETNS_PRESENT;
	if (!l) {
		(void)pi_att_add_problem(a, "interface %s missing in netns %s", a->ifname,
					 a->netns);
		return;
	}
	a->pod_link_found = true;
	a->pod_link_up = (l->flags & IFF_UP) != 0;
	if (!a->pod_link_up)
		(void)pi_att_add_problem(a, "interface %s is down", a->ifname);
	a->has_pod_stats = l->has_stats;
	a->pod_stats = l->stats;
	if (!a->mac[0] && l->has_mac)
		snprintf(a->mac, sizeof(a->mac), "%s", nlw_mac_fmt(l->mac, mac));
}

/* One dump of a pod netns, applied to every attachment living there (from index i on). */
static int scan_netns(struct pi_inv *inv, size_t i)
{
	const char *path = inv->atts[i].netns;
	_cleanup_nlw_sock_ struct nlw_sock *sock = NULL;
	_cleanup_close_ int fd = -1;
	struct links pod = {0};
	int r = nlw_netns_open(path, &fd);

	if (r >= 0)
		r = nlw_sock_open_in_netns(fd, NETLINK_ROUTE, &sock);
	if (r >= 0)
		r = nlw_link_list(sock, NULL, &pod.v, &pod.n);
	for (size_t j = i; j < inv->n_atts; j++) {
		struct pi_att *a = &inv->atts[j];

		if (!streq(a->netns, path) || a->netns_state != PI_NETNS_UNKNOWN)
			continue;
		if (r == -ENOENT || r == -EINVAL) {
			a->netns_state = PI_NETNS_GONE;
			(void)pi_att_add_problem(a, "netns %s is gone", path);
		} else if (r < 0) {
			(void)pi_att_add_problem(a, "netns %s: %s", path, strerror(-r));
		} else {
			set_pod_link(a, &pod);
		}
	}
	free(pod.v);
	return r == -ENOMEM ? r : 0;
}

static int scan_pods(struct pi_inv *inv)
{
	for (size_t i = 0; i < inv->n_atts; i++) {
		struct pi_att *a = &inv->atts[i];
		int r;

		if (!a->netns || a->netns_state != PI_NETNS_UNKNOWN)
			continue;
		r = scan_netns(inv, i);
		if (r < 0)
			return r;
	}
	return 0;
}

static int add_hw_counter(const char *name, uint64_t value, void *userdata)
{
	return pi_counters_add(userdata, name, value);
}

/* The device's ports and hw counters over an RDMA socket in its netns. */
static int nldev_read(struct pi_att *a, struct nlw_sock *sock)
{
	struct nlw_rdma_dev d;
	int r = nlw_rdma_dev_get_by_name(sock, a->rdma_dev, &d);

	for (uint32_t p = 1; r >= 0 && p <= d.nports && p <= 64; p++) {
		struct pi_rdma_port *v =
		    reallocarray(a->rdma_ports, a->n_rdma_ports + 1, sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->rdma_ports = v;
		v = &v[a->n_rdma_ports++];
		*v = (struct pi_rdma_port){.port = p};
		r = nlw_rdma_stat_get(sock, d.index, p, add_hw_counter, &v->hw_counters);
	}
	return r;
}

static int nldev_one(struct pi_att *a)
{
	_cleanup_nlw_sock_ struct nlw_sock *sock = NULL;
	_cleanup_close_ int fd = -1;
	int r = nlw_netns_open(a->netns, &fd);

	if (r >= 0)
		r = nlw_sock_open_in_netns(fd, NETLINK_RDMA, &sock);
	if (r >= 0)
		r = nldev_read(a, sock);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		char *msg = NULL;

		if (asprintf(&msg, "%s; nldev in netns %s: %s", a->rdma_error, a->netns,
			     strerror(-r)) >= 0) {
			free(a->rdma_error);
			a->rdma_error = msg;
		}
		return 0;
	}
	free(a->rdma_error);
	a->rdma_error = NULL;
	a->rdma_source = "nldev";
	return 0;
}

int pi_rdma_nldev_scan(struct pi_inv *inv)
{
	for (size_t i = 0; i < inv->n_atts; i++) {
		struct pi_att *a = &inv->atts[i];
		int r;

		if (!a->rdma_dev || !a->rdma_error || a->n_rdma_ports ||
		    a->netns_state != PI_NETNS_PRESENT)
			continue;
		r = nldev_one(a);
		if (r < 0)
			return r;
	}
	return 0;
}

int pi_live_scan(struct pi_inv *inv, const struct pi_options *opt)
{
	int r = scan_pods(inv);

	(void)opt;
	if (r >= 0)
		r = scan_host(inv);
	if (r >= 0)
		r = scan_nft(inv);
	return r;
}

static const char *file_kind(unsigned src)
{
	switch (src) {
	case PI_SRC_MULTINET:
		return "multinet-cache";
	case PI_SRC_SRIOV:
		return "sriov-state";
	default:
		return "result-cache";
	}
}

/* Every file of the attachment is a GC candidate (cache, multinet, state). */
static int leak_att(struct pi_inv *inv, const struct pi_att *a, const char *reason)
{
	int r = 0;

	for (size_t k = 0; k < a->n_files && r >= 0; k++)
		r = pi_inv_leak(inv, file_kind(a->file_src[k]), a->files[k], reason, a);
	return r;
}

int pi_find_leaks(struct pi_inv *inv)
{
	int r = 0;

	for (size_t i = 0; i < inv->n_atts && r >= 0; i++) {
		struct pi_att *a = &inv->atts[i];

		if (a->sriov_incomplete)
			r = pi_att_add_problem(a, "sriov-rdma: state record not complete "
						  "(ADD running, or killed)");
		if (r >= 0 && a->netns_state == PI_NETNS_GONE)
			r = leak_att(inv, a, "netns gone");
		else if (r >= 0 && !(a->sources & (PI_SRC_CACHE | PI_SRC_MULTINET)))
			r = leak_att(inv, a, "state record of no cached attachment");
	}
	for (size_t i = 0; i < inv->n_stray_veths && r >= 0; i++) {
		char *tab = strchr(inv->stray_veths[i], '\t');
		char copy[NLW_ALIAS_MAX];
		struct pi_att tag = {0};
		const char *net, *cid, *ifname;
		_cleanup_free_ char *name =
		    strndup(inv->stray_veths[i], (size_t)(tab - inv->stray_veths[i]));

		if (!name || podnet_alias_parse(tab + 1, copy, &net, &cid, &ifname) < 0)
			return -ENOMEM;
		tag.network = (char *)net;
		tag.container_id = (char *)cid;
		tag.ifname = (char *)ifname;
		r = pi_inv_leak(inv, "host-veth", name, "podwire-tagged host veth of no attachment",
				&tag);
	}
	return r;
}
