/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The PF-side plan: one RTM_SETLINK per config key, so that a refusal names
 * the key and the undo list restores exactly the keys already applied. Pure
 * functions (no kernel calls); nlw_vf_set encodes the requests (802.1Q with
 * the legacy IFLA_VF_VLAN, 802.1ad with the 16-byte list form). Also DEL's
 * decisions about a VF the kernel has not returned (README "DEL and GC").
 */
#include <errno.h>
#include <string.h>

#include "sriov-rdma.h"

const unsigned sr_pf_order[6] = {SR_PF_VLAN,	 SR_PF_MAC,   SR_PF_RATE,
				 SR_PF_SPOOFCHK, SR_PF_TRUST, SR_PF_LINK_STATE};

static void put_key(const struct nlw_vf_info *v, unsigned key, struct nlw_vf_params *p)
{
	switch (key) {
	case SR_PF_VLAN:
		p->has_vlan = true;
		p->vlan = v->vlan;
		p->qos = v->qos;
		p->vlan_proto = v->vlan_proto ? v->vlan_proto : NLW_VLAN_PROTO_8021Q;
		break;
	case SR_PF_MAC:
		p->has_mac = true;
		memcpy(p->mac, v->mac, 6);
		break;
	case SR_PF_RATE:
		p->has_rate = true;
		p->min_tx_rate = v->min_tx_rate;
		p->max_tx_rate = v->max_tx_rate;
		break;
	case SR_PF_SPOOFCHK:
		p->has_spoofchk = true;
		p->spoofchk = v->spoofchk != 0;
		break;
	case SR_PF_TRUST:
		p->has_trust = true;
		p->trust = v->trust > 0;
		break;
	case SR_PF_LINK_STATE:
		p->has_link_state = true;
		p->link_state = v->link_state;
		break;
	default:
		break;
	}
}

void sr_plan_want(const struct sr_conf *c, int vf, struct nlw_vf_info *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->vf = vf;
	memcpy(ret->mac, c->mac, 6);
	ret->vlan = c->vlan;
	ret->qos = c->qos;
	ret->vlan_proto = c->vlan_proto ? c->vlan_proto : NLW_VLAN_PROTO_8021Q;
	ret->spoofchk = c->spoofchk;
	ret->trust = c->trust;
	ret->min_tx_rate = c->min_tx_rate;
	ret->max_tx_rate = c->max_tx_rate;
	ret->link_state = c->link_state;
}

void sr_plan_apply(const struct sr_conf *c, int vf, unsigned key, struct nlw_vf_params *ret)
{
	struct nlw_vf_info want;

	sr_plan_want(c, vf, &want);
	memset(ret, 0, sizeof(*ret));
	ret->vf = vf;
	put_key(&want, key, ret);
}

/*
 * A PF that does not report the VF (virtio-style PFs, the test fakes) gets
 * the values of a freshly created VF back: no VLAN, zero admin MAC, no rate
 * limit, spoof checking on, trust off, link state auto.
 */
void sr_plan_restore(const struct sr_orig *o, int vf, unsigned key, struct nlw_vf_params *ret)
{
	struct nlw_vf_info v = {.vf = vf,
				.vlan_proto = NLW_VLAN_PROTO_8021Q,
				.spoofchk = 1,
				.trust = 0,
				.link_state = NLW_VF_LINK_AUTO};

	if (o->pf_known) {
		v = o->pf;
		/* ~0 (driver cannot tell) restores the fresh-VF value. */
		if (v.spoofchk < 0)
			v.spoofchk = 1;
		if (v.trust < 0)
			v.trust = 0;
	}
	memset(ret, 0, sizeof(*ret));
	ret->vf = vf;
	put_key(&v, key, ret);
}

bool sr_plan_matches(const struct nlw_vf_info *want, const struct nlw_vf_info *have, unsigned key)
{
	switch (key) {
	case SR_PF_VLAN:
		return want->vlan == have->vlan && want->qos == have->qos &&
		       (!want->vlan || want->vlan_proto == have->vlan_proto);
	case SR_PF_MAC:
		return memcmp(want->mac, have->mac, 6) == 0;
	case SR_PF_RATE:
		return want->min_tx_rate == have->min_tx_rate &&
		       want->max_tx_rate == have->max_tx_rate;
	case SR_PF_SPOOFCHK:
		return have->spoofchk < 0 || (want->spoofchk != 0) == (have->spoofchk != 0);
	case SR_PF_TRUST:
		return have->trust < 0 || (want->trust != 0) == (have->trust != 0);
	case SR_PF_LINK_STATE:
		return want->link_state == have->link_state;
	default:
		return false;
	}
}

bool sr_plan_restore_fatal(int err, bool vf_lost)
{
	return err < 0 && err != -ENODEV && !vf_lost;
}

#define POLL_FIRST_MS 5
#define POLL_MAX_MS 50

unsigned sr_plan_poll_ms(unsigned prev_ms, int64_t left_ms)
{
	unsigned next = prev_ms ? prev_ms * 2 : POLL_FIRST_MS;

	if (left_ms <= 0)
		return 0;
	if (next > POLL_MAX_MS)
		next = POLL_MAX_MS;
	return (int64_t)next > left_ms ? (unsigned)left_ms : next;
}
