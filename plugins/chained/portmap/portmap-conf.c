/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Parse and validate the portmap plugin's keys and runtimeConfig.portMappings.
 * No kernel calls: every rule here is unit-tested (test/portmap).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "base/macro.h"
#include "cni/log.h"
#include "cni/plugin.h"
#include "portmap.h"

static const char *const known_keys[] = {
    "snat",	    "masqAll",	    "markMasqBit", "externalSetMarkChain",
    "conditionsV4", "conditionsV6", "backend",	   NULL,
};

uint8_t portmap_proto_parse(const char *s)
{
	if (!s[0] || strcasecmp(s, "tcp") == 0)
		return IPPROTO_TCP;
	if (strcasecmp(s, "udp") == 0)
		return IPPROTO_UDP;
	if (strcasecmp(s, "sctp") == 0)
		return IPPROTO_SCTP;
	return 0;
}

const char *portmap_proto_name(uint8_t proto)
{
	return proto == IPPROTO_UDP ? "udp" : proto == IPPROTO_SCTP ? "sctp" : "tcp";
}

/* Record a bad entry value; returns <0 on ADD/CHECK, 0 (skip it) on DEL/GC. */
static int bad_entry(const struct cni_conf_reader *rd, size_t i, const char *key, const json_t *v,
		     const char *why)
{
	_cleanup_free_ char *repr = v ? cni_json_repr(v) : strdup("(absent)");

	return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
				"runtimeConfig.portMappings[%zu].%s: %s, got %s", i, key, why,
				repr ? repr : "?");
}

static int entry_port(const struct cni_conf_reader *rd, const json_t *o, size_t i, const char *key,
		      uint16_t *ret)
{
	const json_t *v = cni_json_get_ci(o, key);
	json_int_t n;

	if (!v || !cni_json_whole_number(v, &n) || n < 1 || n > 65535)
		return bad_entry(rd, i, key, v, "must be a port number 1-65535") < 0 ? -EINVAL : 1;
	*ret = (uint16_t)n;
	return 0;
}

static int entry_proto(const struct cni_conf_reader *rd, const json_t *o, size_t i, uint8_t *ret)
{
	const json_t *v = cni_json_get_ci(o, "protocol");

	if (!v || json_is_null(v)) {
		*ret = IPPROTO_TCP;
		return 0;
	}
	if (!json_is_string(v) || !(*ret = portmap_proto_parse(json_string_value(v))))
		return bad_entry(rd, i, "protocol", v, "must be \"tcp\", \"udp\" or \"sctp\"") < 0
			   ? -EINVAL
			   : 1;
	return 0;
}

static int entry_host_ip(const struct cni_conf_reader *rd, const json_t *o, size_t i,
			 struct portmap_entry *e)
{
	const json_t *v = cni_json_get_ci(o, "hostIP");
	const char *s;

	if (!v || json_is_null(v))
		return 0;
	s = json_is_string(v) ? json_string_value(v) : NULL;
	if (s && !s[0])
		return 0;
	if (!s || ip_addr_parse(s, &e->host_family, &e->host_ip) < 0)
		return bad_entry(rd, i, "hostIP", v, "must be an IPv4 or IPv6 address or \"\"") < 0
			   ? -EINVAL
			   : 1;
	/* 0.0.0.0 and :: mean every address of that family. */
	e->has_host_ip = false;
	for (size_t b = 0; b < ip_addr_len(e->host_family); b++)
		if (e->host_ip.bytes[b])
			e->has_host_ip = true;
	return 0;
}

/* Parse entry i; returns 0 (filled), 1 (skip: lenient), or <0. */
static int parse_entry(const struct cni_conf_reader *rd, const json_t *o, size_t i,
		       struct portmap_entry *e)
{
	int r;

	memset(e, 0, sizeof(*e));
	e->index = i;
	if (!json_is_object(o))
		return bad_entry(rd, i, "", o, "must be an object") < 0 ? -EINVAL : 1;
	r = entry_port(rd, o, i, "hostPort", &e->host_port);
	if (r == 0)
		r = entry_port(rd, o, i, "containerPort", &e->container_port);
	if (r == 0)
		r = entry_proto(rd, o, i, &e->proto);
	if (r == 0)
		r = entry_host_ip(rd, o, i, e);
	return r;
}

/* Same protocol and host port, and the host addresses can be the same one. */
static bool overlaps(const struct portmap_entry *a, const struct portmap_entry *b)
{
	if (a->proto != b->proto || a->host_port != b->host_port)
		return false;
	if (!a->host_family || !b->host_family)
		return true;
	if (a->host_family != b->host_family)
		return false;
	if (!a->has_host_ip || !b->has_host_ip)
		return true;
	return ip_addr_equal(a->host_family, &a->host_ip, &b->host_ip);
}

static int check_overlaps(const struct cni_conf_reader *rd, struct portmap_conf *c)
{
	for (size_t i = 0; i < c->n_maps; i++)
		for (size_t j = 0; j < i; j++) {
			const struct portmap_entry *a = &c->maps[j], *b = &c->maps[i];
			int r;

			if (!overlaps(a, b))
				continue;
			r = cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					     "runtimeConfig.portMappings[%zu]: %s host port %u "
					     "overlaps runtimeConfig.portMappings[%zu]",
					     b->index, portmap_proto_name(b->proto), b->host_port,
					     a->index);
			if (r < 0)
				return r;
		}
	return 0;
}

static int parse_mappings(struct cni_ctx *ctx, struct portmap_conf *c)
{
	struct cni_conf_reader rd = cni_ctx_reader(ctx, ctx->conf.runtime_config, "runtimeConfig");
	const json_t *list = NULL;
	size_t i;
	json_t *v;
	int r;

	rd.ci = true;
	r = cni_conf_get_array(&rd, "portMappings", PORTMAP_MAX_MAPPINGS, &list, NULL);
	if (r < 0 || !list)
		return r;
	c->maps = calloc(json_array_size(list) + 1, sizeof(*c->maps));
	if (!c->maps)
		return cni_errorf(rd.err, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
	json_array_foreach (list, i, v) {
		r = parse_entry(&rd, v, i, &c->maps[c->n_maps]);
		if (r < 0)
			return r;
		if (r == 0)
			c->n_maps++;
	}
	return check_overlaps(&rd, c);
}

static int parse_conditions(const struct cni_conf_reader *rd, const char *key)
{
	const json_t *list = NULL;
	bool present = false;
	size_t i;
	json_t *v;
	int r = cni_conf_get_array(rd, key, 256, &list, &present);

	if (r < 0 || !present)
		return r;
	json_array_foreach (list, i, v) {
		if (!json_is_string(v))
			return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
						"%s[%zu]: must be a string", key, i);
	}
	if (json_array_size(list) == 0)
		return 0;
	/* Ignoring a condition would widen who reaches the port: refuse instead. */
	return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
				"%s: match conditions are not supported by podwire's portmap "
				"(nftables maps), got %zu entries; remove the key",
				key, json_array_size(list));
}

static int parse_backend(const struct cni_conf_reader *rd)
{
	const char *b = NULL;
	int r = cni_conf_get_string(rd, "backend", &b, NULL);

	if (r < 0 || !b || strcmp(b, "nftables") == 0 || strcmp(b, "iptables") == 0)
		return r;
	return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
				"backend: must be \"iptables\" or \"nftables\", got '%s'", b);
}

static int parse_mark(const struct cni_conf_reader *rd, struct portmap_conf *c)
{
	const char *chain = NULL;
	bool has_bit = false;
	int r;

	r = cni_conf_get_string(rd, "externalSetMarkChain", &chain, NULL);
	if (r >= 0)
		r = cni_conf_get_uint(rd, "markMasqBit", 0, 31, &c->mark_masq_bit, &has_bit);
	if (r < 0)
		return r;
	c->has_external_set_mark_chain = chain != NULL;
	if (has_bit && chain)
		return cni_conf_invalid(
		    rd, CNI_ERR_INVALID_CONFIG,
		    "markMasqBit and externalSetMarkChain are mutually exclusive, "
		    "got markMasqBit %u and externalSetMarkChain '%s'",
		    c->mark_masq_bit, chain);
	return 0;
}

int portmap_conf_parse(struct cni_ctx *ctx, struct portmap_conf *ret)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ctx->conf.root, "");
	struct portmap_conf c = {.snat = true, .mark_masq_bit = PORTMAP_DEFAULT_MARK_BIT};
	int r;

	r = cni_conf_check_keys(&rd, known_keys, true);
	if (r >= 0)
		r = cni_conf_get_bool(&rd, "snat", &c.snat, NULL);
	if (r >= 0)
		r = cni_conf_get_bool(&rd, "masqAll", &c.masq_all, NULL);
	if (r >= 0)
		r = parse_mark(&rd, &c);
	if (r >= 0)
		r = parse_conditions(&rd, "conditionsV4");
	if (r >= 0)
		r = parse_conditions(&rd, "conditionsV6");
	if (r >= 0)
		r = parse_backend(&rd);
	if (r >= 0)
		r = parse_mappings(ctx, &c);
	if (r < 0) {
		portmap_conf_done(&c);
		return r;
	}
	*ret = c;
	return 0;
}

void portmap_conf_done(struct portmap_conf *c)
{
	free(c->maps);
	c->maps = NULL;
	c->n_maps = 0;
}
