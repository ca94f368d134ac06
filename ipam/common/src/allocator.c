/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One address from one range set, over any store (the reference's
 * allocator.go semantics, including its messages).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "ipam/allocator.h"

void ipam_leases_free(struct ipam_lease *leases, size_t n)
{
	for (size_t i = 0; leases && i < n; i++) {
		free(leases[i].id);
		free(leases[i].ifname);
	}
	free(leases);
}

static void fill_ip(const struct ipam_range *r, const union ip_addr *a, struct cni_ip *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->address = r->subnet;
	ret->address.addr = *a;
	ret->has_gateway = true;
	ret->gateway = r->gateway;
	ret->interface = -1;
}

static int store_error(struct cni_error *err, int r, const char *what)
{
	return cni_errorf(err, CNI_ERR_IO, r, "IPAM store: %s failed: %s", what, strerror(-r));
}

static int allocate_requested(const struct ipam_store *st, const struct ipam_alloc_request *req,
			      struct cni_ip *ret, struct cni_error *err)
{
	const struct ipam_addr *ip = req->requested;
	char buf[INET6_ADDRSTRLEN];
	_cleanup_free_ char *set = ipam_range_set_fmt(req->set);
	const struct ipam_range *range;
	int idx, r;

	if (!set)
		return -ENOMEM;
	ipam_addr_fmt(ip, buf);
	idx = ipam_range_set_find(req->set, ip->family, &ip->addr);
	if (idx < 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL, "%s not in range set %s",
				  buf, set);
	range = &req->set->ranges[idx];
	if (ip_addr_equal(ip->family, &ip->addr, &range->gateway))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "requested ip %s is subnet's gateway", buf);
	r = st->ops->reserve(st->data, req->id, req->ifname, ip, req->set_id);
	if (r < 0)
		return store_error(err, r, "reserve");
	if (r == 0)
		return cni_errorf(err, CNI_ERR_IPAM_CONFLICT, -EADDRINUSE,
				  "requested IP address %s is not available in range set %s", buf,
				  set);
	fill_ip(range, &ip->addr, ret);
	return 0;
}

/* The spec forbids a second address of one set for one attachment. */
static int check_duplicate(const struct ipam_store *st, const struct ipam_alloc_request *req,
			   struct cni_error *err)
{
	_cleanup_free_ struct ipam_addr *held = NULL;
	char buf[INET6_ADDRSTRLEN];
	size_t n = 0;
	int r;

	r = st->ops->get_by_id(st->data, req->id, req->ifname, &held, &n);
	if (r < 0)
		return store_error(err, r, "lookup by container ID");
	for (size_t i = 0; i < n; i++)
		if (ipam_range_set_find(req->set, held[i].family, &held[i].addr) >= 0)
			return cni_errorf(err, CNI_ERR_IPAM_CONFLICT, -EEXIST,
					  "%s has been allocated to %s, duplicate allocation is "
					  "not allowed",
					  ipam_addr_fmt(&held[i], buf), req->id);
	return 0;
}

/* Start after the last reservation; an unreadable record only costs the position. */
static void iter_from_last(const struct ipam_store *st, const struct ipam_range_set *set,
			   unsigned set_id, struct ipam_iter *it)
{
	struct ipam_addr last;

	if (st->ops->last_reserved(st->data, set_id, &last) < 0) {
		ipam_iter_init(it, set, NULL);
		return;
	}
	ipam_iter_init(it, set, &last);
}

static int allocate_next(const struct ipam_store *st, const struct ipam_alloc_request *req,
			 struct cni_ip *ret, struct cni_error *err)
{
	_cleanup_free_ char *set = NULL;
	struct ipam_iter it;
	struct ipam_addr ip;
	size_t idx;
	int r;

	r = check_duplicate(st, req, err);
	if (r < 0)
		return r;
	iter_from_last(st, req->set, req->set_id, &it);
	ip.family = ipam_range_family(&req->set->ranges[0]);
	while (ipam_iter_next(&it, &ip.addr, &idx)) {
		r = st->ops->reserve(st->data, req->id, req->ifname, &ip, req->set_id);
		if (r < 0)
			return store_error(err, r, "reserve");
		if (r > 0) {
			fill_ip(&req->set->ranges[idx], &ip.addr, ret);
			return 0;
		}
	}
	set = ipam_range_set_fmt(req->set);
	return cni_errorf(err, CNI_ERR_IPAM_EXHAUSTED, -ENOSPC,
			  "no IP addresses available in range set: %s", set ? set : "?");
}

int ipam_allocate(const struct ipam_store *st, const struct ipam_alloc_request *req,
		  struct cni_ip *ret, struct cni_error *err)
{
	if (req->set->n == 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL, "empty range set");
	if (req->requested)
		return allocate_requested(st, req, ret, err);
	return allocate_next(st, req, ret, err);
}

int ipam_set_has_free(const struct ipam_store *st, const struct ipam_range_set *set,
		      unsigned set_id)
{
	struct ipam_iter it;
	struct ipam_addr ip;
	size_t idx;
	int r;

	if (set->n == 0)
		return 0;
	iter_from_last(st, set, set_id, &it);
	ip.family = ipam_range_family(&set->ranges[0]);
	while (ipam_iter_next(&it, &ip.addr, &idx)) {
		r = st->ops->is_free(st->data, &ip);
		if (r != 0)
			return r;
	}
	return 0;
}
