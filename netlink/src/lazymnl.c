/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libmnl through dlopen(), for a binary whose everyday call never talks
 * netlink (cluster-ipam: its ADD touches the kernel only when it claims a
 * block). Linked into such an executable as objects, these definitions of
 * the mnl_* functions that nlw uses take the place of libmnl's, so the
 * binary has no DT_NEEDED on libmnl.so.0 and a process that opens no
 * netlink socket never maps it. Each function forwards to libmnl's own,
 * loaded by the first mnl_socket_open2(): nlw opens its socket before it
 * builds or parses any message, so no other function can run first.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <libmnl/libmnl.h>

struct mnl_api {
	struct mnl_socket *(*socket_open2)(int, int);
	int (*socket_bind)(struct mnl_socket *, unsigned int, pid_t);
	int (*socket_close)(struct mnl_socket *);
	int (*socket_get_fd)(const struct mnl_socket *);
	unsigned int (*socket_get_portid)(const struct mnl_socket *);
	ssize_t (*socket_sendto)(const struct mnl_socket *, const void *, size_t);
	int (*socket_setsockopt)(const struct mnl_socket *, int, void *, socklen_t);
	size_t (*nlmsg_size)(size_t);
	struct nlmsghdr *(*nlmsg_put_header)(void *);
	void *(*nlmsg_put_extra_header)(struct nlmsghdr *, size_t);
	bool (*nlmsg_ok)(const struct nlmsghdr *, int);
	struct nlmsghdr *(*nlmsg_next)(const struct nlmsghdr *, int *);
	void *(*nlmsg_get_payload)(const struct nlmsghdr *);
	void *(*nlmsg_get_payload_tail)(const struct nlmsghdr *);
	uint16_t (*attr_get_type)(const struct nlattr *);
	uint16_t (*attr_get_payload_len)(const struct nlattr *);
	void *(*attr_get_payload)(const struct nlattr *);
	uint8_t (*attr_get_u8)(const struct nlattr *);
	uint16_t (*attr_get_u16)(const struct nlattr *);
	uint32_t (*attr_get_u32)(const struct nlattr *);
	uint64_t (*attr_get_u64)(const struct nlattr *);
	const char *(*attr_get_str)(const struct nlattr *);
	bool (*attr_put_check)(struct nlmsghdr *, size_t, uint16_t, size_t, const void *);
	bool (*attr_put_u8_check)(struct nlmsghdr *, size_t, uint16_t, uint8_t);
	bool (*attr_put_u16_check)(struct nlmsghdr *, size_t, uint16_t, uint16_t);
	bool (*attr_put_u32_check)(struct nlmsghdr *, size_t, uint16_t, uint32_t);
	bool (*attr_put_strz_check)(struct nlmsghdr *, size_t, uint16_t, const char *);
	struct nlattr *(*attr_nest_start_check)(struct nlmsghdr *, size_t, uint16_t);
	void (*attr_nest_end)(struct nlmsghdr *, struct nlattr *);
	bool (*attr_ok)(const struct nlattr *, int);
	struct nlattr *(*attr_next)(const struct nlattr *);
	int (*attr_parse_nested)(const struct nlattr *, mnl_attr_cb_t, void *);
	int (*attr_parse_payload)(const void *, size_t, mnl_attr_cb_t, void *);
	int (*cb_run2)(const void *, size_t, unsigned int, unsigned int, mnl_cb_t, void *,
		       mnl_cb_t *, unsigned int);
};

static struct mnl_api api;
static bool tried, loaded;

#define LOAD(field, name)                                                                          \
	do {                                                                                       \
		*(void **)&api.field = dlsym(h, name);                                             \
		ok &= api.field != NULL;                                                           \
	} while (0)

static bool load_sockets(void *h)
{
	bool ok = true;

	LOAD(socket_open2, "mnl_socket_open2");
	LOAD(socket_bind, "mnl_socket_bind");
	LOAD(socket_close, "mnl_socket_close");
	LOAD(socket_get_fd, "mnl_socket_get_fd");
	LOAD(socket_get_portid, "mnl_socket_get_portid");
	LOAD(socket_sendto, "mnl_socket_sendto");
	LOAD(socket_setsockopt, "mnl_socket_setsockopt");
	LOAD(cb_run2, "mnl_cb_run2");
	return ok;
}

static bool load_messages(void *h)
{
	bool ok = true;

	LOAD(nlmsg_size, "mnl_nlmsg_size");
	LOAD(nlmsg_put_header, "mnl_nlmsg_put_header");
	LOAD(nlmsg_put_extra_header, "mnl_nlmsg_put_extra_header");
	LOAD(nlmsg_ok, "mnl_nlmsg_ok");
	LOAD(nlmsg_next, "mnl_nlmsg_next");
	LOAD(nlmsg_get_payload, "mnl_nlmsg_get_payload");
	LOAD(nlmsg_get_payload_tail, "mnl_nlmsg_get_payload_tail");
	LOAD(attr_put_check, "mnl_attr_put_check");
	LOAD(attr_put_u8_check, "mnl_attr_put_u8_check");
	LOAD(attr_put_u16_check, "mnl_attr_put_u16_check");
	LOAD(attr_put_u32_check, "mnl_attr_put_u32_check");
	LOAD(attr_put_strz_check, "mnl_attr_put_strz_check");
	LOAD(attr_nest_start_check, "mnl_attr_nest_start_check");
	LOAD(attr_nest_end, "mnl_attr_nest_end");
	return ok;
}

static bool load_attrs(void *h)
{
	bool ok = true;

	LOAD(attr_get_type, "mnl_attr_get_type");
	LOAD(attr_get_payload_len, "mnl_attr_get_payload_len");
	LOAD(attr_get_payload, "mnl_attr_get_payload");
	LOAD(attr_get_u8, "mnl_attr_get_u8");
	LOAD(attr_get_u16, "mnl_attr_get_u16");
	LOAD(attr_get_u32, "mnl_attr_get_u32");
	LOAD(attr_get_u64, "mnl_attr_get_u64");
	LOAD(attr_get_str, "mnl_attr_get_str");
	LOAD(attr_ok, "mnl_attr_ok");
	LOAD(attr_next, "mnl_attr_next");
	LOAD(attr_parse_nested, "mnl_attr_parse_nested");
	LOAD(attr_parse_payload, "mnl_attr_parse_payload");
	return ok;
}

static bool load(void)
{
	void *h;

	if (tried)
		return loaded;
	tried = true;
	h = dlopen("libmnl.so.0", RTLD_NOW | RTLD_LOCAL);
	loaded = h && load_sockets(h) && load_messages(h) && load_attrs(h);
	return loaded;
}

/* Any function but mnl_socket_open2 runs on a socket or message it made: loaded. */
static const struct mnl_api *m(void)
{
	if (!loaded) {
		fputs("lazymnl: libmnl used before a socket was opened\n", stderr);
		abort();
	}
	return &api;
}

struct mnl_socket *mnl_socket_open2(int bus, int flags)
{
	if (!load()) {
		errno = ELIBACC; /* libmnl.so.0 missing or without a symbol nlw needs */
		return NULL;
	}
	return api.socket_open2(bus, flags);
}

int mnl_socket_bind(struct mnl_socket *nl, unsigned int groups, pid_t pid)
{
	return m()->socket_bind(nl, groups, pid);
}

int mnl_socket_close(struct mnl_socket *nl)
{
	return m()->socket_close(nl);
}

int mnl_socket_get_fd(const struct mnl_socket *nl)
{
	return m()->socket_get_fd(nl);
}

unsigned int mnl_socket_get_portid(const struct mnl_socket *nl)
{
	return m()->socket_get_portid(nl);
}

ssize_t mnl_socket_sendto(const struct mnl_socket *nl, const void *req, size_t siz)
{
	return m()->socket_sendto(nl, req, siz);
}

int mnl_socket_setsockopt(const struct mnl_socket *nl, int type, void *buf, socklen_t len)
{
	return m()->socket_setsockopt(nl, type, buf, len);
}

size_t mnl_nlmsg_size(size_t len)
{
	return m()->nlmsg_size(len);
}

struct nlmsghdr *mnl_nlmsg_put_header(void *buf)
{
	return m()->nlmsg_put_header(buf);
}

void *mnl_nlmsg_put_extra_header(struct nlmsghdr *nlh, size_t size)
{
	return m()->nlmsg_put_extra_header(nlh, size);
}

bool mnl_nlmsg_ok(const struct nlmsghdr *nlh, int len)
{
	return m()->nlmsg_ok(nlh, len);
}

struct nlmsghdr *mnl_nlmsg_next(const struct nlmsghdr *nlh, int *len)
{
	return m()->nlmsg_next(nlh, len);
}

void *mnl_nlmsg_get_payload(const struct nlmsghdr *nlh)
{
	return m()->nlmsg_get_payload(nlh);
}

void *mnl_nlmsg_get_payload_tail(const struct nlmsghdr *nlh)
{
	return m()->nlmsg_get_payload_tail(nlh);
}

uint16_t mnl_attr_get_type(const struct nlattr *attr)
{
	return m()->attr_get_type(attr);
}

uint16_t mnl_attr_get_payload_len(const struct nlattr *attr)
{
	return m()->attr_get_payload_len(attr);
}

void *mnl_attr_get_payload(const struct nlattr *attr)
{
	return m()->attr_get_payload(attr);
}

uint8_t mnl_attr_get_u8(const struct nlattr *attr)
{
	return m()->attr_get_u8(attr);
}

uint16_t mnl_attr_get_u16(const struct nlattr *attr)
{
	return m()->attr_get_u16(attr);
}

uint32_t mnl_attr_get_u32(const struct nlattr *attr)
{
	return m()->attr_get_u32(attr);
}

uint64_t mnl_attr_get_u64(const struct nlattr *attr)
{
	return m()->attr_get_u64(attr);
}

const char *mnl_attr_get_str(const struct nlattr *attr)
{
	return m()->attr_get_str(attr);
}

bool mnl_attr_put_check(struct nlmsghdr *nlh, size_t buflen, uint16_t type, size_t len,
			const void *data)
{
	return m()->attr_put_check(nlh, buflen, type, len, data);
}

bool mnl_attr_put_u8_check(struct nlmsghdr *nlh, size_t buflen, uint16_t type, uint8_t data)
{
	return m()->attr_put_u8_check(nlh, buflen, type, data);
}

bool mnl_attr_put_u16_check(struct nlmsghdr *nlh, size_t buflen, uint16_t type, uint16_t data)
{
	return m()->attr_put_u16_check(nlh, buflen, type, data);
}

bool mnl_attr_put_u32_check(struct nlmsghdr *nlh, size_t buflen, uint16_t type, uint32_t data)
{
	return m()->attr_put_u32_check(nlh, buflen, type, data);
}

bool mnl_attr_put_strz_check(struct nlmsghdr *nlh, size_t buflen, uint16_t type, const char *data)
{
	return m()->attr_put_strz_check(nlh, buflen, type, data);
}

struct nlattr *mnl_attr_nest_start_check(struct nlmsghdr *nlh, size_t buflen, uint16_t type)
{
	return m()->attr_nest_start_check(nlh, buflen, type);
}

void mnl_attr_nest_end(struct nlmsghdr *nlh, struct nlattr *start)
{
	m()->attr_nest_end(nlh, start);
}

bool mnl_attr_ok(const struct nlattr *attr, int len)
{
	return m()->attr_ok(attr, len);
}

struct nlattr *mnl_attr_next(const struct nlattr *attr)
{
	return m()->attr_next(attr);
}

int mnl_attr_parse_nested(const struct nlattr *attr, mnl_attr_cb_t cb, void *data)
{
	return m()->attr_parse_nested(attr, cb, data);
}

int mnl_attr_parse_payload(const void *payload, size_t payload_len, mnl_attr_cb_t cb, void *data)
{
	return m()->attr_parse_payload(payload, payload_len, cb, data);
}

int mnl_cb_run2(const void *buf, size_t numbytes, unsigned int seq, unsigned int portid,
		mnl_cb_t cb_data, void *data, mnl_cb_t *cb_ctl_array, unsigned int cb_ctl_array_len)
{
	return m()->cb_run2(buf, numbytes, seq, portid, cb_data, data, cb_ctl_array,
			    cb_ctl_array_len);
}
