/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Regenerates the .bin files of test/fixtures/nlmsg: real kernel replies captured in a
 * throwaway netns (run as root: nlw-capture-nlmsg <outdir>). Each file holds
 * the raw datagrams the kernel sent for one request, back to back, each
 * preceded by its length as a 4-byte little-endian integer.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nlw/nlw.h"

struct rec {
	const struct nlw_transport_ops *ops;
	void *priv;
	FILE *out;
};

static ssize_t rec_send(void *p, const void *buf, size_t len)
{
	struct rec *r = p;

	return r->ops->send(r->priv, buf, len);
}

static ssize_t rec_recv(void *p, void *buf, size_t len, int flags)
{
	struct rec *r = p;
	ssize_t n = r->ops->recv(r->priv, buf, len, flags);

	if (n > 0 && !(flags & MSG_PEEK) && r->out) {
		uint32_t l = (uint32_t)n;

		fwrite(&l, sizeof(l), 1, r->out);
		fwrite(buf, 1, (size_t)n, r->out);
	}
	return n;
}

static uint32_t rec_portid(void *p)
{
	struct rec *r = p;

	return r->ops->portid(r->priv);
}

static const struct nlw_transport_ops rec_ops = {rec_send, rec_recv, rec_portid, NULL};

static FILE *start(struct rec *r, const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (r->out)
		fclose(r->out);
	r->out = fopen(path, "wb");
	if (!r->out) {
		perror(path);
		exit(1);
	}
	return r->out;
}

static void check(int r, const char *what)
{
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", what, strerror(-r));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static const unsigned char mac[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
	struct nlw_bridge_params bp = {.name = "br0", .mtu = 1400};
	struct nlw_veth_params vp = {
	    .name = "vh0", .mtu = 1400, .mac = mac, .peer_name = "eth0", .peer_netns_fd = -1};
	struct nlw_brport_params pf = {.has_hairpin = true, .hairpin = true};
	struct nlw_route rt = {.table = 254,
			       .protocol = 77,
			       .priority = 100,
			       .mtu = 1400,
			       .advmss = 1360,
			       .has_gw = true};
	struct nlw_route_filter f = {.family = AF_INET, .protocol = 77};
	struct ip_prefix a;
	struct nlw_sock *s;
	struct nlw_link br, l;
	struct nlw_addr *addrs;
	struct nlw_route *routes;
	struct rec r = {0};
	unsigned n;

	if (argc != 2 || unshare(CLONE_NEWNET) < 0) {
		fprintf(stderr, "usage (root): %s <outdir>\n", argv[0]);
		return 2;
	}
	check(nlw_sock_open(&s), "open");
	r.ops = s->ops;
	r.priv = s->priv;
	s->ops = &rec_ops;
	s->priv = &r;
	check(nlw_link_add_bridge(s, &bp), "bridge");
	check(nlw_link_get_by_name(s, "br0", &br), "get br0");
	vp.master = br.ifindex;
	vp.up = true;
	check(nlw_link_add_veth(s, &vp), "veth");
	check(nlw_link_get_by_name(s, "vh0", &l), "get vh0");
	check(nlw_bridge_port_set(s, l.ifindex, &pf), "hairpin");
	check(ip_prefix_parse("10.10.0.2/24", &a), "prefix");
	check(nlw_addr_add(s, l.ifindex, &a, NULL), "addr");
	check(ip_prefix_parse("10.20.0.0/16", &rt.dst), "prefix");
	inet_pton(AF_INET, "10.10.0.1", &rt.gw.in);
	rt.oif = l.ifindex;
	check(nlw_route_add(s, &rt), "route");

	start(&r, argv[1], "link-veth-port.bin");
	check(nlw_link_get_by_name(s, "vh0", &l), "get vh0");
	start(&r, argv[1], "link-bridge.bin");
	check(nlw_link_get_by_name(s, "br0", &l), "get br0");
	start(&r, argv[1], "addr-dump.bin");
	check(nlw_addr_list(s, 0, AF_UNSPEC, &addrs, &n), "addr list");
	free(addrs);
	start(&r, argv[1], "route-dump.bin");
	check(nlw_route_list(s, &f, &routes, &n), "route list");
	free(routes);
	start(&r, argv[1], "error-eexist.bin");
	if (nlw_link_add_veth(s, &vp) != -EEXIST)
		return 1;
	fclose(r.out);
	r.out = NULL;
	s->ops = r.ops;
	s->priv = r.priv;
	nlw_sock_free(s);
	return 0;
}
