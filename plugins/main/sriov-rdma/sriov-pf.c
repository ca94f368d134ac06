/* SPDX-License-Identifier: Apache-2.0 */
/* PF-side VF settings: read the original, apply one key, restore one key. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cni/log.h"
#include "nlw/link.h"
#include "nlw/vf.h"
#include "sriov-rdma.h"

/* "vlan 100 qos 3 proto 802.1ad", "mac 02:..", ... for messages. */
static const char *params_fmt(const struct nlw_vf_params *p, char *buf, size_t len)
{
	char mac[18];

	if (p->has_vlan)
		snprintf(buf, len, "vlan %u qos %u proto %s", p->vlan, p->qos,
			 p->vlan_proto == NLW_VLAN_PROTO_8021AD ? "802.1ad" : "802.1Q");
	else if (p->has_mac)
		snprintf(buf, len, "mac %s", nlw_mac_fmt(p->mac, mac));
	else if (p->has_rate)
		snprintf(buf, len, "min_tx_rate %u max_tx_rate %u", p->min_tx_rate, p->max_tx_rate);
	else if (p->has_spoofchk)
		snprintf(buf, len, "spoofchk %s", p->spoofchk ? "on" : "off");
	else if (p->has_trust)
		snprintf(buf, len, "trust %s", p->trust ? "on" : "off");
	else
		snprintf(buf, len, "link_state %s",
			 p->link_state == NLW_VF_LINK_ENABLE	? "enable"
			 : p->link_state == NLW_VF_LINK_DISABLE ? "disable"
								: "auto");
	return buf;
}

int sr_pf_read(struct sr_run *r)
{
	struct nlw_link pf;
	int e;

	e = nlw_link_get_by_name(r->pn->host, r->st.vf.pf_name, &pf);
	if (e < 0)
		return podnet_fail(r->ctx, r->pn->host, e, "PF netdev '%s' of VF %s",
				   r->st.vf.pf_name, r->st.vf.bdf);
	r->st.pf_ifindex = pf.ifindex;
	e = nlw_vf_get(r->pn->host, pf.ifindex, r->st.vf.index, &r->st.orig.pf);
	if (e == -ENOENT || e == -ENODEV) {
		/* Virtio-style PFs (and the test fakes) report no VF list. */
		cni_log_info("PF %s does not report VF %d: original PF-side state unknown, "
			     "fresh-VF values are restored",
			     r->st.vf.pf_name, r->st.vf.index);
		memset(&r->st.orig.pf, 0, sizeof(r->st.orig.pf));
		r->st.orig.pf.vf = r->st.vf.index;
		r->st.orig.pf_known = false;
		return 0;
	}
	if (e < 0)
		return podnet_fail(r->ctx, r->pn->host, e, "read VF %d of PF '%s'", r->st.vf.index,
				   r->st.vf.pf_name);
	r->st.orig.pf_known = true;
	return 0;
}

int sr_pf_apply(struct sr_run *r, unsigned key)
{
	struct nlw_vf_params p;
	char what[80];
	int e;

	sr_plan_apply(&r->conf, r->st.vf.index, key, &p);
	e = nlw_vf_set(r->pn->host, r->st.pf_ifindex, &p);
	if (e < 0)
		return podnet_fail(r->ctx, r->pn->host, e, "%s: PF '%s' refused %s on VF %d",
				   sr_pf_key_name(key), r->st.vf.pf_name,
				   params_fmt(&p, what, sizeof(what)), r->st.vf.index);
	return 0;
}

int sr_pf_restore(struct sr_run *r, unsigned key)
{
	struct nlw_vf_params p;
	char what[80];
	int e;

	sr_plan_restore(&r->st.orig, r->st.vf.index, key, &p);
	e = nlw_vf_set(r->pn->host, r->st.pf_ifindex, &p);
	if (e < 0)
		return podnet_fail(r->ctx, r->pn->host, e, "%s: restore %s on VF %d of PF '%s'",
				   sr_pf_key_name(key), params_fmt(&p, what, sizeof(what)),
				   r->st.vf.index, r->st.vf.pf_name);
	return 0;
}
