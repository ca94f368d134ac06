/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Building requests and reading attributes, without libmnl (library
 * nlw_core). nlw's own requests are built with these; so are the few
 * messages of a caller that links nlw_core alone (loopback).
 */
#pragma once

#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Requests are small; replies use the socket's growing receive buffer. */
#define NLW_REQ_SIZE 4096

/* Aligned request buffer (a union rather than casts). */
union nlw_req {
	struct nlmsghdr nlh;
	char buf[NLW_REQ_SIZE];
};

/*
 * Start a request in req (zeroed whole: padding never reaches the kernel
 * uninitialised): type, flags | NLM_F_REQUEST, and a zeroed family header of
 * hdr_len bytes; *ret_hdr points at it (NULL if hdr_len is 0; ret_hdr may be
 * NULL).
 */
struct nlmsghdr *nlw_req_init(union nlw_req *req, uint16_t type, uint16_t flags, size_t hdr_len,
			      void **ret_hdr);

/* Checked attribute puts against the NLW_REQ_SIZE buffer; false when full. */
bool nlw_put_u8(struct nlmsghdr *nlh, uint16_t type, uint8_t v);
bool nlw_put_u16(struct nlmsghdr *nlh, uint16_t type, uint16_t v);
bool nlw_put_u32(struct nlmsghdr *nlh, uint16_t type, uint32_t v);
bool nlw_put_str(struct nlmsghdr *nlh, uint16_t type, const char *s);
bool nlw_put(struct nlmsghdr *nlh, uint16_t type, size_t len, const void *data);
/* A nest (NLA_F_NESTED set), NULL when full; nlw_nest_end closes it. */
struct nlattr *nlw_nest_start(struct nlmsghdr *nlh, uint16_t type);
void nlw_nest_end(struct nlmsghdr *nlh, struct nlattr *nest);
/* Append raw bytes (e.g. a struct ifinfomsg inside VETH_INFO_PEER), aligned. */
bool nlw_put_raw(struct nlmsghdr *nlh, const void *data, size_t len);

/* An attribute's payload and its length. */
static inline const void *nlw_attr_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

static inline uint16_t nlw_attr_len(const struct nlattr *a)
{
	return (uint16_t)(a->nla_len - NLA_HDRLEN);
}

/* Table-driven attribute validation. */
enum nlw_attr_kind {
	NLW_ATTR_UNUSED = 0, /* not in the policy: skipped */
	NLW_ATTR_U8,
	NLW_ATTR_U16,
	NLW_ATTR_U32,
	NLW_ATTR_U64,
	NLW_ATTR_STRING, /* NUL-terminated within the payload, maxlen includes the NUL */
	NLW_ATTR_NESTED,
	NLW_ATTR_BINARY, /* minlen..maxlen bytes (maxlen 0: unbounded) */
};

struct nlw_policy {
	uint8_t kind;
	uint16_t minlen;
	uint16_t maxlen;
};

/*
 * Fill tb[0..max] (zeroed first) from the attributes of nlh starting at
 * payload offset `offset`, or from a nest. Unknown types and types outside
 * the policy are skipped; the walk stops at an attribute whose length does
 * not fit what is left. A known attribute of the wrong size is -EBADMSG.
 */
int nlw_attr_parse(const struct nlmsghdr *nlh, size_t offset, const struct nlw_policy *policy,
		   unsigned max, const struct nlattr **tb);
int nlw_attr_parse_nested(const struct nlattr *nest, const struct nlw_policy *policy, unsigned max,
			  const struct nlattr **tb);

/* Copy a validated string attribute into buf (truncating safely). */
void nlw_attr_strcpy(const struct nlattr *a, char *buf, size_t len);
