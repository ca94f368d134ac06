/* SPDX-License-Identifier: Apache-2.0 */
/*
 * portmap per-attachment operations: plan the elements of an attachment,
 * add them (EXCL first; on a clash find the owner), delete, check, GC.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netlink.h>

#include <libnftnl/chain.h>
#include <libnftnl/set.h>
#include <libnftnl/udata.h>

#include "base/macro.h"
#include "portmap-internal.h"

#define PM_MAX_PORTS 256
#define PM_N_SETS 5

struct pm_elem {
	enum pw_nft_portmap_set which;
	int family;
	uint8_t key[PW_NFT_PORTMAP_KEY_MAX];
	size_t klen;
	uint8_t data[20];
	size_t dlen; /* 0: plain set element */
	size_t entry;
};

static const struct pm_rule pm_rules[] = {
    {PM_CHAIN_DNAT, PM_RULE_DNAT, PW_PM_HOSTIP, AF_INET},
    {PM_CHAIN_DNAT, PM_RULE_DNAT, PW_PM_HOSTPORTS, AF_INET},
    {PM_CHAIN_DNAT, PM_RULE_DNAT, PW_PM_HOSTIP, AF_INET6},
    {PM_CHAIN_DNAT, PM_RULE_DNAT, PW_PM_HOSTPORTS, AF_INET6},
    {PM_CHAIN_PRE, PM_RULE_JUMP_LOCAL, 0, 0},
    {PM_CHAIN_OUT, PM_RULE_JUMP_LOCAL, 0, 0},
    {PM_CHAIN_POST, PM_RULE_MASQ, PW_PM_HAIRPIN, AF_INET},
    {PM_CHAIN_POST, PM_RULE_MASQ, PW_PM_LOCALHOST, AF_INET},
    {PM_CHAIN_POST, PM_RULE_MASQ, PW_PM_MASQALL, AF_INET},
    {PM_CHAIN_POST, PM_RULE_MASQ, PW_PM_HAIRPIN, AF_INET6},
    {PM_CHAIN_POST, PM_RULE_MASQ, PW_PM_MASQALL, AF_INET6},
};

const char *pw_nft_portmap_set_name(enum pw_nft_portmap_set which, int family)
{
	static const char *const v4[] = {"hostports-v4", "hostip-hostports-v4",
					 "hostport-hairpin-v4", "hostport-localhost-v4",
					 "hostport-masqall-v4"};
	static const char *const v6[] = {"hostports-v6", "hostip-hostports-v6",
					 "hostport-hairpin-v6", NULL, "hostport-masqall-v6"};

	if ((unsigned)which >= PM_N_SETS)
		return NULL;
	if (family == AF_INET)
		return v4[which];
	return family == AF_INET6 ? v6[which] : NULL;
}

/* Append n bytes, zero-padded to a 4-byte register boundary. */
static size_t put(uint8_t *key, size_t off, const void *v, size_t n)
{
	memcpy(key + off, v, n);
	while (n % 4)
		key[off + n++] = 0;
	return off + n;
}

size_t pw_nft_portmap_key(enum pw_nft_portmap_set which, const struct pw_nft_hostport *p,
			  uint8_t key[PW_NFT_PORTMAP_KEY_MAX])
{
	size_t alen = ip_addr_len(p->family), off = 0;
	uint16_t port;

	if (!pw_nft_portmap_set_name(which, p->family) ||
	    (which == PW_PM_HOSTIP && !p->has_host_ip))
		return 0;
	memset(key, 0, PW_NFT_PORTMAP_KEY_MAX);
	if (which == PW_PM_HOSTIP)
		off = put(key, off, p->host_ip.bytes, alen);
	if (which == PW_PM_HAIRPIN)
		off = put(key, off, p->pod_ip.bytes, alen);
	if (which >= PW_PM_HAIRPIN)
		off = put(key, off, p->pod_ip.bytes, alen);
	off = put(key, off, &p->proto, 1);
	port = htons(which >= PW_PM_HAIRPIN ? p->container_port : p->host_port);
	return put(key, off, &port, 2);
}

size_t pw_nft_portmap_data(const struct pw_nft_hostport *p, uint8_t data[20])
{
	uint16_t port = htons(p->container_port);
	size_t off = put(data, 0, p->pod_ip.bytes, ip_addr_len(p->family));

	return put(data, off, &port, 2);
}

int pw_nft_portmap_tag(const char *network, const char *container_id, const char *ifname, char *buf,
		       size_t len)
{
	int n;

	if (nft_check_network(network) < 0 || !container_id || !container_id[0] || !ifname ||
	    !ifname[0] || strchr(container_id, '/') || strchr(ifname, '/'))
		return -EINVAL;
	if (len > PW_NFT_PORTMAP_TAG_MAX + 1)
		len = PW_NFT_PORTMAP_TAG_MAX + 1;
	n = snprintf(buf, len, "%s/%s/%s", network, container_id, ifname);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static bool elem_seen(const struct pm_elem *e, size_t n, const struct pm_elem *x)
{
	for (size_t i = 0; i < n; i++)
		if (e[i].which == x->which && e[i].family == x->family && e[i].klen == x->klen &&
		    memcmp(e[i].key, x->key, x->klen) == 0)
			return true;
	return false;
}

static void plan_one(const struct pw_nft_portmap *pm, size_t i, struct pm_elem *e, size_t *n)
{
	const struct pw_nft_hostport *p = &pm->ports[i];
	enum pw_nft_portmap_set sets[4];
	size_t ns = 0;

	sets[ns++] = p->has_host_ip ? PW_PM_HOSTIP : PW_PM_HOSTPORTS;
	if (pm->snat)
		sets[ns++] = PW_PM_HAIRPIN;
	if (pm->snat && p->family == AF_INET)
		sets[ns++] = PW_PM_LOCALHOST;
	if (pm->masq_all)
		sets[ns++] = PW_PM_MASQALL;
	for (size_t s = 0; s < ns; s++) {
		struct pm_elem *x = &e[*n];

		memset(x, 0, sizeof(*x));
		x->which = sets[s];
		x->family = p->family;
		x->entry = i;
		x->klen = pw_nft_portmap_key(sets[s], p, x->key);
		if (s == 0)
			x->dlen = pw_nft_portmap_data(p, x->data);
		if (!elem_seen(e, *n, x))
			(*n)++;
	}
}

/* Every element of the attachment, set elements deduplicated. */
static int plan_elems(const struct pw_nft_portmap *pm, struct pm_elem **ret, size_t *ret_n)
{
	struct pm_elem *e;
	size_t n = 0;

	if (pm->n_ports > PM_MAX_PORTS || (pm->n_ports && !pm->ports))
		return -EINVAL;
	for (size_t i = 0; i < pm->n_ports; i++) {
		const struct pw_nft_hostport *p = &pm->ports[i];

		if ((p->family != AF_INET && p->family != AF_INET6) || !p->host_port ||
		    !p->container_port)
			return -EINVAL;
	}
	e = calloc(pm->n_ports * 4 + 1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (size_t i = 0; i < pm->n_ports; i++)
		plan_one(pm, i, e, &n);
	*ret = e;
	*ret_n = n;
	return 0;
}

static int elem_put(struct nftnl_set *s, const struct pm_elem *x, const char *tag)
{
	/* Deletions (no tag) name keys only. */
	return nft_elem_add_data(s, x->key, x->klen, tag ? x->data : NULL, tag ? x->dlen : 0, tag);
}

/*
 * What batch_grouped sends: the elements of e[] that sel picks (sel NULL:
 * all), with tag (NULL: keys only, for deletions).
 */
struct pm_batch {
	uint16_t type, flags;
	const struct pm_elem *e;
	size_t n;
	const bool *sel;
	const char *tag;
};

/* One message for set w of family fam with its elements of b, when it has any. */
static int batch_set(struct pw_nft *nft, const struct pm_batch *b, enum pw_nft_portmap_set w,
		     int fam)
{
	const char *name = pw_nft_portmap_set_name(w, fam);
	struct nftnl_set *s;
	size_t cnt = 0;
	int r = 0;

	if (!name)
		return 0;
	s = nft_set_ref(NFPROTO_INET, name);
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; r >= 0 && i < b->n; i++)
		if (b->e[i].which == w && b->e[i].family == fam && (!b->sel || b->sel[i])) {
			r = elem_put(s, &b->e[i], b->tag);
			cnt++;
		}
	if (r >= 0 && cnt)
		r = nft_batch_elems(nft, b->type, b->flags, s);
	nftnl_set_free(s);
	return r;
}

/* One message per set holding the elements of b. */
static int batch_grouped(struct pw_nft *nft, const struct pm_batch *b)
{
	static const int fams[] = {AF_INET, AF_INET6};
	int r = 0;

	for (size_t f = 0; r >= 0 && f < 2; f++)
		for (int w = 0; r >= 0 && w < PM_N_SETS; w++)
			r = batch_set(nft, b, (enum pw_nft_portmap_set)w, fams[f]);
	return r < 0 ? r : 0;
}

static int batch_objects(struct pw_nft *nft)
{
	static const int fams[] = {AF_INET, AF_INET6};
	int r = nft_add_table(nft, NFPROTO_INET);

	for (size_t f = 0; r >= 0 && f < 2; f++)
		for (int w = 0; r >= 0 && w < PM_N_SETS; w++)
			if (pw_nft_portmap_set_name(w, fams[f]))
				r = pm_add_set(nft, w, fams[f]);
	if (r >= 0)
		r = nft_add_base_chain(nft, NFPROTO_INET, PM_CHAIN_DNAT, NULL, 0, 0);
	if (r >= 0)
		r = nft_add_base_chain(nft, NFPROTO_INET, PM_CHAIN_PRE, "nat", NF_INET_PRE_ROUTING,
				       NF_IP_PRI_NAT_DST);
	if (r >= 0)
		r = nft_add_base_chain(nft, NFPROTO_INET, PM_CHAIN_OUT, "nat", NF_INET_LOCAL_OUT,
				       NF_IP_PRI_NAT_DST);
	if (r >= 0)
		r = nft_add_base_chain(nft, NFPROTO_INET, PM_CHAIN_POST, "nat",
				       NF_INET_POST_ROUTING, NF_IP_PRI_NAT_SRC);
	for (size_t i = 0; r >= 0 && i < sizeof(pm_rules) / sizeof(pm_rules[0]); i++)
		r = pm_add_rule(nft, &pm_rules[i]);
	return r;
}

struct got_elem {
	char tag[NFT_USERDATA_MAXLEN];
	uint8_t data[20];
	uint32_t dlen;
};

static void first_elem(struct nftnl_set *s, struct got_elem *g, int *found)
{
	struct nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(s);
	struct nftnl_set_elem *e = it ? nftnl_set_elems_iter_next(it) : NULL;

	if (e) {
		uint32_t ulen = 0, dlen = 0;
		const void *u = nftnl_set_elem_get(e, NFTNL_SET_ELEM_USERDATA, &ulen);
		const void *d = nftnl_set_elem_get(e, NFTNL_SET_ELEM_DATA, &dlen);

		nft_elem_tag(u, ulen, g->tag, sizeof(g->tag));
		if (d && dlen <= sizeof(g->data)) {
			memcpy(g->data, d, dlen);
			g->dlen = dlen;
		}
		*found = 1;
	}
	if (it)
		nftnl_set_elems_iter_destroy(it);
}

/* GET one element: 1 found (g filled), 0 missing, <0 error. */
static int get_elem(struct pw_nft *nft, const struct pm_elem *x, struct got_elem *g)
{
	char buf[PW_NFT_REQ_MAX] = {0};
	struct nftnl_set *s =
	    nft_set_ref(NFPROTO_INET, pw_nft_portmap_set_name(x->which, x->family));
	struct nftnl_set *reply = nftnl_set_alloc();
	struct nlmsghdr *nlh;
	int r, found = 0;

	memset(g, 0, sizeof(*g));
	r = s && reply ? nft_elem_add(s, x->key, x->klen, NULL) : -ENOMEM;
	if (r >= 0) {
		nlh = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETSETELEM, NFPROTO_INET, 0, 0);
		nftnl_set_elems_nlmsg_build_payload(nlh, s);
		r = nft_talk(nft, nlh, nft_elems_cb, reply);
	}
	if (r >= 0)
		first_elem(reply, g, &found);
	if (s)
		nftnl_set_free(s);
	if (reply)
		nftnl_set_free(reply);
	if (r == -ENOENT)
		return 0;
	return r < 0 ? r : found;
}

/*
 * After -EEXIST: is any map key held by another attachment? Returns 1 and
 * fills owner/which if so, 0 when every existing element is ours or a set
 * element (taken over), <0 on error.
 */
static int find_clash(struct pw_nft *nft, const struct pm_elem *e, size_t n, const char *tag,
		      char *owner, size_t *which)
{
	for (size_t i = 0; i < n; i++) {
		struct got_elem g;
		int r;

		if (!e[i].dlen)
			continue;
		r = get_elem(nft, &e[i], &g);
		if (r < 0)
			return r;
		if (r > 0 && strcmp(g.tag, tag) != 0) {
			if (owner) {
				size_t l = strnlen(g.tag, PW_NFT_PORTMAP_TAG_MAX);

				memcpy(owner, g.tag, l);
				owner[l] = '\0';
			}
			if (which)
				*which = e[i].entry;
			return 1;
		}
	}
	return 0;
}

static int chain_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	*(bool *)data = true;
	return 0;
}

/*
 * Do the table, sets and chains exist? They are created together in one
 * transaction, so the last base chain stands for all of them. Rewriting
 * them on every ADD would cost the kernel a deferred release (an RCU grace
 * period, paid again when the socket closes) for the replaced rules.
 * Returns 1, 0, or -errno; on a recorder 0 (always build them).
 */
static int objects_exist(struct pw_nft *nft)
{
	char buf[PW_NFT_REQ_MAX] = {0};
	struct nftnl_chain *c;
	struct nlmsghdr *nlh;
	bool found = false;
	int r;

	if (!nft->sock)
		return 0;
	c = nftnl_chain_alloc();
	if (!c)
		return -ENOMEM;
	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, PW_NFT_TABLE);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, PM_CHAIN_POST);
	nlh = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETCHAIN, NFPROTO_INET, 0, 0);
	nftnl_chain_nlmsg_build_payload(nlh, c);
	nftnl_chain_free(c);
	r = nft_talk(nft, nlh, chain_cb, &found);
	if (r == -ENOENT)
		return 0;
	return r < 0 ? r : found;
}

static int add_batch(struct pw_nft *nft, const struct pm_elem *e, size_t n, const char *tag,
		     bool replace)
{
	int have = objects_exist(nft);
	int r = have < 0 ? have : nft_batch_begin(nft);

	if (r >= 0 && !have)
		r = batch_objects(nft);
	if (r >= 0 && replace)
		r = batch_grouped(
		    nft, &(struct pm_batch){PW_NFT_MSG_DESTROYSETELEM, 0, e, n, NULL, NULL});
	if (r >= 0)
		r = batch_grouped(nft, &(struct pm_batch){NFT_MSG_NEWSETELEM,
							  NLM_F_CREATE | (replace ? 0 : NLM_F_EXCL),
							  e, n, NULL, tag});
	return r < 0 ? r : nft_batch_commit(nft);
}

/* The attachment's tag (PW_NFT_PORTMAP_TAG_MAX + 1 bytes) and its planned elements. */
static int tag_and_plan(const struct pw_nft_portmap *pm, char *tag, struct pm_elem **e, size_t *n)
{
	int r = pw_nft_portmap_tag(pm->network, pm->container_id, pm->ifname, tag,
				   PW_NFT_PORTMAP_TAG_MAX + 1);

	return r < 0 ? r : plan_elems(pm, e, n);
}

int pw_nft_portmap_add(struct pw_nft *nft, const struct pw_nft_portmap *pm, char *owner,
		       size_t *which)
{
	_cleanup_free_ struct pm_elem *e = NULL;
	char tag[PW_NFT_PORTMAP_TAG_MAX + 1];
	size_t n = 0;
	int r;

	r = tag_and_plan(pm, tag, &e, &n);
	if (r < 0)
		return r;
	r = add_batch(nft, e, n, tag, false);
	if (r != -EEXIST)
		return r;
	r = find_clash(nft, e, n, tag, owner, which);
	if (r < 0)
		return r;
	if (r > 0)
		return -EEXIST;
	/* Our own elements (a repeated ADD) or stale set elements: replace them. */
	return add_batch(nft, e, n, tag, true);
}

static bool tag_is(const char *tag, void *userdata)
{
	return strcmp(tag, userdata) == 0;
}

static int scan_delete(struct pw_nft *nft, bool (*pred)(const char *, void *), void *userdata);

int pw_nft_portmap_del(struct pw_nft *nft, const struct pw_nft_portmap *pm)
{
	_cleanup_free_ struct pm_elem *e = NULL;
	_cleanup_free_ bool *sel = NULL;
	char tag[PW_NFT_PORTMAP_TAG_MAX + 1];
	size_t n = 0, mine = 0;
	int r;

	r = pw_nft_portmap_tag(pm->network, pm->container_id, pm->ifname, tag, sizeof(tag));
	if (r < 0)
		return r;
	if (pm->n_ports == 0) {
		r = scan_delete(nft, tag_is, tag);
		return r < 0 ? r : 0;
	}
	r = plan_elems(pm, &e, &n);
	if (r < 0)
		return r;
	sel = calloc(n + 1, sizeof(*sel));
	if (!sel)
		return -ENOMEM;
	/* Only elements still tagged with us: the key may belong to someone else now. */
	for (size_t i = 0; i < n; i++) {
		struct got_elem g;

		r = get_elem(nft, &e[i], &g);
		if (r < 0)
			return r;
		sel[i] = r > 0 && strcmp(g.tag, tag) == 0;
		mine += sel[i];
	}
	if (!mine)
		return 0;
	r = nft_batch_begin(nft);
	if (r >= 0)
		r = batch_grouped(
		    nft, &(struct pm_batch){PW_NFT_MSG_DESTROYSETELEM, 0, e, n, sel, NULL});
	return r < 0 ? r : nft_batch_commit(nft);
}

int pw_nft_portmap_check(struct pw_nft *nft, const struct pw_nft_portmap *pm, size_t *which)
{
	_cleanup_free_ struct pm_elem *e = NULL;
	char tag[PW_NFT_PORTMAP_TAG_MAX + 1];
	size_t n = 0;
	int r;

	r = tag_and_plan(pm, tag, &e, &n);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		struct got_elem g;

		r = get_elem(nft, &e[i], &g);
		if (r == 0 || (r > 0 && (strcmp(g.tag, tag) != 0 || g.dlen != e[i].dlen ||
					 memcmp(g.data, e[i].data, g.dlen) != 0))) {
			if (which)
				*which = e[i].entry;
			return 0;
		}
	}
	return r < 0 ? r : 1;
}

/* ---- scans (DEL without ports, GC) ---- */

static int scan_one(struct pw_nft *nft, const char *name, bool (*pred)(const char *, void *),
		    void *userdata)
{
	struct nftnl_set *all = nft_set_ref(NFPROTO_INET, name), *del = NULL;
	int r = all ? nft_list_elems(nft, all) : -ENOMEM;

	if (r >= 0)
		r = nft_pick_elems(all, pred, userdata, &del);
	if (r > 0) {
		nft_batch_elems(nft, PW_NFT_MSG_DESTROYSETELEM, 0, del);
		nftnl_set_free(del);
	}
	if (all)
		nftnl_set_free(all);
	return r;
}

static int scan_delete(struct pw_nft *nft, bool (*pred)(const char *, void *), void *userdata)
{
	static const int fams[] = {AF_INET, AF_INET6};
	int r = nft_batch_begin(nft), total = 0;

	for (size_t f = 0; r >= 0 && f < 2; f++)
		for (int w = 0; r >= 0 && w < PM_N_SETS; w++) {
			const char *name = pw_nft_portmap_set_name(w, fams[f]);

			if (!name)
				continue;
			r = scan_one(nft, name, pred, userdata);
			if (r > 0)
				total += r;
		}
	if (r < 0 || total == 0)
		return r < 0 ? r : 0;
	r = nft_batch_commit(nft);
	return r < 0 ? r : total;
}

struct gc_arg {
	const char *network;
	pw_nft_keep_fn keep;
	void *userdata;
};

static bool gc_pred(const char *tag, void *userdata)
{
	const struct gc_arg *a = userdata;
	size_t nl = strlen(a->network);
	char cid[PW_NFT_PORTMAP_TAG_MAX + 1];
	const char *rest, *slash;

	if (strncmp(tag, a->network, nl) != 0 || tag[nl] != '/')
		return false;
	rest = tag + nl + 1;
	slash = strchr(rest, '/');
	if (!slash || slash == rest || !slash[1] || strchr(slash + 1, '/') ||
	    (size_t)(slash - rest) >= sizeof(cid))
		return false; /* not a tag of ours */
	memcpy(cid, rest, (size_t)(slash - rest));
	cid[slash - rest] = '\0';
	return !a->keep(cid, slash + 1, a->userdata);
}

int pw_nft_portmap_gc(struct pw_nft *nft, const char *network, pw_nft_keep_fn keep, void *userdata)
{
	struct gc_arg a = {.network = network, .keep = keep, .userdata = userdata};

	if (nft_check_network(network) < 0 || !keep)
		return -EINVAL;
	return scan_delete(nft, gc_pred, &a);
}
