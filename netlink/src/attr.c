/* SPDX-License-Identifier: Apache-2.0 */
/* Request building and table-driven attribute validation, without libmnl. */
#include <errno.h>
#include <net/if.h>
#include <string.h>

#include "internal.h"

/* The tail of a message being built: where its next attribute goes. */
static void *tail(struct nlmsghdr *nlh)
{
	return (char *)nlh + NLMSG_ALIGN(nlh->nlmsg_len);
}

struct nlmsghdr *nlw_req_init(union nlw_req *req, uint16_t type, uint16_t flags, size_t hdr_len,
			      void **ret_hdr)
{
	struct nlmsghdr *nlh = &req->nlh;

	memset(req, 0, sizeof(*req));
	nlh->nlmsg_len = (uint32_t)NLMSG_LENGTH(NLMSG_ALIGN(hdr_len));
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = (uint16_t)(NLM_F_REQUEST | flags);
	if (ret_hdr)
		*ret_hdr = hdr_len ? NLMSG_DATA(nlh) : NULL;
	return nlh;
}

bool nlw_put(struct nlmsghdr *nlh, uint16_t type, size_t len, const void *data)
{
	struct nlattr *a = tail(nlh);

	if (NLMSG_ALIGN(nlh->nlmsg_len) + NLA_HDRLEN + NLA_ALIGN(len) > NLW_REQ_SIZE)
		return false;
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	/* The padding goes to the kernel too: never uninitialised. */
	memset((char *)a + a->nla_len, 0, NLA_ALIGN(a->nla_len) - a->nla_len);
	nlh->nlmsg_len = (uint32_t)(NLMSG_ALIGN(nlh->nlmsg_len) + NLA_ALIGN(a->nla_len));
	return true;
}

bool nlw_put_u8(struct nlmsghdr *nlh, uint16_t type, uint8_t v)
{
	return nlw_put(nlh, type, sizeof(v), &v);
}

bool nlw_put_u16(struct nlmsghdr *nlh, uint16_t type, uint16_t v)
{
	return nlw_put(nlh, type, sizeof(v), &v);
}

bool nlw_put_u32(struct nlmsghdr *nlh, uint16_t type, uint32_t v)
{
	return nlw_put(nlh, type, sizeof(v), &v);
}

bool nlw_put_str(struct nlmsghdr *nlh, uint16_t type, const char *s)
{
	return nlw_put(nlh, type, strlen(s) + 1, s);
}

struct nlattr *nlw_nest_start(struct nlmsghdr *nlh, uint16_t type)
{
	struct nlattr *nest = tail(nlh);

	if (NLMSG_ALIGN(nlh->nlmsg_len) + NLA_HDRLEN > NLW_REQ_SIZE)
		return NULL;
	nest->nla_type = NLA_F_NESTED | type;
	nlh->nlmsg_len = (uint32_t)(NLMSG_ALIGN(nlh->nlmsg_len) + NLA_HDRLEN);
	return nest;
}

void nlw_nest_end(struct nlmsghdr *nlh, struct nlattr *nest)
{
	nest->nla_len = (uint16_t)((char *)tail(nlh) - (char *)nest);
}

bool nlw_put_raw(struct nlmsghdr *nlh, const void *data, size_t len)
{
	if (NLMSG_ALIGN(nlh->nlmsg_len) + NLMSG_ALIGN(len) > NLW_REQ_SIZE)
		return false;
	memset(tail(nlh), 0, NLMSG_ALIGN(len));
	memcpy(tail(nlh), data, len);
	nlh->nlmsg_len = (uint32_t)(NLMSG_ALIGN(nlh->nlmsg_len) + NLMSG_ALIGN(len));
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
	uint16_t len = nlw_attr_len(a);

	switch (p->kind) {
	case NLW_ATTR_U8:
	case NLW_ATTR_U16:
	case NLW_ATTR_U32:
	case NLW_ATTR_U64:
		return len >= fixed_len[p->kind] ? 0 : -EBADMSG;
	case NLW_ATTR_STRING:
		if (len == 0 || !memchr(nlw_attr_data(a), '\0', len))
			return -EBADMSG;
		return p->maxlen && len > p->maxlen ? -EBADMSG : 0;
	case NLW_ATTR_NESTED:
		return len == 0 || len >= NLA_HDRLEN ? 0 : -EBADMSG;
	case NLW_ATTR_BINARY:
		if (len < p->minlen)
			return -EBADMSG;
		return p->maxlen && len > p->maxlen ? -EBADMSG : 0;
	default:
		return 0;
	}
}

/*
 * Walk the attributes in buf (len bytes) into tb: skip what the policy does
 * not know, stop at an attribute that does not fit, -EBADMSG on a known one
 * of the wrong size.
 */
static int parse_attrs(const void *buf, size_t len, const struct nlw_policy *policy, unsigned max,
		       const struct nlattr **tb)
{
	memset(tb, 0, sizeof(*tb) * (max + 1));
	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = buf;
		uint16_t type = a->nla_type & NLA_TYPE_MASK;
		size_t step = NLA_ALIGN((size_t)a->nla_len);

		if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
			break;
		if (type <= max && policy[type].kind != NLW_ATTR_UNUSED) {
			if (attr_check(a, &policy[type]) < 0)
				return -EBADMSG;
			tb[type] = a;
		}
		if (step >= len)
			break;
		buf = (const char *)buf + step;
		len -= step;
	}
	return 0;
}

int nlw_attr_parse(const struct nlmsghdr *nlh, size_t offset, const struct nlw_policy *policy,
		   unsigned max, const struct nlattr **tb)
{
	size_t start = NLMSG_LENGTH(NLMSG_ALIGN(offset));

	memset(tb, 0, sizeof(*tb) * (max + 1));
	if (nlh->nlmsg_len < start)
		return -EBADMSG;
	/* Bounded by nlmsg_len itself, never by its aligned tail: up to 3 bytes
	 * past the end of a datagram (fuzz-nlmsg found that). */
	return parse_attrs((const char *)nlh + start, nlh->nlmsg_len - start, policy, max, tb);
}

int nlw_attr_parse_nested(const struct nlattr *nest, const struct nlw_policy *policy, unsigned max,
			  const struct nlattr **tb)
{
	return parse_attrs(nlw_attr_data(nest), nlw_attr_len(nest), policy, max, tb);
}

void nlw_attr_strcpy(const struct nlattr *a, char *buf, size_t len)
{
	size_t n = strnlen(nlw_attr_data(a), nlw_attr_len(a));

	if (len == 0)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(buf, nlw_attr_data(a), n);
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
