/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam's data model: block arithmetic, etcd keys (fixed-width hex
 * so that etcd's bytewise order is address order) and the JSON values of
 * pools, blocks and handles. Values read from etcd are untrusted.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/codec.h"
#include "base/macro.h"
#include "ipam/cluster-ipam.h"
#include "ipam/range.h"

#define BAD(msg)                                                                                   \
	do {                                                                                       \
		if (why)                                                                           \
			*why = (msg);                                                              \
		return -EBADMSG;                                                                   \
	} while (0)

cipam_u128 cipam_addr_num(int family, const union ip_addr *a)
{
	cipam_u128 n = 0;

	for (size_t i = 0; i < ip_addr_len(family); i++)
		n = n << 8 | a->bytes[i];
	return n;
}

void cipam_num_addr(int family, cipam_u128 n, union ip_addr *ret)
{
	size_t len = ip_addr_len(family);

	memset(ret, 0, sizeof(*ret));
	for (size_t i = len; i-- > 0;) {
		ret->bytes[i] = (uint8_t)(n & 0xff);
		n >>= 8;
	}
}

cipam_u128 cipam_pool_blocks(const struct cipam_pool *p)
{
	unsigned bits = p->block_size - p->cidr.prefixlen;

	return (cipam_u128)1 << (bits > 120 ? 120 : bits);
}

unsigned cipam_block_addrs(int family, unsigned block_size)
{
	return 1u << (ip_family_bits(family) - block_size);
}

void cipam_pool_block(const struct cipam_pool *p, cipam_u128 i, struct ip_prefix *ret)
{
	unsigned host = ip_family_bits(p->cidr.family) - p->block_size;

	ret->family = p->cidr.family;
	ret->prefixlen = (unsigned char)p->block_size;
	cipam_num_addr(p->cidr.family, cipam_addr_num(p->cidr.family, &p->cidr.addr) + (i << host),
		       &ret->addr);
}

cipam_u128 cipam_pool_block_index(const struct cipam_pool *p, const union ip_addr *a)
{
	unsigned host = ip_family_bits(p->cidr.family) - p->block_size;

	return (cipam_addr_num(p->cidr.family, a) -
		cipam_addr_num(p->cidr.family, &p->cidr.addr)) >>
	       host;
}

unsigned cipam_block_ordinal(const struct ip_prefix *b, const union ip_addr *a)
{
	return (unsigned)(cipam_addr_num(b->family, a) - cipam_addr_num(b->family, &b->addr));
}

void cipam_block_addr(const struct ip_prefix *b, unsigned ordinal, union ip_addr *ret)
{
	cipam_num_addr(b->family, cipam_addr_num(b->family, &b->addr) + ordinal, ret);
}

int cipam_pool_find(const struct cipam_conf *c, int family, const union ip_addr *a)
{
	for (size_t i = 0; i < c->n_pools; i++)
		if (ip_prefix_contains(&c->pools[i].cidr, family, a))
			return (int)i;
	return -1;
}

uint64_t cipam_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

const char *cipam_keypart(const struct ip_prefix *p, char buf[CIPAM_KEYPART_LEN])
{
	size_t n;

	buf[0] = p->family == AF_INET6 ? '6' : '4';
	buf[1] = '/';
	n = (size_t)(hex_encode(buf + 2, p->addr.bytes, ip_addr_len(p->family)) - buf);
	snprintf(buf + n, CIPAM_KEYPART_LEN - n, "-%u", p->prefixlen);
	return buf;
}

int cipam_keypart_parse(const char *s, struct ip_prefix *ret)
{
	struct ip_prefix p = {0};
	size_t len;
	uint32_t plen;

	if ((s[0] != '4' && s[0] != '6') || s[1] != '/')
		return -EINVAL;
	p.family = s[0] == '6' ? AF_INET6 : AF_INET;
	len = ip_addr_len(p.family);
	s += 2;
	/* lower case only: one block, one key */
	if (strspn(s, "0123456789abcdef") < 2 * len || hex_decode(s, len, p.addr.bytes) < 0)
		return -EINVAL;
	s += 2 * len;
	if (*s != '-' || safe_atou32_max(s + 1, ip_family_bits(p.family), &plen) < 0)
		return -EINVAL;
	p.prefixlen = (unsigned char)plen;
	*ret = p;
	return ip_prefix_is_network(&p) ? 0 : -EINVAL; /* a key names a network, never a host */
}

static char *key_fmt(const char *fmt, ...) _printf_(1, 2);
static char *key_fmt(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

char *cipam_key_pool(const char *prefix, const struct ip_prefix *cidr)
{
	char kp[CIPAM_KEYPART_LEN];

	return key_fmt("%s/ipam/pools/%s", prefix, cipam_keypart(cidr, kp));
}

char *cipam_key_block(const char *prefix, const struct ip_prefix *cidr)
{
	char kp[CIPAM_KEYPART_LEN];

	return key_fmt("%s/ipam/blocks/%s", prefix, cipam_keypart(cidr, kp));
}

char *cipam_key_affinity(const char *prefix, const char *node, const struct ip_prefix *cidr)
{
	char kp[CIPAM_KEYPART_LEN];

	return key_fmt("%s/ipam/affinity/%s/%s", prefix, node, cipam_keypart(cidr, kp));
}

char *cipam_key_handle(const char *prefix, const char *node, const char *cid, const char *ifname)
{
	return key_fmt("%s/ipam/handles/%s/%s/%s", prefix, node, cid, ifname);
}

char *cipam_key_dir(const char *prefix, const char *what, const char *node)
{
	return node ? key_fmt("%s/ipam/%s/%s/", prefix, what, node)
		    : key_fmt("%s/ipam/%s/", prefix, what);
}

int cipam_pool_block_range(const char *prefix, const struct cipam_pool *p, char **ret_key,
			   char **ret_end)
{
	struct ip_prefix last = p->cidr;
	char kp[CIPAM_KEYPART_LEN];
	size_t n;

	/* [blocks/<first block>, blocks/<hex of the pool's last address> + '.'): '.' > '-' */
	ipam_prefix_last(&p->cidr, &last.addr);
	*ret_key = key_fmt("%s/ipam/blocks/%s", prefix, cipam_keypart(&p->cidr, kp));
	cipam_keypart(&last, kp);
	n = strcspn(kp, "-");
	*ret_end = key_fmt("%s/ipam/blocks/%.*s.", prefix, (int)n, kp);
	if (!*ret_key || !*ret_end) {
		*ret_key = mfree(*ret_key);
		*ret_end = mfree(*ret_end);
		return -ENOMEM;
	}
	return 0;
}

/* Values: blocks. */

int cipam_block_init(struct cipam_block *b, const struct ip_prefix *cidr, const char *node,
		     int64_t now)
{
	memset(b, 0, sizeof(*b));
	b->cidr = *cidr;
	b->size = cipam_block_addrs(cidr->family, cidr->prefixlen);
	b->used = calloc(b->size, sizeof(*b->used));
	b->node = node ? strdup(node) : NULL;
	b->claimed = b->updated = now;
	if (!b->used || (node && !b->node)) {
		cipam_block_done(b);
		return -ENOMEM;
	}
	return 0;
}

void cipam_block_done(struct cipam_block *b)
{
	for (unsigned i = 0; b->used && i < b->size; i++)
		free(b->used[i]);
	free(b->used);
	free(b->node);
	memset(b, 0, sizeof(*b));
}

static int get_int(const json_t *o, const char *key, int64_t min, int64_t max, int64_t *ret)
{
	const json_t *v = json_object_get(o, key);

	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
		return -EBADMSG;
	*ret = json_integer_value(v);
	return 0;
}

static int block_used(const json_t *used, struct cipam_block *b)
{
	const char *k;
	json_t *v;

	if (!used)
		return 0;
	if (!json_is_object(used))
		return -EBADMSG;
	json_object_foreach ((json_t *)used, k, v) {
		uint32_t ord;

		if (safe_atou32_max(k, b->size - 1, &ord) < 0 || !json_is_string(v) ||
		    json_string_length(v) == 0 || b->used[ord])
			return -EBADMSG;
		b->used[ord] = strdup(json_string_value(v));
		if (!b->used[ord])
			return -ENOMEM;
		b->n_used++;
	}
	return 0;
}

static int block_fields(const json_t *root, const struct ip_prefix *key_cidr, struct cipam_block *b,
			const char **why)
{
	const json_t *cidr = json_object_get(root, "cidr"), *node = json_object_get(root, "node");
	struct ip_prefix p;
	int64_t seq = 0, next = 0;

	if (!json_is_string(cidr) || ip_prefix_parse(json_string_value(cidr), &p) < 0)
		BAD("block: cidr missing or not a CIDR");
	if (!ip_prefix_is_network(&p) || p.prefixlen + 12 < (int)ip_family_bits(p.family))
		BAD("block: cidr not a network of at most 4096 addresses");
	if (key_cidr && !ip_prefix_equal(key_cidr, &p))
		BAD("block: cidr differs from its key");
	if (node && !json_is_null(node) && (!json_is_string(node) || !json_string_length(node)))
		BAD("block: node not a name");
	if (cipam_block_init(b, &p, json_is_string(node) ? json_string_value(node) : NULL, 0) < 0)
		return -ENOMEM;
	if (get_int(root, "claimed", 0, INT64_MAX, &b->claimed) < 0 ||
	    get_int(root, "updated", 0, INT64_MAX, &b->updated) < 0 ||
	    get_int(root, "seq", 0, INT64_MAX, &seq) < 0 ||
	    get_int(root, "next", 0, b->size - 1, &next) < 0)
		BAD("block: claimed/updated/seq/next not in range");
	b->seq = (uint64_t)seq;
	b->next = (unsigned)next;
	return 0;
}

int cipam_block_parse(const char *json, size_t len, const struct ip_prefix *key_cidr,
		      struct cipam_block *ret, const char **why)
{
	json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, NULL);
	struct cipam_block b = {0};
	int r;

	if (!json_is_object(root)) {
		json_decref(root);
		BAD("block: not a JSON object");
	}
	r = block_fields(root, key_cidr, &b, why);
	if (r >= 0) {
		r = block_used(json_object_get(root, "used"), &b);
		if (r == -EBADMSG && why)
			*why = "block: used is not {ordinal: handle} within the block";
	}
	json_decref(root);
	if (r < 0) {
		cipam_block_done(&b);
		return r;
	}
	*ret = b;
	return 0;
}

/*
 * Values are dumped compact with their keys sorted: the bytes every version
 * of cluster-ipam wrote (a block's "used" keys in strcmp order: "0", "1",
 * "10", ...).
 */
static char *dump_sorted(json_t *o)
{
	char *s = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

	json_decref(o);
	return s;
}

char *cipam_block_json(const struct cipam_block *b)
{
	char cidr[IP_PREFIX_STRLEN], ord[12];
	json_t *used = json_object();

	for (unsigned i = 0; used && i < b->size; i++) {
		if (!b->used[i])
			continue;
		snprintf(ord, sizeof(ord), "%u", i);
		if (json_object_set_new_nocheck(used, ord, json_string(b->used[i])) < 0)
			used = (json_decref(used), NULL);
	}
	return dump_sorted(json_pack("{sssosIsIsIsIso}", "cidr", ip_prefix_fmt(&b->cidr, cidr),
				     "node", b->node ? json_string(b->node) : json_null(),
				     "claimed", (json_int_t)b->claimed, "updated",
				     (json_int_t)b->updated, "seq", (json_int_t)b->seq, "next",
				     (json_int_t)b->next, "used", used));
}

int cipam_block_pick(const struct cipam_block *b)
{
	for (unsigned k = 0; k < b->size; k++) {
		unsigned i = (b->next + k) % b->size;

		if (!b->used[i])
			return (int)i;
	}
	return -1;
}

int cipam_block_take(struct cipam_block *b, unsigned ordinal, const char *handle, int64_t now)
{
	if (ordinal >= b->size || b->used[ordinal])
		return -EEXIST;
	b->used[ordinal] = strdup(handle);
	if (!b->used[ordinal])
		return -ENOMEM;
	b->n_used++;
	b->next = (ordinal + 1) % b->size; /* round robin: a freed address is reused last */
	b->seq++;
	b->updated = now;
	return 0;
}

bool cipam_block_release(struct cipam_block *b, unsigned ordinal, const char *handle, int64_t now)
{
	if (ordinal >= b->size || !b->used[ordinal] || strcmp(b->used[ordinal], handle) != 0)
		return false;
	b->used[ordinal] = mfree(b->used[ordinal]);
	b->n_used--;
	b->seq++;
	b->updated = now;
	return true;
}

/* Values: handles. */

void cipam_handle_done(struct cipam_handle *h)
{
	free(h->id);
	free(h->node);
	free(h->container_id);
	free(h->ifname);
	free(h->network);
	free(h->pod);
	memset(h, 0, sizeof(*h));
}

static int dup_field(const json_t *o, const char *key, bool required, char **ret)
{
	const json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return required ? -EBADMSG : 0;
	if (!json_is_string(v) || json_string_length(v) == 0 ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return -EBADMSG;
	*ret = strdup(json_string_value(v));
	return *ret ? 0 : -ENOMEM;
}

static int handle_ips(const json_t *ips, struct cipam_handle *h)
{
	size_t i;
	json_t *v;

	if (!json_is_array(ips) || json_array_size(ips) == 0 ||
	    json_array_size(ips) > CIPAM_MAX_HANDLE_IPS)
		return -EBADMSG;
	json_array_foreach (ips, i, v) {
		if (!json_is_string(v) || ip_prefix_parse(json_string_value(v), &h->ips[i]) < 0)
			return -EBADMSG;
		h->n_ips = i + 1;
	}
	return 0;
}

int cipam_handle_parse(const char *json, size_t len, struct cipam_handle *ret, const char **why)
{
	json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, NULL);
	struct cipam_handle h = {0};
	const struct {
		const char *key;
		char **ret;
	} fields[] = {
	    {"id", &h.id},	   {"node", &h.node},	    {"containerID", &h.container_id},
	    {"ifname", &h.ifname}, {"network", &h.network}, {"pod", &h.pod}};
	int r = json_is_object(root) ? 0 : -EBADMSG;

	for (size_t i = 0; i < 6 && r >= 0; i++) /* the first four are required */
		r = dup_field(root, fields[i].key, i < 4, fields[i].ret);
	if (r >= 0 && get_int(root, "created", 0, INT64_MAX, &h.created) < 0)
		r = -EBADMSG;
	if (r >= 0)
		r = handle_ips(json_object_get(root, "ips"), &h);
	json_decref(root);
	if (r < 0) {
		cipam_handle_done(&h);
		if (r == -EBADMSG)
			BAD("handle: not {id, node, containerID, ifname, ips[1..8]}");
		return r;
	}
	*ret = h;
	return 0;
}

char *cipam_handle_json(const struct cipam_handle *h)
{
	json_t *o, *ips = json_array();
	char buf[IP_PREFIX_STRLEN];

	for (size_t i = 0; ips && i < h->n_ips; i++)
		if (json_array_append_new(ips, json_string(ip_prefix_fmt(&h->ips[i], buf))) < 0)
			ips = (json_decref(ips), NULL);
	o = json_pack("{sssssssssIso}", "id", h->id, "node", h->node, "containerID",
		      h->container_id, "ifname", h->ifname, "created", (json_int_t)h->created,
		      "ips", ips);
	/* optional: left out when not a string json_string() takes (not UTF-8) */
	if (o && h->network)
		json_object_set_new(o, "network", json_string(h->network));
	if (o && h->pod)
		json_object_set_new(o, "pod", json_string(h->pod));
	return dump_sorted(o);
}

/* Values: pools. */

int cipam_pool_parse(const char *json, size_t len, struct cipam_pool *ret, const char **why)
{
	json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, NULL);
	const json_t *cidr = json_object_get(root, "cidr");
	struct cipam_pool p = {0};
	int64_t bs = 0;
	int r = -EBADMSG;

	if (json_is_object(root) && json_is_string(cidr) &&
	    ip_prefix_parse(json_string_value(cidr), &p.cidr) == 0 &&
	    get_int(root, "blockSize", 0, 128, &bs) == 0 && bs >= p.cidr.prefixlen &&
	    bs <= (int64_t)ip_family_bits(p.cidr.family))
		r = 0;
	json_decref(root);
	if (r < 0)
		BAD("pool: not {cidr, blockSize}");
	p.block_size = (unsigned)bs;
	ip_prefix_mask(&p.cidr);
	*ret = p;
	return 0;
}

char *cipam_pool_json(const struct cipam_pool *p)
{
	char cidr[IP_PREFIX_STRLEN];

	return dump_sorted(json_pack("{sssi}", "cidr", ip_prefix_fmt(&p->cidr, cidr), "blockSize",
				     (int)p->block_size));
}
