/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bird-render.c: the node config and its peer plan -> a complete BIRD 2
 * config. What the node announces is decided by the kernel protocols'
 * import filter on the route's protocol number (krt_source), so pods and
 * blocks never need a reconfiguration; only the peer list changes the text.
 */
#include <errno.h>
#include <stdlib.h>

#include "pwnode.h"

/* BIRD symbols: letters, digits, '_'; one per peer address. */
static void peer_symbol(const struct pwn_peer *p, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];
	size_t n;

	n = (size_t)snprintf(buf, size, "peer%c_", p->family == AF_INET6 ? '6' : '4');
	ip_addr_fmt(p->family, &p->addr, a);
	for (size_t i = 0; a[i] && n + 1 < size; i++)
		buf[n++] = (a[i] == '.' || a[i] == ':') ? '_' : a[i];
	buf[n] = '\0';
}

static const struct ip_prefix *own_address(const struct pwn_conf *c, int family)
{
	for (size_t i = 0; i < c->n_addresses; i++)
		if (c->addresses[i].family == family)
			return &c->addresses[i];
	return NULL;
}

static void render_head(const struct pwn_conf *c, FILE *out)
{
	char id[INET6_ADDRSTRLEN];
	unsigned a = c->export_mode == PWN_EXPORT_BLOCKS ? c->proto_block : c->proto_pod;

	fprintf(out, "# bird.conf of podwire node %s, rendered by podwire-node.\n", c->node_name);
	fprintf(out, "# Do not edit: `podwire-node run` rewrites it when the cluster's\n"
		     "# membership changes. Pods and blocks never change it.\n\n");
	fprintf(out, "router id %s;\n\n",
		ip_addr_fmt(AF_INET, (const union ip_addr *)&c->router_id, id));
	fprintf(out, "# Kernel routes this node announces, by rtm_protocol (exportMode \"%s\").\n",
		c->export_mode == PWN_EXPORT_BLOCKS ? "blocks" : "pods");
	fprintf(out, "define PODWIRE_ORIGINATE = [ %u, %u ];\n\n", a, c->proto_borrowed);
	fprintf(out, "protocol device {\n\tscan time 10;\n}\n\n");
	/* Connected fabric subnets: recursive iBGP next hops resolve through them. */
	fprintf(out, "protocol direct {\n\tipv4;\n\tipv6;\n\tinterface -\"%s*\", \"*\";\n}\n\n",
		c->pod_if_prefix);
}

static void render_kernel(const char *name, const char *family, FILE *out)
{
	fprintf(out, "protocol kernel %s {\n", name);
	fprintf(out, "\tlearn;\n\tscan time 10;\n\tgraceful restart;\n\tmerge paths on;\n");
	/* A burst of pod routes overflows the default socket buffer; BIRD would
	 * then see them only at the next scan. */
	fprintf(out, "\tnetlink rx buffer 8388608;\n");
	fprintf(out, "\t%s {\n", family);
	fprintf(out, "\t\timport where defined(krt_source) && krt_source ~ PODWIRE_ORIGINATE;\n");
	fprintf(out, "\t\texport where source = RTS_BGP;\n");
	fprintf(out, "\t};\n}\n\n");
}

static void render_template(const struct pwn_conf *c, FILE *out)
{
	fprintf(out, "filter podwire_export {\n");
	fprintf(out, "\tif source = RTS_BGP then accept;\n");
	fprintf(out, "\tif source = RTS_INHERIT && defined(krt_source) &&\n"
		     "\t   krt_source ~ PODWIRE_ORIGINATE then accept;\n");
	fprintf(out, "\treject;\n}\n\n");
	fprintf(out, "template bgp podwire_peer {\n");
	fprintf(out, "\tlocal as %u;\n", c->as);
	fprintf(out, "\thold time 9;\n\tkeepalive time 3;\n");
	fprintf(out, "\tconnect delay time 1;\n\tconnect retry time 2;\n");
	fprintf(out, "\terror wait time 1, 10;\n\tgraceful restart on;\n}\n\n");
}

static void render_peer(const struct pwn_conf *c, const struct pwn_peer *p, FILE *out)
{
	const struct ip_prefix *src = own_address(c, p->family);
	char sym[64], a[INET6_ADDRSTRLEN];

	peer_symbol(p, sym, sizeof(sym));
	fprintf(out, "protocol bgp %s from podwire_peer {\n", sym);
	if (*p->node)
		fprintf(out, "\tdescription \"node %s\";\n", p->node);
	if (src)
		fprintf(out, "\tlocal %s as %u;\n", ip_addr_fmt(src->family, &src->addr, a), c->as);
	fprintf(out, "\tneighbor %s as %u;\n", ip_addr_fmt(p->family, &p->addr, a), p->as);
	if (p->rr_client)
		fprintf(out, "\trr client;\n\trr cluster id %s;\n",
			ip_addr_fmt(AF_INET, (const union ip_addr *)&c->rr_cluster_id, a));
	fprintf(out, "\t%s {\n\t\timport all;\n\t\texport filter podwire_export;\n\t};\n}\n\n",
		p->family == AF_INET6 ? "ipv6" : "ipv4");
}

int pwn_bird_render(const struct pwn_conf *c, const struct pwn_peer *peers, size_t n_peers,
		    FILE *out)
{
	render_head(c, out);
	render_kernel("kernel4", "ipv4", out);
	render_kernel("kernel6", "ipv6", out);
	render_template(c, out);
	for (size_t i = 0; i < n_peers; i++)
		render_peer(c, &peers[i], out);
	if (n_peers == 0)
		fprintf(out, "# No peers yet.\n");
	return ferror(out) ? -EIO : 0;
}

char *pwn_bird_render_str(const struct pwn_conf *c, const struct pwn_peer *peers, size_t n_peers)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	if (!f)
		return NULL;
	r = pwn_bird_render(c, peers, n_peers, f);
	if (fclose(f) != 0 || r < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
