/* SPDX-License-Identifier: Apache-2.0 */
/* Request building helpers and table-driven attribute validation. */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <net/if.h>
#include <string.h>

#include "internal.h"

struct nlmsghdr *nlw_req_init(union nlw_req *req, uint16_t type, uint16_t flags, size_t hdr_len,
			      void **ret_hdr)
{
	struct nlmsghdr *nlh;
	void *hdr;

	/* The whole buffer: libmnl 1.0.4 does not zero attribute padding, and
	 * uninitialised padding must not reach the kernel. */
	memset(req, 0, sizeof(*req));
	nlh = mnl_nlmsg_put_header(req->buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = (uint16_t)(NLM_F_REQUEST | flags);
	hdr = hdr_len ? mnl_nlmsg_put_extra_header(nlh, hdr_len) : NULL;
	if (ret_hdr)
		*ret_hdr = hdr;
	return nlh;
}

bool nlw_put_u8(struct nlmsghdr *nlh, uint16_t type, uint8_t v)
{
	return mnl_attr_put_u8_check(nlh, NLW_REQ_SIZE, type, v);
}

bool nlw_put_u16(struct nlmsghdr *nlh, uint16_t type, uint16_t v)
{
	return mnl_attr_put_u16_check(nlh, NLW_REQ_SIZE, type, v);
}

bool nlw_put_u32(struct nlmsghdr *nlh, uint16_t type, uint32_t v)
{
	return mnl_attr_put_u32_check(nlh, NLW_REQ_SIZE, type, v);
}

bool nlw_put_str(struct nlmsghdr *nlh, uint16_t type, const char *s)
{
	return mnl_attr_put_strz_check(nlh, NLW_REQ_SIZE, type, s);
}

bool nlw_put(struct nlmsghdr *nlh, uint16_t type, size_t len, const void *data)
{
	return mnl_attr_put_check(nlh, NLW_REQ_SIZE, type, len, data);
}

struct nlattr *nlw_nest_start(struct nlmsghdr *nlh, uint16_t type)
{
	return mnl_attr_nest_start_check(nlh, NLW_REQ_SIZE, type);
}

bool nlw_put_raw(struct nlmsghdr *nlh, const void *data, size_t len)
{
	if (nlh->nlmsg_len + MNL_ALIGN(len) > NLW_REQ_SIZE)
		return false;
	memset(mnl_nlmsg_get_payload_tail(nlh), 0, MNL_ALIGN(len));
	memcpy(mnl_nlmsg_get_payload_tail(nlh), data, len);
	nlh->nlmsg_len += (uint32_t)MNL_ALIGN(len);
	return true;
}

static const size_t fixed_len[] = {
    [NLW_ATTR_U8] = 1,
    [NLW_ATTR_U16] = 2,
    [NLW_ATTR_U32] = 4,
    [NLW_ATTR_U64] = 8,
};

/* Validate one attribute's payload against its policy entry. */
static int attr_check(const struct nlattr *a, const struct nlw_policy *p)
{
	uint16_t len = mnl_attr_get_payload_len(a);

	switch (p->kind) {
	case NLW_ATTR_U8:
	case NLW_ATTR_U16:
	case NLW_ATTR_U32:
	case NLW_ATTR_U64:
		return len >= fixed_len[p->kind] ? 0 : -EBADMSG;
	case NLW_ATTR_STRING:
		if (len == 0 || !memchr(mnl_attr_get_payload(a), '\0', len))
			return -EBADMSG;
		return p->maxlen && len > p->maxlen ? -EBADMSG : 0;
	case NLW_ATTR_NESTED:
		return len == 0 || len >= MNL_ATTR_HDRLEN ? 0 : -EBADMSG;
	case NLW_ATTR_BINARY:
		if (len < p->minlen)
			return -EBADMSG;
		return p->maxlen && len > p->maxlen ? -EBADMSG : 0;
	default:
		return 0;
	}
}

struct parse_ctx {
	const struct nlw_policy *policy;
	unsigned max;
	const struct nlattr **tb;
};

static int attr_cb(const struct nlattr *a, void *data)
{
	struct parse_ctx *c = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type > c->max || c->policy[type].kind == NLW_ATTR_UNUSED)
		return MNL_CB_OK; /* unknown to us: skip, like mnl_attr_type_valid */
	if (attr_check(a, &c->policy[type]) < 0) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	c->tb[type] = a;
	return MNL_CB_OK;
}

int nlw_attr_parse(const struct nlmsghdr *nlh, size_t offset, const struct nlw_policy *policy,
		   unsigned max, const struct nlattr **tb)
{
	struct parse_ctx c = {policy, max, tb};

	size_t start = MNL_NLMSG_HDRLEN + MNL_ALIGN(offset);

	memset(tb, 0, sizeof(*tb) * (max + 1));
	if (nlh->nlmsg_len < start)
		return -EBADMSG;
	/*
	 * Bounded by nlmsg_len itself: mnl_attr_parse() walks up to the aligned
	 * tail, up to 3 bytes past a message whose length is not a multiple of
	 * 4 (fuzz-nlmsg read past the end of a datagram that way).
	 */
	return mnl_attr_parse_payload((const char *)nlh + start, nlh->nlmsg_len - start, attr_cb,
				      &c) < 0
		   ? -EBADMSG
		   : 0;
}

int nlw_attr_parse_nested(const struct nlattr *nest, const struct nlw_policy *policy, unsigned max,
			  const struct nlattr **tb)
{
	struct parse_ctx c = {policy, max, tb};

	memset(tb, 0, sizeof(*tb) * (max + 1));
	return mnl_attr_parse_nested(nest, attr_cb, &c) < 0 ? -EBADMSG : 0;
}

void nlw_attr_strcpy(const struct nlattr *a, char *buf, size_t len)
{
	const char *s = mnl_attr_get_str(a);
	size_t n = strnlen(s, mnl_attr_get_payload_len(a));

	if (len == 0)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

bool nlw_ifname_valid(const char *name)
{
	size_t n;

	if (!name)
		return false;
	n = strlen(name);
	if (n == 0 || n >= IFNAMSIZ || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return false;
	for (const char *p = name; *p; p++)
		if (*p == '/' || *p == ':' || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' ||
		    *p == '\v' || *p == '\f')
			return false;
	return true;
}
