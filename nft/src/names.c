/* SPDX-License-Identifier: Apache-2.0 */
/* Object names and tags: pure functions, unit-tested. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Same rule as CNI network names: [A-Za-z0-9][A-Za-z0-9_.-]*, bounded. */
int nft_check_network(const char *network)
{
	size_t n;

	if (!network || !network[0])
		return -EINVAL;
	n = strlen(network);
	if (n > PW_NFT_NETWORK_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		char c = network[i];
		bool alnum =
		    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');

		if (!alnum && (i == 0 || (c != '_' && c != '.' && c != '-')))
			return -EINVAL;
	}
	return 0;
}

/* buf = a followed by b, or -ENAMETOOLONG. */
static int fmt(char *buf, size_t len, const char *a, const char *b)
{
	int n = snprintf(buf, len, "%s%s", a, b);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int fmt2(char *buf, size_t len, const char *a, const char *b)
{
	int n = snprintf(buf, len, "%s/%s", a, b);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int nft_format_tag(const char *container_id, const char *ifname, char *buf, size_t len)
{
	if (!container_id || !container_id[0] || !ifname || !ifname[0] ||
	    strchr(container_id, '/') || strchr(ifname, '/'))
		return -EINVAL;
	if (len > PW_NFT_TAG_MAX + 1)
		len = PW_NFT_TAG_MAX + 1;
	return fmt2(buf, len, container_id, ifname);
}

int nft_parse_tag(const char *tag, char *cid, size_t cid_len, char *ifname, size_t if_len)
{
	const char *slash = strrchr(tag, '/');
	size_t n;

	if (!slash || slash == tag || !slash[1])
		return -EINVAL;
	n = (size_t)(slash - tag);
	if (n >= cid_len || strlen(slash + 1) >= if_len)
		return -EINVAL;
	memcpy(cid, tag, n);
	cid[n] = '\0';
	strcpy(ifname, slash + 1);
	return 0;
}

int nft_set_comment(const char *network, char *buf, size_t len)
{
	return fmt(buf, len, "podwire:", network);
}

/* "10.1.2.0-24", "fd00__-64": the subnet, usable inside an nft identifier. */
static int subnet_token(const struct ip_prefix *subnet, char *buf, size_t len)
{
	struct ip_prefix net = *subnet;
	char a[INET6_ADDRSTRLEN];
	int n;

	if (net.family != AF_INET && net.family != AF_INET6)
		return -EINVAL;
	ip_prefix_mask(&net);
	ip_addr_fmt(net.family, &net.addr, a);
	for (char *p = a; *p; p++)
		if (*p == ':')
			*p = '_';
	n = snprintf(buf, len, "%s-%u", a, net.prefixlen);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int masq_name(const char *prefix, const char *network, const struct ip_prefix *subnet,
		     char *buf, size_t len)
{
	char tok[IP_PREFIX_STRLEN + 8];
	int n, r;

	r = nft_check_network(network);
	if (r < 0)
		return r;
	r = subnet_token(subnet, tok, sizeof(tok));
	if (r < 0)
		return r;
	n = snprintf(buf, len, "%s-%s-%s", prefix, network, tok);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int pw_nft_masq_set_name(const char *network, const struct ip_prefix *subnet, char *buf, size_t len)
{
	return masq_name("pods", network, subnet, buf, len);
}

int pw_nft_masq_chain_name(const char *network, const struct ip_prefix *subnet, char *buf,
			   size_t len)
{
	return masq_name("masq", network, subnet, buf, len);
}

int nft_spoof_names(const char *network, char *chain, char *ports, char *allowed, size_t len)
{
	int r = nft_check_network(network);

	if (r < 0)
		return r;
	r = fmt(chain, len, "spoof-", network);
	if (r >= 0)
		r = fmt(ports, len, "spoof-ports-", network);
	if (r >= 0)
		r = fmt(allowed, len, "spoof-allowed-", network);
	return r;
}
