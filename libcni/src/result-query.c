/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pure queries and edits of a result that every main plugin needs: the
 * gateway of a family, whether a family is present, taking over an IPAM
 * result, the config's DNS override.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cni/conf.h"
#include "cni/result.h"

const union ip_addr *cni_result_family_gw(const struct cni_result *r, int family)
{
	for (size_t i = 0; r && i < r->n_ips; i++)
		if (r->ips[i].address.family == family && r->ips[i].has_gateway)
			return &r->ips[i].gateway;
	return NULL;
}

bool cni_result_has_family(const struct cni_result *r, int family)
{
	for (size_t i = 0; r && i < r->n_ips; i++)
		if (r->ips[i].address.family == family)
			return true;
	return false;
}

#define SWAP(x, y)                                                                                 \
	do {                                                                                       \
		__typeof__(x) _swap_tmp = (x);                                                     \
		(x) = (y);                                                                         \
		(y) = _swap_tmp;                                                                   \
	} while (0)

void cni_result_take_ipam(struct cni_result *dst, struct cni_result *ipam)
{
	SWAP(dst->ips, ipam->ips);
	SWAP(dst->n_ips, ipam->n_ips);
	SWAP(dst->routes, ipam->routes);
	SWAP(dst->n_routes, ipam->n_routes);
	SWAP(dst->dns, ipam->dns);
}

int cni_result_apply_conf_dns(struct cni_result *r, const struct cni_conf *conf)
{
	if (!conf->has_dns || cni_dns_is_empty(&conf->dns))
		return 0;
	cni_dns_done(&r->dns);
	return cni_dns_copy(&r->dns, &conf->dns);
}

int cni_result_set_iface_mac(struct cni_result *r, size_t idx, const char *mac)
{
	char *m;

	if (idx >= r->n_ifaces)
		return -EINVAL;
	m = strdup(mac);
	if (!m)
		return -ENOMEM;
	free(r->ifaces[idx].mac);
	r->ifaces[idx].mac = m;
	return 0;
}

int cni_result_addrs(const struct cni_result *r, struct ip_prefix **ret, size_t *ret_n)
{
	struct ip_prefix *a;

	*ret = NULL;
	*ret_n = 0;
	if (!r || r->n_ips == 0)
		return 0;
	a = calloc(r->n_ips, sizeof(*a));
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_ips; i++)
		a[i] = r->ips[i].address;
	*ret = a;
	*ret_n = r->n_ips;
	return 0;
}

bool cni_conf_attachment_valid(const struct cni_conf *conf, const char *container_id,
			       const char *ifname)
{
	for (size_t i = 0; i < conf->n_valid_attachments; i++)
		if (strcmp(conf->valid_attachments[i].container_id, container_id) == 0 &&
		    strcmp(conf->valid_attachments[i].ifname, ifname) == 0)
			return true;
	return false;
}
