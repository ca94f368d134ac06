/* SPDX-License-Identifier: Apache-2.0 */
/*
 * k8s.v1.cni.cncf.io/network-status entries (multi-net-spec 4.1.2.1.x):
 * name, interface, ips (bare addresses, as the spec and Multus write them),
 * mac, mtu, default, dns, gateway, device-info. Built from each delegate's
 * result, one entry per sandbox interface.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/ipaddr.h"
#include "base/macro.h"
#include "cni/result.h"
#include "multinet.h"

/*
 * The bare addresses (`gateways`: the gateways) of the result's IPs on
 * interface iface; `take_unindexed`: also those without an interface index.
 */
static json_t *addrs_of(const struct cni_result *r, int iface, bool take_unindexed, bool gateways)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < r->n_ips; i++) {
		char buf[INET6_ADDRSTRLEN];
		const struct cni_ip *ip = &r->ips[i];

		if ((gateways && !ip->has_gateway) ||
		    (ip->interface != iface && !(take_unindexed && ip->interface < 0)))
			continue;
		json_array_append_new(arr, json_string(ip_addr_fmt(
					       ip->address.family,
					       gateways ? &ip->gateway : &ip->address.addr, buf)));
	}
	return arr;
}

static json_t *entry_new(const struct mn_status_net *net, const struct cni_result *r)
{
	json_t *e = json_object(), *dns = cni_dns_to_json(&r->dns);

	json_object_set_new(e, "name", json_string(net->name));
	json_object_set_new(e, "default", json_boolean(net->is_default));
	json_object_set_new(e, "dns", dns ? dns : json_object());
	if (net->device_info)
		json_object_set(e, "device-info", (json_t *)net->device_info);
	return e;
}

static void set_nonempty(json_t *e, const char *key, json_t *arr)
{
	if (json_array_size(arr) > 0)
		json_object_set_new(e, key, arr);
	else
		json_decref(arr);
}

/* Interface i of the result; `last`: it also takes the IPs without an interface index. */
static json_t *iface_entry(const struct mn_status_net *net, const struct cni_result *r, size_t i,
			   bool last)
{
	const struct cni_iface *f = &r->ifaces[i];
	json_t *e = entry_new(net, r);

	json_object_set_new(e, "interface", json_string(f->name));
	if (f->mac)
		json_object_set_new(e, "mac", json_string(f->mac));
	if (f->mtu)
		json_object_set_new(e, "mtu", json_integer(f->mtu));
	set_nonempty(e, "ips", addrs_of(r, (int)i, last, false));
	set_nonempty(e, "gateway", addrs_of(r, (int)i, last, true));
	return e;
}

static bool in_sandbox(const struct cni_iface *f)
{
	return f->sandbox && *f->sandbox;
}

int mn_status_append(json_t *arr, const struct mn_status_net *net, enum cni_version fallback,
		     struct cni_error *err)
{
	struct cni_result *r = NULL;
	size_t n_sandbox = 0, last = 0;
	int rc;

	if (!net->result)
		return 0;
	rc = cni_result_from_json_any(net->result, fallback, "result", &r, err);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < r->n_ifaces; i++)
		if (in_sandbox(&r->ifaces[i]))
			n_sandbox++, last = i;
	if (n_sandbox == 0) {
		json_t *e = entry_new(net, r);

		set_nonempty(e, "ips", addrs_of(r, -1, true, false));
		set_nonempty(e, "gateway", addrs_of(r, -1, true, true));
		json_array_append_new(arr, e);
	}
	for (size_t i = 0; i < r->n_ifaces; i++)
		if (in_sandbox(&r->ifaces[i]))
			json_array_append_new(arr, iface_entry(net, r, i, i == last));
	cni_result_free(r);
	return 0;
}
