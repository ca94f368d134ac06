/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The allocator: one address from one range set, over any store.
 */
#pragma once

#include "cni/error.h"
#include "cni/result.h"
#include "ipam/range.h"
#include "ipam/store.h"

struct ipam_alloc_request {
	const struct ipam_range_set *set;
	unsigned set_id; /* position in the final list: last_reserved_ip.<set_id> */
	const char *id;
	const char *ifname;
	const struct ipam_addr *requested; /* NULL: next free address, round-robin */
};

/*
 * Allocate one address of req->set for (id, ifname). The caller holds the
 * store lock. With a requested address: it must lie in a range of the set
 * (code 7), must not be that range's gateway (code 7), and must be free
 * (CNI_ERR_IPAM_CONFLICT). Otherwise: an attachment already holding an
 * address of this set is refused (CNI_ERR_IPAM_CONFLICT, "duplicate
 * allocation"), then candidates are tried round-robin from the set's last
 * reservation; none free gives CNI_ERR_IPAM_EXHAUSTED. Store failures are
 * CNI_ERR_IO. On success *ret is {address/subnet prefix, gateway,
 * interface -1}. Returns 0 or a negative errno with err set.
 */
int ipam_allocate(const struct ipam_store *st, const struct ipam_alloc_request *req,
		  struct cni_ip *ret, struct cni_error *err);

/*
 * Is any address of range set set_id free? Walks the set round-robin from
 * its last reservation (so usually answers at the first candidate) asking
 * the store's is_free. Caller holds the lock. Returns 1 yes, 0 exhausted,
 * <0 store error.
 */
int ipam_set_has_free(const struct ipam_store *st, const struct ipam_range_set *set,
		      unsigned set_id);
