/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RDMA netlink (NETLINK_RDMA, nldev client). Open the socket with
 * nlw_sock_open_protocol(NETLINK_RDMA, ...) or nlw_sock_open_in_netns(fd,
 * NETLINK_RDMA, ...): the kernel looks devices up in the socket's netns.
 */
#pragma once

#include <stdint.h>

struct nlw_sock;
struct nlmsghdr;

#define NLW_RDMA_NAME_MAX 64

struct nlw_rdma_dev {
	uint32_t index;
	char name[NLW_RDMA_NAME_MAX];
	uint32_t nports;    /* RDMA_NLDEV_ATTR_PORT_INDEX in a device message */
	uint64_t node_guid; /* 0 if absent */
	char protocol[16];  /* "roce", "ib", "iw" or "" */
};

/* Get one device by index (RDMA_NLDEV_CMD_GET doit). Errors: -ENODEV (-EINVAL mapped). */
int nlw_rdma_dev_get_by_index(struct nlw_sock *sock, uint32_t index, struct nlw_rdma_dev *ret);

/*
 * Find a device by name: the kernel has no lookup by name, so this dumps the
 * devices of the socket's netns. Errors: -ENODEV, -EINVAL (name), -EAGAIN.
 */
int nlw_rdma_dev_get_by_name(struct nlw_sock *sock, const char *name, struct nlw_rdma_dev *ret);

/*
 * Read the RDMA subsystem netns mode: returns 0 (exclusive), 1 (shared) or a
 * negative errno (-EOPNOTSUPP kernel without the attribute, -EBADMSG).
 */
int nlw_rdma_netns_mode(struct nlw_sock *sock);

/*
 * Move a device into the netns netns_fd (borrowed; RDMA_NLDEV_CMD_SET with
 * RDMA_NLDEV_NET_NS_FD). The socket must live in the device's current netns.
 * Errors: -ENODEV (not in this netns), -EINVAL, -EOPNOTSUPP (shared mode),
 * -EPERM.
 */
int nlw_rdma_dev_set_netns(struct nlw_sock *sock, uint32_t index, int netns_fd);

/* Pure parser of one device message. Errors: -EBADMSG (index/name missing or malformed). */
int nlw_rdma_dev_parse(const struct nlmsghdr *nlh, struct nlw_rdma_dev *ret);

/* One hardware counter of a port, as nldev STAT_GET reports it (name borrowed). */
typedef int (*nlw_rdma_counter_fn)(const char *name, uint64_t value, void *userdata);

/*
 * The hw counters of port `port` of device `index` (RDMA_NLDEV_CMD_STAT_GET,
 * the same values as sysfs ports/<port>/hw_counters), one fn call per
 * counter; a negative return from fn is returned. Works in the socket's
 * netns, so a device moved into a pod is read through a socket opened there.
 * Errors: -ENODEV (no such device/port here; the kernel's -EINVAL mapped),
 * -EOPNOTSUPP (driver without counters), -EBADMSG.
 */
int nlw_rdma_stat_get(struct nlw_sock *sock, uint32_t index, uint32_t port, nlw_rdma_counter_fn fn,
		      void *userdata);
/* Pure parser of one STAT_GET reply. Errors: -EBADMSG, or fn's negative return. */
int nlw_rdma_stat_parse(const struct nlmsghdr *nlh, nlw_rdma_counter_fn fn, void *userdata);
