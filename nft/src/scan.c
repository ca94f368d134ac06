/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Scan a network's sets for tagged elements and delete the matching ones in
 * one transaction: DEL without addresses, and GC. Dumps are fine here: this
 * is not ADD's path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netinet/in.h>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netlink.h>

#include <libnftnl/chain.h>
#include <libnftnl/set.h>
#include <libnftnl/udata.h>

#include "base/macro.h"
#include "internal.h"

#define MAX_SETS 256

struct set_list {
	struct nftnl_set *sets[MAX_SETS];
	unsigned n;
	const char *comment; /* "podwire:<net>", or NULL: every "podwire:" set */
};

static void set_list_done(struct set_list *l)
{
	for (unsigned i = 0; i < l->n; i++)
		nftnl_set_free(l->sets[i]);
	l->n = 0;
}

/* Keep the sets of our network only (their comment names it). */
static int set_cb(const struct nlmsghdr *nlh, void *data)
{
	struct set_list *l = data;
	struct nftnl_set *s = nftnl_set_alloc();
	char tag[NFT_USERDATA_MAXLEN];
	const void *u;
	uint32_t ulen = 0;

	if (!s)
		return -ENOMEM;
	if (nftnl_set_nlmsg_parse(nlh, s) < 0) {
		nftnl_set_free(s);
		return -EBADMSG;
	}
	u = nftnl_set_get_data(s, NFTNL_SET_USERDATA, &ulen);
	nft_set_tag(u, ulen, tag, sizeof(tag));
	if ((l->comment ? strcmp(tag, l->comment) != 0 : strncmp(tag, "podwire:", 8) != 0) ||
	    l->n >= MAX_SETS) {
		nftnl_set_free(s);
		return 0;
	}
	l->sets[l->n++] = s;
	return 0;
}

static int list_sets(struct pw_nft *nft, uint16_t family, struct set_list *l)
{
	char buf[PW_NFT_REQ_MAX] = {0}; /* attribute padding reaches the kernel */
	struct nftnl_set *q = nftnl_set_alloc();
	struct nlmsghdr *nlh;
	int r;

	if (!q)
		return -ENOMEM;
	nftnl_set_set_str(q, NFTNL_SET_TABLE, PW_NFT_TABLE);
	nlh = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETSET, family, NLM_F_DUMP, 0);
	nftnl_set_nlmsg_build_payload(nlh, q);
	nftnl_set_free(q);
	r = nft_talk(nft, nlh, set_cb, l);
	return r == -ENOENT ? 0 : r; /* no table: nothing of ours */
}

int nft_list_elems(struct pw_nft *nft, struct nftnl_set *s)
{
	char buf[PW_NFT_REQ_MAX] = {0}; /* attribute padding reaches the kernel */
	struct nlmsghdr *nlh;
	int r;

	nlh =
	    nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETSETELEM,
				  (uint16_t)nftnl_set_get_u32(s, NFTNL_SET_FAMILY), NLM_F_DUMP, 0);
	nftnl_set_elems_nlmsg_build_payload(nlh, s);
	r = nft_talk(nft, nlh, nft_elems_cb, s);
	return r == -ENOENT ? 0 : r;
}

int nft_pick_elems(struct nftnl_set *from, nft_tag_pred pred, void *userdata,
		   struct nftnl_set **ret)
{
	struct nftnl_set *to = nftnl_set_alloc();
	struct nftnl_set_elems_iter *it;
	struct nftnl_set_elem *e;
	int n = 0;

	if (!to)
		return -ENOMEM;
	nftnl_set_set_str(to, NFTNL_SET_TABLE, nftnl_set_get_str(from, NFTNL_SET_TABLE));
	nftnl_set_set_str(to, NFTNL_SET_NAME, nftnl_set_get_str(from, NFTNL_SET_NAME));
	nftnl_set_set_u32(to, NFTNL_SET_FAMILY, nftnl_set_get_u32(from, NFTNL_SET_FAMILY));
	it = nftnl_set_elems_iter_create(from);
	if (!it) {
		nftnl_set_free(to);
		return -ENOMEM;
	}
	while ((e = nftnl_set_elems_iter_next(it))) {
		char tag[NFT_USERDATA_MAXLEN];
		uint32_t klen = 0, ulen = 0;
		const void *key = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &klen);
		const void *u = nftnl_set_elem_get(e, NFTNL_SET_ELEM_USERDATA, &ulen);

		nft_elem_tag(u, ulen, tag, sizeof(tag));
		if (!key || !tag[0] || !pred(tag, userdata))
			continue;
		if (nft_elem_add(to, key, klen, NULL) < 0) {
			n = -ENOMEM;
			break;
		}
		n++;
	}
	nftnl_set_elems_iter_destroy(it);
	if (n <= 0) {
		nftnl_set_free(to);
		return n;
	}
	*ret = to;
	return n;
}

/* Fill the batch with deletions from every listed set. Returns the count. */
static int batch_deletions(struct pw_nft *nft, struct set_list *l, nft_tag_pred pred,
			   void *userdata)
{
	int total = 0;

	for (unsigned i = 0; i < l->n; i++) {
		struct nftnl_set *del = NULL;
		int r = nft_list_elems(nft, l->sets[i]);

		if (r >= 0)
			r = nft_pick_elems(l->sets[i], pred, userdata, &del);
		if (r < 0)
			return r;
		if (r == 0)
			continue;
		/* DELSETELEM: these elements were just listed, so they exist. */
		nft_batch_elems(nft, NFT_MSG_DELSETELEM, 0, del);
		nftnl_set_free(del);
		total += r;
	}
	return total;
}

int nft_scan_delete(struct pw_nft *nft, uint16_t family, const char *network, nft_tag_pred pred,
		    void *userdata)
{
	char comment[PW_NFT_NAME_MAX];
	struct set_list l = {.n = 0, .comment = comment};
	int r, total;

	r = nft_set_comment(network, comment, sizeof(comment));
	if (r < 0)
		return r;
	r = list_sets(nft, family, &l);
	if (r < 0 || l.n == 0) {
		set_list_done(&l);
		return r;
	}
	r = nft_batch_begin(nft);
	total = r < 0 ? r : batch_deletions(nft, &l, pred, userdata);
	set_list_done(&l);
	if (total <= 0)
		return total;
	r = nft_batch_commit(nft);
	return r < 0 ? r : total;
}

/* Does any listed set hold an element? 1, 0, or a negative errno. */
static int any_elems(struct pw_nft *nft, struct set_list *l)
{
	for (unsigned i = 0; i < l->n; i++) {
		struct nftnl_set_elems_iter *it;
		int r = nft_list_elems(nft, l->sets[i]), some;

		if (r < 0)
			return r;
		it = nftnl_set_elems_iter_create(l->sets[i]);
		if (!it)
			return -ENOMEM;
		some = nftnl_set_elems_iter_next(it) != NULL;
		nftnl_set_elems_iter_destroy(it);
		if (some)
			return 1;
	}
	return 0;
}

/* Flush the chain, then DELCHAIN. */
static int batch_del_chain(struct pw_nft *nft, uint16_t family, const char *name)
{
	struct nftnl_chain *c = nftnl_chain_alloc();
	struct nlmsghdr *nlh;
	int r;

	if (!c)
		return -ENOMEM;
	r = nft_batch_flush_chain(nft, family, name);
	if (r >= 0) {
		nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, PW_NFT_TABLE);
		nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, name);
		nlh = nft_batch_msg(nft, NFT_MSG_DELCHAIN, family, 0);
		nftnl_chain_nlmsg_build_payload(nlh, c);
		nft_batch_next(nft);
	}
	nftnl_chain_free(c);
	return r;
}

static void batch_del_set(struct pw_nft *nft, struct nftnl_set *s)
{
	uint16_t family = (uint16_t)nftnl_set_get_u32(s, NFTNL_SET_FAMILY);
	struct nlmsghdr *nlh = nft_batch_msg(nft, NFT_MSG_DELSET, family, 0);

	nftnl_set_nlmsg_build_payload(nlh, s);
	nft_batch_next(nft);
}

/*
 * The chains that use a network's sets: masq-<net>-<subnet> for each
 * pods-<net>-<subnet> (inet), spoof-<net> for the spoof sets (bridge).
 */
static int batch_del_network(struct pw_nft *nft, uint16_t family, const char *network,
			     struct set_list *l)
{
	char chain[PW_NFT_NAME_MAX], ports[PW_NFT_NAME_MAX], allowed[PW_NFT_NAME_MAX];
	int r = 0;

	if (family == NFPROTO_BRIDGE) {
		r = nft_spoof_names(network, chain, ports, allowed, sizeof(chain));
		if (r >= 0)
			r = batch_del_chain(nft, family, chain);
	}
	for (unsigned i = 0; r >= 0 && family == NFPROTO_INET && i < l->n; i++) {
		const char *set = nftnl_set_get_str(l->sets[i], NFTNL_SET_NAME);

		if (strncmp(set, "pods-", 5) != 0)
			continue;
		snprintf(chain, sizeof(chain), "masq-%s", set + 5);
		r = batch_del_chain(nft, family, chain);
	}
	for (unsigned i = 0; r >= 0 && i < l->n; i++)
		batch_del_set(nft, l->sets[i]);
	return r;
}

int pw_nft_drop_network_if_empty(struct pw_nft *nft, const char *network)
{
	static const uint16_t families[] = {NFPROTO_INET, NFPROTO_BRIDGE};
	char comment[PW_NFT_NAME_MAX];
	int r, dropped = 0;

	r = nft_set_comment(network, comment, sizeof(comment));
	for (size_t f = 0; r >= 0 && f < sizeof(families) / sizeof(families[0]); f++) {
		struct set_list l = {.n = 0, .comment = comment};

		r = list_sets(nft, families[f], &l);
		if (r >= 0 && l.n > 0)
			r = any_elems(nft, &l);
		if (r == 0 && l.n > 0) {
			r = nft_batch_begin(nft);
			if (r >= 0)
				r = batch_del_network(nft, families[f], network, &l);
			if (r >= 0)
				r = nft_batch_commit(nft);
			if (r >= 0)
				dropped += (int)l.n;
		}
		set_list_done(&l);
		if (r > 0)
			r = 0; /* elements left: keep this table's part */
	}
	return r < 0 ? r : dropped;
}

/* The elements of one listed set, each handed to fn with its set's network. */
static int each_elem(struct nftnl_set *s, pw_nft_elem_fn fn, void *userdata)
{
	char settag[NFT_USERDATA_MAXLEN];
	struct pw_nft_elem el = {0};
	struct nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(s);
	struct nftnl_set_elem *e;
	const void *u;
	uint32_t ulen = 0;
	int r = 0;

	if (!it)
		return -ENOMEM;
	u = nftnl_set_get_data(s, NFTNL_SET_USERDATA, &ulen);
	nft_set_tag(u, ulen, settag, sizeof(settag));
	el.family = nftnl_set_get_u32(s, NFTNL_SET_FAMILY);
	el.set = nftnl_set_get_str(s, NFTNL_SET_NAME);
	el.network = settag + 8; /* after "podwire:" */
	while (r >= 0 && (e = nftnl_set_elems_iter_next(it))) {
		char tag[NFT_USERDATA_MAXLEN];
		uint32_t klen = 0, elen = 0;
		const void *eu = nftnl_set_elem_get(e, NFTNL_SET_ELEM_USERDATA, &elen);

		el.key = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &klen);
		el.key_len = klen;
		nft_elem_tag(eu, elen, tag, sizeof(tag));
		el.tag = tag;
		r = fn(&el, userdata);
	}
	nftnl_set_elems_iter_destroy(it);
	return r;
}

int pw_nft_list_elems(struct pw_nft *nft, pw_nft_elem_fn fn, void *userdata)
{
	static const uint16_t families[] = {NFPROTO_INET, NFPROTO_BRIDGE};
	int r = 0;

	for (size_t f = 0; r >= 0 && f < sizeof(families) / sizeof(families[0]); f++) {
		struct set_list l = {.n = 0, .comment = NULL};

		r = list_sets(nft, families[f], &l);
		for (unsigned i = 0; r >= 0 && i < l.n; i++) {
			r = nft_list_elems(nft, l.sets[i]);
			if (r >= 0)
				r = each_elem(l.sets[i], fn, userdata);
		}
		set_list_done(&l);
	}
	return r;
}
