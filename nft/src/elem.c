/* SPDX-License-Identifier: Apache-2.0 */
/* Set elements: building with tags, reading tags back, single-element GET. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netfilter/nf_tables.h>
#include <linux/netlink.h>

#include <libnftnl/set.h>
#include <libnftnl/udata.h>

#include "base/macro.h"
#include "internal.h"

struct nftnl_set *nft_set_ref(uint16_t family, const char *name)
{
	struct nftnl_set *s = nftnl_set_alloc();

	if (!s)
		return NULL;
	nftnl_set_set_str(s, NFTNL_SET_TABLE, PW_NFT_TABLE);
	nftnl_set_set_str(s, NFTNL_SET_NAME, name);
	nftnl_set_set_u32(s, NFTNL_SET_FAMILY, family);
	return s;
}

int nft_elem_add_data(struct nftnl_set *s, const void *key, size_t key_len, const void *data,
		      size_t data_len, const char *tag)
{
	struct nftnl_set_elem *e = nftnl_set_elem_alloc();

	if (!e)
		return -ENOMEM;
	nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY, key, (uint32_t)key_len);
	if (data_len)
		nftnl_set_elem_set(e, NFTNL_SET_ELEM_DATA, data, (uint32_t)data_len);
	if (tag) {
		struct nftnl_udata_buf *u = nftnl_udata_buf_alloc(NFT_USERDATA_MAXLEN);

		if (!u || !nftnl_udata_put_strz(u, NFTNL_UDATA_SET_ELEM_COMMENT, tag)) {
			nftnl_udata_buf_free(u);
			nftnl_set_elem_free(e);
			return u ? -ENAMETOOLONG : -ENOMEM;
		}
		nftnl_set_elem_set(e, NFTNL_SET_ELEM_USERDATA, nftnl_udata_buf_data(u),
				   nftnl_udata_buf_len(u));
		nftnl_udata_buf_free(u);
	}
	nftnl_set_elem_add(s, e);
	return 0;
}

int nft_elem_add(struct nftnl_set *s, const void *key, size_t key_len, const char *tag)
{
	return nft_elem_add_data(s, key, key_len, NULL, 0, tag);
}

struct udata_find {
	uint8_t type;
	char *buf;
	size_t len;
};

static int udata_cb(const struct nftnl_udata *attr, void *data)
{
	struct udata_find *f = data;
	uint8_t len = nftnl_udata_len(attr);
	const char *v = nftnl_udata_get(attr);

	if (nftnl_udata_type(attr) != f->type || len == 0 || v[len - 1] != '\0')
		return 0;
	snprintf(f->buf, f->len, "%s", v);
	return 0;
}

static void udata_comment(uint8_t type, const void *udata, uint32_t len, char *buf, size_t buf_len)
{
	struct udata_find f = {.type = type, .buf = buf, .len = buf_len};

	buf[0] = '\0';
	if (udata && len)
		(void)nftnl_udata_parse(udata, len, udata_cb, &f);
}

void nft_elem_tag(const void *udata, uint32_t len, char *buf, size_t buf_len)
{
	udata_comment(NFTNL_UDATA_SET_ELEM_COMMENT, udata, len, buf, buf_len);
}

void nft_set_tag(const void *udata, uint32_t len, char *buf, size_t buf_len)
{
	udata_comment(NFTNL_UDATA_SET_COMMENT, udata, len, buf, buf_len);
}

int nft_batch_elems(struct pw_nft *nft, uint16_t type, uint16_t flags, struct nftnl_set *s)
{
	struct nlmsghdr *nlh;

	nlh = nft_batch_msg(nft, type, (uint16_t)nftnl_set_get_u32(s, NFTNL_SET_FAMILY), flags);
	nftnl_set_elems_nlmsg_build_payload(nlh, s);
	nft_batch_next(nft);
	return 0;
}

int nft_elems_cb(const struct nlmsghdr *nlh, void *set)
{
	return nftnl_set_elems_nlmsg_parse(nlh, set) < 0 ? -EBADMSG : 0;
}

static int first_elem_tag(struct nftnl_set *s, char *buf, size_t len)
{
	struct nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(s);
	struct nftnl_set_elem *e;
	int r = 0;

	if (!it)
		return -ENOMEM;
	e = nftnl_set_elems_iter_next(it);
	if (e) {
		uint32_t ulen = 0;
		const void *u = nftnl_set_elem_get(e, NFTNL_SET_ELEM_USERDATA, &ulen);

		nft_elem_tag(u, ulen, buf, len);
		r = 1;
	}
	nftnl_set_elems_iter_destroy(it);
	return r;
}

int nft_elem_present(struct pw_nft *nft, uint16_t family, const char *set, const void *key,
		     size_t key_len, const char *tag)
{
	char buf[PW_NFT_REQ_MAX] = {0}; /* attribute padding reaches the kernel */
	struct nftnl_set *s = nft_set_ref(family, set), *reply = nftnl_set_alloc();
	char got[NFT_USERDATA_MAXLEN];
	struct nlmsghdr *nlh;
	int r;

	if (!s || !reply) {
		r = -ENOMEM;
		goto out;
	}
	r = nft_elem_add(s, key, key_len, NULL);
	if (r < 0)
		goto out;
	nlh = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETSETELEM, family, 0, 0);
	nftnl_set_elems_nlmsg_build_payload(nlh, s);
	r = nft_talk(nft, nlh, nft_elems_cb, reply);
	if (r == -ENOENT) {
		r = 0; /* table, set or element missing */
		goto out;
	}
	if (r < 0)
		goto out;
	r = first_elem_tag(reply, got, sizeof(got));
	if (r > 0)
		r = strcmp(got, tag) == 0;
out:
	if (s)
		nftnl_set_free(s);
	if (reply)
		nftnl_set_free(reply);
	return r;
}
