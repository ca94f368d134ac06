/* SPDX-License-Identifier: Apache-2.0 */
/* RDMA netlink (nldev): device lookup, netns mode, moving a device to a netns. */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>
#include <string.h>

#include "base/parse.h"
#include "internal.h"
#include "nlw/rdma.h"

#define NLDEV_TYPE(cmd) ((uint16_t)RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd))

static const struct nlw_policy dev_policy[RDMA_NLDEV_ATTR_MAX] = {
    [RDMA_NLDEV_ATTR_DEV_INDEX] = {NLW_ATTR_U32, 0, 0},
    [RDMA_NLDEV_ATTR_DEV_NAME] = {NLW_ATTR_STRING, 1, 0},
    [RDMA_NLDEV_ATTR_PORT_INDEX] = {NLW_ATTR_U32, 0, 0},
    [RDMA_NLDEV_ATTR_NODE_GUID] = {NLW_ATTR_U64, 0, 0},
    [RDMA_NLDEV_ATTR_DEV_PROTOCOL] = {NLW_ATTR_STRING, 1, 0},
    [RDMA_NLDEV_SYS_ATTR_NETNS_MODE] = {NLW_ATTR_U8, 0, 0},
};

int nlw_rdma_dev_parse(const struct nlmsghdr *nlh, struct nlw_rdma_dev *ret)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct nlw_rdma_dev d = {0};

	/* nldev messages have no family header: attributes start at offset 0. */
	if (nlh->nlmsg_type != NLDEV_TYPE(RDMA_NLDEV_CMD_GET) ||
	    nlw_attr_parse(nlh, 0, dev_policy, RDMA_NLDEV_ATTR_MAX - 1, tb) < 0)
		return -EBADMSG;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME])
		return -EBADMSG;
	d.index = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	nlw_attr_strcpy(tb[RDMA_NLDEV_ATTR_DEV_NAME], d.name, sizeof(d.name));
	if (tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		d.nports = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (tb[RDMA_NLDEV_ATTR_NODE_GUID])
		d.node_guid = mnl_attr_get_u64(tb[RDMA_NLDEV_ATTR_NODE_GUID]);
	if (tb[RDMA_NLDEV_ATTR_DEV_PROTOCOL])
		nlw_attr_strcpy(tb[RDMA_NLDEV_ATTR_DEV_PROTOCOL], d.protocol, sizeof(d.protocol));
	*ret = d;
	return 0;
}

struct dev_find {
	const char *name; /* NULL: take the first (single GET) */
	struct nlw_rdma_dev *out;
	bool found;
};

static int dev_find_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dev_find *f = data;
	struct nlw_rdma_dev d;
	int r = nlw_rdma_dev_parse(nlh, &d);

	if (r < 0)
		return r;
	if (f->found || (f->name && !streq(f->name, d.name)))
		return 0;
	*f->out = d;
	f->found = true;
	return 0;
}

static void dev_find_reset(void *data)
{
	((struct dev_find *)data)->found = false;
}

int nlw_rdma_dev_get_by_index(struct nlw_sock *sock, uint32_t index, struct nlw_rdma_dev *ret)
{
	struct dev_find f = {.out = ret};
	union nlw_req req;
	struct nlmsghdr *nlh;
	int r;

	if (!sock || !ret)
		return -EINVAL;
	nlh = nlw_req_init(&req, NLDEV_TYPE(RDMA_NLDEV_CMD_GET), NLM_F_ACK, 0, NULL);
	if (!nlw_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, index))
		return -EMSGSIZE;
	r = nlw_talk(sock, nlh, dev_find_cb, &f);
	/* nldev answers an unknown index (or one in another netns) with -EINVAL. */
	if (r == -EINVAL)
		return -ENODEV;
	if (r < 0)
		return r;
	return f.found ? 0 : -ENODEV;
}

int nlw_rdma_dev_get_by_name(struct nlw_sock *sock, const char *name, struct nlw_rdma_dev *ret)
{
	struct dev_find f = {.name = name, .out = ret};
	union nlw_req req;
	struct nlmsghdr *nlh;
	int r;

	if (!sock || !ret || isempty(name) || strlen(name) >= NLW_RDMA_NAME_MAX)
		return -EINVAL;
	nlh = nlw_req_init(&req, NLDEV_TYPE(RDMA_NLDEV_CMD_GET), NLM_F_DUMP, 0, NULL);
	r = nlw_dump(sock, nlh, dev_find_cb, dev_find_reset, &f);
	if (r < 0)
		return r;
	return f.found ? 0 : -ENODEV;
}

struct mode_ctx {
	int mode;
};

static int mode_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct mode_ctx *c = data;

	if (nlw_attr_parse(nlh, 0, dev_policy, RDMA_NLDEV_ATTR_MAX - 1, tb) < 0)
		return -EBADMSG;
	if (tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE])
		c->mode = mnl_attr_get_u8(tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]) ? 1 : 0;
	return 0;
}

int nlw_rdma_netns_mode(struct nlw_sock *sock)
{
	struct mode_ctx c = {.mode = -EOPNOTSUPP};
	union nlw_req req;
	struct nlmsghdr *nlh;
	int r;

	if (!sock)
		return -EINVAL;
	nlh = nlw_req_init(&req, NLDEV_TYPE(RDMA_NLDEV_CMD_SYS_GET), NLM_F_ACK, 0, NULL);
	r = nlw_talk(sock, nlh, mode_cb, &c);
	return r < 0 ? r : c.mode;
}

int nlw_rdma_dev_set_netns(struct nlw_sock *sock, uint32_t index, int netns_fd)
{
	union nlw_req req;
	struct nlmsghdr *nlh;

	if (!sock || netns_fd < 0)
		return -EINVAL;
	nlh = nlw_req_init(&req, NLDEV_TYPE(RDMA_NLDEV_CMD_SET), NLM_F_ACK, 0, NULL);
	if (!nlw_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, index) ||
	    !nlw_put_u32(nlh, RDMA_NLDEV_NET_NS_FD, (uint32_t)netns_fd))
		return -EMSGSIZE;
	return nlw_talk(sock, nlh, NULL, NULL);
}

static const struct nlw_policy stat_policy[RDMA_NLDEV_ATTR_MAX] = {
    [RDMA_NLDEV_ATTR_STAT_HWCOUNTERS] = {NLW_ATTR_NESTED, 0, 0},
};

static const struct nlw_policy hwc_entry_policy[RDMA_NLDEV_ATTR_MAX] = {
    [RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] = {NLW_ATTR_STRING, 1, 0},
    [RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE] = {NLW_ATTR_U64, 0, 0},
};

struct stat_ctx {
	nlw_rdma_counter_fn fn;
	void *userdata;
};

/* HWCOUNTERS { ENTRY { NAME, VALUE }, ... }: entries without both are skipped. */
static int parse_hwcounters(const struct nlattr *nest, nlw_rdma_counter_fn fn, void *userdata)
{
	const struct nlattr *e;

	mnl_attr_for_each_nested (e, nest) {
		const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
		char name[NLW_RDMA_NAME_MAX];
		int r;

		if (mnl_attr_get_type(e) != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY)
			continue;
		if (nlw_attr_parse_nested(e, hwc_entry_policy, RDMA_NLDEV_ATTR_MAX - 1, tb) < 0)
			return -EBADMSG;
		if (!tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] ||
		    !tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE])
			continue;
		nlw_attr_strcpy(tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME], name, sizeof(name));
		r = fn(name, mnl_attr_get_u64(tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE]),
		       userdata);
		if (r < 0)
			return r;
	}
	return 0;
}

int nlw_rdma_stat_parse(const struct nlmsghdr *nlh, nlw_rdma_counter_fn fn, void *userdata)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];

	if (!fn || nlh->nlmsg_type != NLDEV_TYPE(RDMA_NLDEV_CMD_STAT_GET) ||
	    nlw_attr_parse(nlh, 0, stat_policy, RDMA_NLDEV_ATTR_MAX - 1, tb) < 0)
		return -EBADMSG;
	if (!tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS])
		return 0;
	return parse_hwcounters(tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS], fn, userdata);
}

static int stat_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct stat_ctx *c = data;

	return nlw_rdma_stat_parse(nlh, c->fn, c->userdata);
}

int nlw_rdma_stat_get(struct nlw_sock *sock, uint32_t index, uint32_t port, nlw_rdma_counter_fn fn,
		      void *userdata)
{
	struct stat_ctx c = {.fn = fn, .userdata = userdata};
	union nlw_req req;
	struct nlmsghdr *nlh;
	int r;

	if (!sock || !fn || port == 0)
		return -EINVAL;
	nlh = nlw_req_init(&req, NLDEV_TYPE(RDMA_NLDEV_CMD_STAT_GET), NLM_F_ACK, 0, NULL);
	if (!nlw_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, index) ||
	    !nlw_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port))
		return -EMSGSIZE;
	r = nlw_talk(sock, nlh, stat_cb, &c);
	return r == -EINVAL ? -ENODEV : r;
}
