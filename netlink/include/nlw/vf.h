/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SR-IOV VF attributes, set on the PF with RTM_SETLINK IFLA_VFINFO_LIST and
 * read from RTM_GETLINK with IFLA_EXT_MASK = RTEXT_FILTER_VF.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct nlw_sock;
struct nlmsghdr;

#define NLW_VLAN_PROTO_8021Q 0x8100
#define NLW_VLAN_PROTO_8021AD 0x88a8

enum nlw_vf_link_state {
	NLW_VF_LINK_AUTO = 0, /* IFLA_VF_LINK_STATE_* */
	NLW_VF_LINK_ENABLE = 1,
	NLW_VF_LINK_DISABLE = 2,
};

/* What to set on VF `vf`; only has_* members are sent (one request per call). */
struct nlw_vf_params {
	int vf;
	bool has_mac;
	unsigned char mac[6];
	bool has_vlan;
	uint16_t vlan;	     /* 0..4095 (0 clears) */
	uint8_t qos;	     /* 0..7 */
	uint16_t vlan_proto; /* NLW_VLAN_PROTO_*, 0 means 802.1Q */
	bool has_spoofchk, spoofchk;
	bool has_trust, trust;
	bool has_rate;
	uint32_t min_tx_rate, max_tx_rate; /* Mbps, 0 = no limit */
	bool has_link_state;
	enum nlw_vf_link_state link_state;
};

/*
 * Configure one VF of the PF pf_ifindex. VLAN is encoded as iproute2 does:
 * 802.1Q with the legacy IFLA_VF_VLAN, 802.1ad with IFLA_VF_VLAN_LIST /
 * IFLA_VF_VLAN_INFO (full 16-byte struct, proto big-endian).
 * Errors: -EINVAL (vf < 0, vlan > 4095, qos > 7, unknown proto, nothing to
 * set, min > max rate), -EOPNOTSUPP (driver), -ENODEV, kernel errnos.
 */
int nlw_vf_set(struct nlw_sock *sock, int pf_ifindex, const struct nlw_vf_params *p);

/* One VF as reported by the PF. */
struct nlw_vf_info {
	int vf;
	unsigned char mac[6];
	uint16_t vlan;
	uint8_t qos;
	uint16_t vlan_proto; /* host order; 0x8100 when only legacy IFLA_VF_VLAN is present */
	int spoofchk;	     /* -1 unknown (driver reports ~0), else 0/1 */
	int trust;	     /* -1 unknown, else 0/1 */
	uint32_t min_tx_rate, max_tx_rate;
	enum nlw_vf_link_state link_state;
};

/*
 * Read all VFs of the PF (single RTM_GETLINK with RTEXT_FILTER_VF). *ret is
 * owned by the caller (free()), NULL when there are no VFs.
 * Errors: -ENODEV, -EBADMSG (malformed VF attributes), -ENOMEM.
 */
int nlw_vf_list(struct nlw_sock *sock, int pf_ifindex, struct nlw_vf_info **ret, unsigned *ret_n);

/* One VF by number. Errors: as nlw_vf_list, -ENOENT (the PF does not report vf). */
int nlw_vf_get(struct nlw_sock *sock, int pf_ifindex, int vf, struct nlw_vf_info *ret);

/*
 * Pure parser: VF list of an RTM_NEWLINK message (for fuzzing and tests).
 * *ret owned by the caller. Errors: -EBADMSG, -ENOMEM.
 */
int nlw_vf_parse(const struct nlmsghdr *nlh, struct nlw_vf_info **ret, unsigned *ret_n);
