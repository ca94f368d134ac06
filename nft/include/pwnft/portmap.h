/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pwnft portmap: hostPort DNAT for the portmap plugin, in the same
 * "inet podwire" table as the bridge's masquerade state.
 *
 * Layout (node-wide: host ports are one namespace per node, so a second
 * attachment claiming a taken (proto, host port[, host IP]) is refused):
 *
 *   map hostports-v4            proto . port : pod addr . port   (v6 alike)
 *   map hostip-hostports-v4     host addr . proto . port : pod addr . port
 *   set hostport-hairpin-v4     pod addr . pod addr . proto . container port
 *   set hostport-localhost-v4   pod addr . proto . container port (IPv4 only)
 *   set hostport-masqall-v4     pod addr . proto . container port
 *   chain hostports             regular: the four "dnat to ... map" rules
 *   chain hostports-pre         nat prerouting -100: fib daddr type local jump hostports
 *   chain hostports-out         nat output -100: fib daddr type local jump hostports
 *   chain hostports-post        nat postrouting 100: ct status dnat + set lookups -> masquerade
 *
 * Every element carries the comment "<network>/<containerID>/<ifname>";
 * sets and maps carry "podwire-portmap" (never "podwire:<net>", so the
 * bridge's scans leave them alone). Per attachment only elements change.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ipaddr.h"
#include "pwnft/nft.h"

#define PW_NFT_PORTMAP_COMMENT "podwire-portmap"

/* One expanded mapping for one pod address. */
struct pw_nft_hostport {
	int family; /* of pod_ip (and host_ip) */
	union ip_addr pod_ip;
	uint8_t proto; /* IPPROTO_TCP, IPPROTO_UDP, IPPROTO_SCTP */
	uint16_t host_port, container_port;
	bool has_host_ip; /* false: any local address */
	union ip_addr host_ip;
};

struct pw_nft_portmap {
	const char *network;
	const char *container_id;
	const char *ifname;
	const struct pw_nft_hostport *ports;
	size_t n_ports;
	bool snat;     /* hairpin and localhost masquerade */
	bool masq_all; /* masquerade every DNATed connection to the pod */
};

/* Longest tag "<network>/<containerID>/<ifname>". */
#define PW_NFT_PORTMAP_TAG_MAX 240

/*
 * Add the attachment's elements (objects created as needed) in one
 * transaction. A key already mapped by another attachment: -EEXIST with
 * *owner (PW_NFT_PORTMAP_TAG_MAX + 1 bytes, may be NULL) naming its tag and
 * *which the index of the entry. Re-adding the same attachment replaces its
 * elements. Errors: -EINVAL, -ENAMETOOLONG, kernel errnos.
 */
int pw_nft_portmap_add(struct pw_nft *nft, const struct pw_nft_portmap *pm, char *owner,
		       size_t *which);

/*
 * Remove the attachment's elements: with ports, exactly those still tagged
 * with it (single GETs); without ports, by scanning for the tag. Idempotent.
 */
int pw_nft_portmap_del(struct pw_nft *nft, const struct pw_nft_portmap *pm);

/*
 * Are all the attachment's elements present, tagged with it, mapping to the
 * right pod address and port? 1 yes, 0 no (*which: first entry missing), <0.
 */
int pw_nft_portmap_check(struct pw_nft *nft, const struct pw_nft_portmap *pm, size_t *which);

/*
 * Remove elements tagged with `network` whose attachment keep() rejects.
 * Returns the number removed or a negative errno.
 */
int pw_nft_portmap_gc(struct pw_nft *nft, const char *network, pw_nft_keep_fn keep, void *userdata);

/* Tag "<network>/<cid>/<ifname>" into buf. 0, -EINVAL or -ENAMETOOLONG. */
int pw_nft_portmap_tag(const char *network, const char *container_id, const char *ifname, char *buf,
		       size_t len);

/* ---- key building (exposed for unit tests) ---- */
enum pw_nft_portmap_set {
	PW_PM_HOSTPORTS,
	PW_PM_HOSTIP,
	PW_PM_HAIRPIN,
	PW_PM_LOCALHOST,
	PW_PM_MASQALL,
};
#define PW_NFT_PORTMAP_KEY_MAX 40

/* Name of a set for a family ("hostports-v4"...). NULL for localhost-v6. */
const char *pw_nft_portmap_set_name(enum pw_nft_portmap_set which, int family);
/* Key bytes of entry p in set `which`; returns the length (0: not applicable). */
size_t pw_nft_portmap_key(enum pw_nft_portmap_set which, const struct pw_nft_hostport *p,
			  uint8_t key[PW_NFT_PORTMAP_KEY_MAX]);
/* Data bytes of a map element (pod addr . container port). Returns the length. */
size_t pw_nft_portmap_data(const struct pw_nft_hostport *p, uint8_t data[20]);
