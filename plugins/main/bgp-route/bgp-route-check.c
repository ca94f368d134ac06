/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bgp-route CHECK (every item of prevResult against the kernel, code 105
 * naming what differs) and STATUS (IPAM's, plus BIRD's sessions when
 * birdSocket is set: code 50 when BIRD is not running or no BGP session is
 * Established).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/macro.h"
#include "bgp-route.h"
#include "nlw/link.h"
#include "nlw/neigh.h"
#include "nlw/route.h"
#include "podnet/check.h"
#include "podnet/name.h"
#include "podnet/ipam.h"
#include "podnet/podnet.h"

#define NUD_PERMANENT_BIT 0x80
#define BIRD_TIMEOUT_MS 2000
#define BIRD_REPLY_MAX (256u * 1024)

static int check_host(struct podnet *pn, const struct bgpr_conf *c, const struct cni_result *pr,
		      struct nlw_link *host)
{
	struct cni_ctx *ctx = pn->ctx;
	int r;

	r = podnet_check_link(pn, pn->host, &pr->ifaces[0], "veth", host);
	if (r < 0)
		return r;
	if (memcmp(host->mac, bgpr_host_mac, 6) != 0)
		return podnet_differs(ctx, "host veth '%s': MAC is not ee:ee:ee:ee:ee:ee",
				      host->name);
	if (!podnet_alias_matches(host->alias, ctx->conf.name, ctx->container_id, ctx->ifname))
		return podnet_differs(ctx, "host veth '%s' is not tagged for this attachment",
				      host->name);
	if (host->mtu != c->mtu)
		return podnet_differs(ctx, "host veth '%s': MTU %u, config says %u", host->name,
				      host->mtu, c->mtu);
	return 0;
}

/* Every ip of prevResult has its host route on the host veth, with one of our protocols. */
static int check_host_routes(struct podnet *pn, const struct bgpr_conf *c,
			     const struct cni_result *pr, const struct nlw_link *host)
{
	struct nlw_route_filter f = {.family = AF_UNSPEC, .oif = host->ifindex};
	_cleanup_free_ struct nlw_route *rt = NULL;
	char buf[IP_PREFIX_STRLEN];
	unsigned n = 0;
	int r;

	r = nlw_route_list(pn->host, &f, &rt, &n);
	if (r < 0)
		return podnet_fail(pn->ctx, pn->host, r, "list routes of '%s'", host->name);
	for (size_t i = 0; i < pr->n_ips; i++) {
		struct nlw_route want;
		bool found = false;

		bgpr_host_route(&pr->ips[i].address, host->ifindex, 0, &want);
		for (unsigned j = 0; j < n && !found; j++)
			found = bgpr_is_pod_route(c, &rt[j]) &&
				rt[j].dst.family == want.dst.family &&
				rt[j].dst.prefixlen == want.dst.prefixlen &&
				ip_addr_equal(want.dst.family, &rt[j].dst.addr, &want.dst.addr);
		if (!found)
			return podnet_differs(pn->ctx,
					      "host route %s dev %s proto %u or %u is missing",
					      ip_prefix_fmt(&want.dst, buf), host->name,
					      c->proto_pod, c->proto_borrowed);
	}
	return 0;
}

static int check_neighbour(struct podnet *pn, int ifindex)
{
	unsigned char mac[6];
	union ip_addr gw;
	unsigned state = 0;
	int r;

	(void)ip_addr_parse(BGPR_GW4, &(int){0}, &gw);
	r = nlw_neigh_get(pn->pod, ifindex, AF_INET, &gw, mac, &state);
	if (r == -ENOENT)
		return podnet_differs(pn->ctx, "pod neighbour %s is missing", BGPR_GW4);
	if (r < 0)
		return podnet_fail(pn->ctx, pn->pod, r, "read neighbour %s", BGPR_GW4);
	if (!(state & NUD_PERMANENT_BIT) || memcmp(mac, bgpr_host_mac, 6) != 0)
		return podnet_differs(
		    pn->ctx, "pod neighbour %s is not PERMANENT ee:ee:ee:ee:ee:ee", BGPR_GW4);
	return 0;
}

static int check_steps(struct podnet *pn, const struct bgpr_conf *c, const struct cni_result *pr)
{
	struct nlw_link host, pod;
	int idx, r;

	if (pr->n_ifaces < 2 || pr->n_ips == 0)
		return podnet_differs(pn->ctx, "prevResult: expected the host veth, the pod "
					       "interface and at least one IP");
	r = check_host(pn, c, pr, &host);
	if (r < 0)
		return r;
	idx = podnet_find_pod_iface(pn, pr);
	if (idx < 0)
		return idx;
	r = podnet_check_link(pn, pn->pod, &pr->ifaces[idx], "veth", &pod);
	if (r >= 0)
		r = podnet_check_addrs(pn, pod.ifindex, pr);
	if (r >= 0)
		r = podnet_check_routes(pn, pr);
	if (r >= 0 && cni_result_has_family(pr, AF_INET))
		r = check_neighbour(pn, pod.ifindex);
	if (r >= 0)
		r = check_host_routes(pn, c, pr, &host);
	return r;
}

int bgpr_cmd_check(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct bgpr_conf c;
	int r;

	r = bgpr_conf_parse(ctx, &c);
	if (r < 0)
		return r;
	if (!ctx->prev_result)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "CHECK needs prevResult (the ADD result)");
	r = check_steps(pn, &c, ctx->prev_result);
	if (r >= 0)
		r = podnet_ipam_run(ctx, CNI_CMD_CHECK);
	return r;
}

/* Read BIRD's reply until its final line (code 0000, or an 8xxx/9xxx error). */
static int bird_read_reply(int fd, char *buf, size_t size)
{
	size_t len = 0;

	while (len + 1 < size) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;

		if (poll(&p, 1, BIRD_TIMEOUT_MS) <= 0)
			return -ETIMEDOUT;
		n = read(fd, buf + len, size - 1 - len);
		if (n <= 0)
			return n < 0 ? -errno : -ECONNRESET;
		len += (size_t)n;
		buf[len] = '\0';
		for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
			if (strncmp(l, "000", 3) == 0 && l[3] && l[4] == ' ' && strchr(l, '\n'))
				return 0;
	}
	return -ENOBUFS;
}

/* 1 when some BGP protocol is Established, 0 when none, negative: BIRD unreachable. */
static int bird_established(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	_cleanup_free_ char *buf = malloc(BIRD_REPLY_MAX);
	_cleanup_close_ int fd = -1;
	static const char cmd[] = "show protocols\n";
	int r;

	if (!buf)
		return -ENOMEM;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	r = bird_read_reply(fd, buf, BIRD_REPLY_MAX); /* "0001 BIRD ... ready." */
	if (r < 0)
		return r;
	if (write(fd, cmd, sizeof(cmd) - 1) != (ssize_t)(sizeof(cmd) - 1))
		return -EIO;
	r = bird_read_reply(fd, buf, BIRD_REPLY_MAX);
	if (r < 0)
		return r;
	for (char *l = buf; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char *end = strchr(l, '\n');

		if (end)
			*end = '\0';
		if (strstr(l, " BGP ") && strstr(l, "Established"))
			return 1;
		if (end)
			*end = '\n';
	}
	return 0;
}

/* BIRD at socket answers and has an Established BGP session, else code 50. */
static int bird_status(struct cni_ctx *ctx, const char *socket)
{
	int r = bird_established(socket);

	if (r < 0)
		return cni_errorf(&ctx->err, CNI_ERR_NOT_AVAILABLE, r,
				  "birdSocket %s: BIRD is not running or not answering", socket);
	if (r == 0)
		return cni_errorf(&ctx->err, CNI_ERR_NOT_AVAILABLE, -ENOTCONN,
				  "BIRD (%s) has no Established BGP session", socket);
	return 0;
}

int bgpr_cmd_status(struct podnet *pn)
{
	struct bgpr_conf c;
	int r = bgpr_conf_parse(pn->ctx, &c);

	if (r >= 0 && c.bird_socket)
		r = bird_status(pn->ctx, c.bird_socket);
	return r < 0 ? r : podnet_ipam_run(pn->ctx, CNI_CMD_STATUS);
}
