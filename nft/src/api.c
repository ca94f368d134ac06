/* SPDX-License-Identifier: Apache-2.0 */
/* Per-attachment operations: masquerade, MAC spoof check, GC. */
#include <errno.h>
#include <netinet/in.h>
#include <net/if.h>
#include <string.h>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter_bridge.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netlink.h>

#include <libnftnl/set.h>

#include "internal.h"

#define MAX_ADDRS 64
#define SPOOF_ALLOWED_LEN (IFNAMSIZ + 8)

/* One element of one set: the set's family and name, and the key. */
struct elem_ref {
	uint16_t family;
	const char *set;
	const void *key;
	size_t key_len;
};

/* Put one element (key, tag) into the batch with message type `type`. */
static int batch_elem(struct pw_nft *nft, uint16_t type, const struct elem_ref *e, const char *tag)
{
	struct nftnl_set *s = nft_set_ref(e->family, e->set);
	int r;

	if (!s)
		return -ENOMEM;
	r = nft_elem_add(s, e->key, e->key_len, tag);
	if (r >= 0)
		r = nft_batch_elems(nft, type, type == NFT_MSG_NEWSETELEM ? NLM_F_CREATE : 0, s);
	nftnl_set_free(s);
	return r;
}

static int check_masq(const struct pw_nft_masq *m, char *tag, size_t len)
{
	int r;

	if ((!m->addrs && m->n_addrs) || m->n_addrs > MAX_ADDRS)
		return -EINVAL;
	r = nft_check_network(m->network);
	if (r < 0)
		return r;
	for (size_t i = 0; i < m->n_addrs; i++)
		if (m->addrs[i].family != AF_INET && m->addrs[i].family != AF_INET6)
			return -EINVAL;
	return nft_format_tag(m->container_id, m->ifname, tag, len);
}

static bool subnet_seen(const struct ip_prefix *addrs, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (addrs[j].family == addrs[i].family &&
		    addrs[j].prefixlen == addrs[i].prefixlen &&
		    ip_prefix_contains(&addrs[j], addrs[i].family, &addrs[i].addr))
			return true;
	return false;
}

/* Set, chain and rule of the subnet of addr. */
static int batch_masq_subnet(struct pw_nft *nft, const char *network, const struct ip_prefix *addr)
{
	char set[PW_NFT_NAME_MAX], chain[PW_NFT_NAME_MAX];
	struct ip_prefix subnet = *addr;
	bool v4 = addr->family == AF_INET;
	int r;

	ip_prefix_mask(&subnet);
	r = pw_nft_masq_set_name(network, &subnet, set, sizeof(set));
	if (r >= 0)
		r = pw_nft_masq_chain_name(network, &subnet, chain, sizeof(chain));
	if (r >= 0)
		r = nft_add_set(nft, NFPROTO_INET, set, network,
				v4 ? PW_NFT_TYPE_IPADDR : PW_NFT_TYPE_IP6ADDR,
				(uint32_t)ip_addr_len(addr->family));
	if (r >= 0)
		r = nft_add_base_chain(nft, NFPROTO_INET, chain, "nat", NF_INET_POST_ROUTING,
				       NF_IP_PRI_NAT_SRC);
	if (r >= 0)
		r = nft_add_masq_rule(nft, chain, set, &subnet);
	return r;
}

int pw_nft_masq_add(struct pw_nft *nft, const struct pw_nft_masq *m)
{
	char tag[PW_NFT_TAG_MAX + 1], set[PW_NFT_NAME_MAX];
	int r;

	r = check_masq(m, tag, sizeof(tag));
	if (r < 0)
		return r;
	if (m->n_addrs == 0)
		return -EINVAL;
	r = nft_batch_begin(nft);
	if (r >= 0)
		r = nft_add_table(nft, NFPROTO_INET);
	for (size_t i = 0; r >= 0 && i < m->n_addrs; i++)
		if (!subnet_seen(m->addrs, i))
			r = batch_masq_subnet(nft, m->network, &m->addrs[i]);
	for (size_t i = 0; r >= 0 && i < m->n_addrs; i++) {
		r = pw_nft_masq_set_name(m->network, &m->addrs[i], set, sizeof(set));
		if (r >= 0)
			r = batch_elem(nft, NFT_MSG_NEWSETELEM,
				       &(struct elem_ref){NFPROTO_INET, set, m->addrs[i].addr.bytes,
							  ip_addr_len(m->addrs[i].family)},
				       tag);
	}
	return r < 0 ? r : nft_batch_commit(nft);
}

static bool tag_equal(const char *tag, void *userdata)
{
	return strcmp(tag, userdata) == 0;
}

/*
 * A deletion batch is all or nothing. ENOENT means an element or set read a
 * moment ago changed under a concurrent transaction (seen once in 200
 * parallel DELs): nothing was deleted, so DEL reads again and retries.
 */
#define DEL_TRIES 3

/* Run a deletion batch again while it meets a concurrent change (ENOENT). */
static int del_retried(struct pw_nft *nft, int (*once)(struct pw_nft *, const void *),
		       const void *arg)
{
	int r = -ENOENT;

	for (int i = 0; i < DEL_TRIES && r == -ENOENT; i++)
		r = once(nft, arg);
	return r;
}

static int masq_del_once(struct pw_nft *nft, const void *arg)
{
	const struct pw_nft_masq *m = arg;
	char tag[PW_NFT_TAG_MAX + 1], set[PW_NFT_NAME_MAX];
	unsigned n = 0;
	int r;

	r = check_masq(m, tag, sizeof(tag));
	if (r < 0)
		return r;
	if (m->n_addrs == 0) {
		r = nft_scan_delete(nft, NFPROTO_INET, m->network, tag_equal, tag);
		return r < 0 ? r : 0;
	}
	r = nft_batch_begin(nft);
	/*
	 * Only elements that still carry our tag: after a repeated DEL the
	 * address may already belong to another attachment.
	 */
	for (size_t i = 0; r >= 0 && i < m->n_addrs; i++) {
		const struct ip_prefix *a = &m->addrs[i];

		r = pw_nft_masq_set_name(m->network, a, set, sizeof(set));
		if (r >= 0)
			r = nft_elem_present(nft, NFPROTO_INET, set, a->addr.bytes,
					     ip_addr_len(a->family), tag);
		if (r > 0) {
			n++;
			r = batch_elem(nft, NFT_MSG_DELSETELEM,
				       &(struct elem_ref){NFPROTO_INET, set, a->addr.bytes,
							  ip_addr_len(a->family)},
				       NULL);
		}
	}
	if (r < 0 || n == 0)
		return r < 0 ? r : 0;
	return nft_batch_commit(nft);
}

int pw_nft_masq_del(struct pw_nft *nft, const struct pw_nft_masq *m)
{
	return del_retried(nft, masq_del_once, m);
}

int pw_nft_masq_check(struct pw_nft *nft, const struct pw_nft_masq *m)
{
	char tag[PW_NFT_TAG_MAX + 1], set[PW_NFT_NAME_MAX];
	int r;

	r = check_masq(m, tag, sizeof(tag));
	for (size_t i = 0; r >= 0 && i < m->n_addrs; i++) {
		r = pw_nft_masq_set_name(m->network, &m->addrs[i], set, sizeof(set));
		if (r >= 0)
			r = nft_elem_present(nft, NFPROTO_INET, set, m->addrs[i].addr.bytes,
					     ip_addr_len(m->addrs[i].family), tag);
		if (r == 0)
			return 0;
	}
	return r < 0 ? r : 1;
}

struct spoof_keys {
	char chain[PW_NFT_NAME_MAX], ports[PW_NFT_NAME_MAX], allowed[PW_NFT_NAME_MAX];
	char tag[PW_NFT_TAG_MAX + 1];
	uint8_t port_key[IFNAMSIZ];
	uint8_t allowed_key[SPOOF_ALLOWED_LEN];
	bool has_keys;
};

static int spoof_keys(const struct pw_nft_spoof *s, struct spoof_keys *k)
{
	int r;

	memset(k, 0, sizeof(*k));
	r = nft_spoof_names(s->network, k->chain, k->ports, k->allowed, PW_NFT_NAME_MAX);
	if (r >= 0)
		r = nft_format_tag(s->container_id, s->ifname, k->tag, sizeof(k->tag));
	if (r < 0 || !s->host_ifname || !s->mac)
		return r;
	if (!s->host_ifname[0] || strlen(s->host_ifname) >= IFNAMSIZ)
		return -EINVAL;
	/* iifname is compared as a zero-padded IFNAMSIZ string. */
	memcpy(k->port_key, s->host_ifname, strlen(s->host_ifname));
	memcpy(k->allowed_key, k->port_key, IFNAMSIZ);
	memcpy(k->allowed_key + IFNAMSIZ, s->mac, 6);
	k->has_keys = true;
	return 0;
}

/* spoof_keys for ADD and CHECK, which need the host end and the MAC. */
static int spoof_keys_full(const struct pw_nft_spoof *s, struct spoof_keys *k)
{
	int r = spoof_keys(s, k);

	return r >= 0 && !k->has_keys ? -EINVAL : r;
}

int pw_nft_spoof_add(struct pw_nft *nft, const struct pw_nft_spoof *s)
{
	struct spoof_keys k;
	int r;

	r = spoof_keys_full(s, &k);
	if (r >= 0)
		r = nft_batch_begin(nft);
	if (r >= 0)
		r = nft_add_table(nft, NFPROTO_BRIDGE);
	if (r >= 0)
		r = nft_add_set(nft, NFPROTO_BRIDGE, k.ports, s->network, PW_NFT_TYPE_IFNAME,
				IFNAMSIZ);
	if (r >= 0)
		r = nft_add_set(nft, NFPROTO_BRIDGE, k.allowed, s->network,
				(PW_NFT_TYPE_IFNAME << PW_NFT_TYPE_BITS) | PW_NFT_TYPE_ETHERADDR,
				SPOOF_ALLOWED_LEN);
	if (r >= 0)
		r = nft_add_base_chain(nft, NFPROTO_BRIDGE, k.chain, "filter", NF_BR_PRE_ROUTING,
				       -300);
	if (r >= 0)
		r = nft_add_spoof_rule(nft, k.chain, k.ports, k.allowed);
	if (r >= 0)
		r = batch_elem(nft, NFT_MSG_NEWSETELEM,
			       &(struct elem_ref){NFPROTO_BRIDGE, k.ports, k.port_key, IFNAMSIZ},
			       k.tag);
	if (r >= 0)
		r = batch_elem(
		    nft, NFT_MSG_NEWSETELEM,
		    &(struct elem_ref){NFPROTO_BRIDGE, k.allowed, k.allowed_key, SPOOF_ALLOWED_LEN},
		    k.tag);
	return r < 0 ? r : nft_batch_commit(nft);
}

static int spoof_del_once(struct pw_nft *nft, const void *arg)
{
	const struct pw_nft_spoof *s = arg;
	struct spoof_keys k;
	int r, has_port, has_allowed;

	r = spoof_keys(s, &k);
	if (r < 0)
		return r;
	if (!k.has_keys) {
		r = nft_scan_delete(nft, NFPROTO_BRIDGE, s->network, tag_equal, k.tag);
		return r < 0 ? r : 0;
	}
	has_port = nft_elem_present(nft, NFPROTO_BRIDGE, k.ports, k.port_key, IFNAMSIZ, k.tag);
	if (has_port < 0)
		return has_port;
	has_allowed = nft_elem_present(nft, NFPROTO_BRIDGE, k.allowed, k.allowed_key,
				       SPOOF_ALLOWED_LEN, k.tag);
	if (has_allowed < 0)
		return has_allowed;
	if (!has_port && !has_allowed)
		return 0;
	r = nft_batch_begin(nft);
	if (r >= 0 && has_port)
		r = batch_elem(nft, NFT_MSG_DELSETELEM,
			       &(struct elem_ref){NFPROTO_BRIDGE, k.ports, k.port_key, IFNAMSIZ},
			       NULL);
	if (r >= 0 && has_allowed)
		r = batch_elem(
		    nft, NFT_MSG_DELSETELEM,
		    &(struct elem_ref){NFPROTO_BRIDGE, k.allowed, k.allowed_key, SPOOF_ALLOWED_LEN},
		    NULL);
	return r < 0 ? r : nft_batch_commit(nft);
}

int pw_nft_spoof_del(struct pw_nft *nft, const struct pw_nft_spoof *s)
{
	return del_retried(nft, spoof_del_once, s);
}

int pw_nft_spoof_check(struct pw_nft *nft, const struct pw_nft_spoof *s)
{
	struct spoof_keys k;
	int r;

	r = spoof_keys_full(s, &k);
	if (r >= 0)
		r = nft_elem_present(nft, NFPROTO_BRIDGE, k.ports, k.port_key, IFNAMSIZ, k.tag);
	if (r > 0)
		r = nft_elem_present(nft, NFPROTO_BRIDGE, k.allowed, k.allowed_key,
				     SPOOF_ALLOWED_LEN, k.tag);
	return r;
}

struct gc_arg {
	pw_nft_keep_fn keep;
	void *userdata;
};

static bool gc_pred(const char *tag, void *userdata)
{
	struct gc_arg *a = userdata;
	char cid[PW_NFT_TAG_MAX + 1], ifname[PW_NFT_TAG_MAX + 1];

	if (nft_parse_tag(tag, cid, sizeof(cid), ifname, sizeof(ifname)) < 0)
		return false; /* not ours to judge */
	return !a->keep(cid, ifname, a->userdata);
}

int pw_nft_gc(struct pw_nft *nft, const char *network, pw_nft_keep_fn keep, void *userdata)
{
	struct gc_arg a = {.keep = keep, .userdata = userdata};
	int r, n4, first = 0, total = 0;
	static const uint16_t families[] = {NFPROTO_INET, NFPROTO_BRIDGE};

	r = nft_check_network(network);
	if (r < 0)
		return r;
	/* Keep going after an error in one table; report the first one. */
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		n4 = nft_scan_delete(nft, families[i], network, gc_pred, &a);
		if (n4 < 0 && !first)
			first = n4;
		else if (n4 > 0)
			total += n4;
	}
	return first ? first : total;
}
