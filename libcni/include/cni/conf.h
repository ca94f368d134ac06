/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The protocol's part of a plugin's network config (stdin), and typed
 * getters every plugin uses for its own keys.
 *
 * Ownership: struct cni_conf holds a reference on the JSON root it was parsed
 * from; its json_t pointers are borrowed from that root and its strings are
 * owned (strdup'ed).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "cni/error.h"
#include "cni/result.h"
#include "cni/version.h"

struct cni_attachment {
	char *container_id;
	char *ifname;
};

struct cni_conf {
	json_t *root; /* owned reference */

	char *cni_version; /* as given; NULL when absent (means 0.1.0) */
	enum cni_version version;
	char *name;
	char *type;

	bool has_ip_masq;
	bool ip_masq;

	const json_t *ipam; /* borrowed, object or NULL */
	char *ipam_type;    /* NULL when absent or "" (L2-only) */

	bool has_dns;
	struct cni_dns dns;

	const json_t *args;	      /* borrowed, object or NULL */
	const json_t *runtime_config; /* borrowed, object or NULL */
	const json_t *capabilities;   /* borrowed, object or NULL */
	const json_t *prev_result;    /* borrowed, object or NULL */

	char **args_cni_ips; /* args.cni.ips */
	size_t n_args_cni_ips;

	bool has_valid_attachments; /* cni.dev/valid-attachments present (GC) */
	struct cni_attachment *valid_attachments;
	size_t n_valid_attachments;

	char *log_file;	 /* logFile */
	char *log_level; /* logLevel */
};

/* Is (container_id, ifname) listed in cni.dev/valid-attachments? (GC's matcher) */
bool cni_conf_attachment_valid(const struct cni_conf *conf, const char *container_id,
			       const char *ifname);

/* Keys of the protocol itself; plugins list only their own. */
extern const char *const cni_conf_protocol_keys[];

/*
 * Load JSON text strictly (duplicate keys rejected). A parse failure is code
 * 6 with line, column and jansson's text in details. `what` names the input
 * ("stdin", a file name). Returns 0 and a new reference.
 */
int cni_json_loadb(const char *buf, size_t len, const char *what, json_t **ret,
		   struct cni_error *err);

/*
 * A JSON document kept up to date by appending (a journal): the first line
 * is the document, written once; each later line {"index":N,"value":V}
 * replaces element N of the document's array `key`. An update is then one
 * append: no rewrite, no rename, and the first line is never touched again
 * (a writer that made it durable keeps it so). A line that is incomplete
 * (no newline: a torn append) or not such an update ends the journal; it
 * and what follows are ignored. Errors are the first line's, as
 * cni_json_loadb(). Returns 0 and the folded document (a new reference).
 */
int cni_json_load_journal(const char *buf, size_t len, const char *what, const char *key,
			  json_t **ret, struct cni_error *err);

/*
 * cni_json_loadb() for a network config: an integer literal beyond 64 bits
 * (jansson's "too big integer") is code 7 naming its key, e.g.
 * "mtu: 99999999999999999999 is out of range (at most 64-bit integers)",
 * instead of code 6 without one.
 */
int cni_conf_loadb(const char *buf, size_t len, const char *what, json_t **ret,
		   struct cni_error *err);

/*
 * Parse the protocol keys of a plugin config. Requires an object with a
 * valid "name" (code 7) and a string cniVersion (code 6). Does not check
 * the version is supported (the skeleton does). Takes a new reference on
 * root. Returns 0 or a negative errno with err set.
 */
int cni_conf_parse(json_t *root, struct cni_conf *ret, struct cni_error *err);
/*
 * As cni_conf_parse; with lenient (DEL, GC) an optional protocol key of the
 * wrong type is logged as a warning and treated as absent instead of failing.
 * name and cniVersion are always checked.
 */
int cni_conf_parse_ex(json_t *root, bool lenient, struct cni_conf *ret, struct cni_error *err);
void cni_conf_done(struct cni_conf *conf);

/*
 * Validate a network name / container ID: ^[a-zA-Z0-9][a-zA-Z0-9_.-]*$,
 * and never "." or "..": safe as one path component.
 */
bool cni_valid_name(const char *s);
/* Interface name rules of the spec: 1..15 bytes, not . or .., no / : or whitespace. */
bool cni_valid_ifname(const char *s);
/*
 * Why s breaks those rules, as a short phrase for a message ("ASCII only",
 * "longer than 15 bytes", ...), or NULL when it is a valid interface name.
 */
const char *cni_ifname_problem(const char *s);

/*
 * Longest container ID and network name a plugin accepts, in bytes. Every
 * name podwire derives from them must fit: host-local's index file
 * "@<id>:<ifname>" (255), the nftables tag "<id>/<ifname>" (240), the host
 * veth alias "podwire:<id>/<ifname>" (255), nftables object names built from
 * the network (255, see PW_NFT_NETWORK_MAX). Runtimes use 64 hex digits.
 */
#define CNI_CONTAINER_ID_MAX 128
#define CNI_NETWORK_NAME_MAX 128

/*
 * Check the keys of rd->obj that are neither in `known` (NULL-terminated)
 * nor protocol keys when `protocol` is true, nor "cni.dev/..." keys. A key
 * that differs from a known one only in letter case ("vLan" for "vlan") is a
 * code-7 error naming rd->path, the key and the known key, through
 * cni_conf_invalid() (so a warning on a lenient reader: DEL, GC). Any other
 * unknown key is a warning, never an error (drop-in compatibility), with a
 * "did you mean" hint for a near miss. Returns 0 or a negative errno.
 */
struct cni_conf_reader;
int cni_conf_check_keys(const struct cni_conf_reader *rd, const char *const *known, bool protocol);

/* The known key equal to key but for ASCII letter case, or NULL. */
const char *cni_key_case_miss(const char *key, const char *const *known);

/* The closest known key within edit distance 2, or NULL. */
const char *cni_key_suggest(const char *key, const char *const *known);

/*
 * Case-insensitive object member lookup, for runtime-supplied capability
 * objects (containerd sends "HostPort", "Servers", "Subnet"). An exact match
 * wins over a case-insensitive one. Borrowed.
 */
json_t *cni_json_get_ci(const json_t *obj, const char *key);

/*
 * Reads the keys of one config object with typed getters. Plugins take one
 * from cni_ctx_reader() (lenient on DEL and GC); any other parser of a
 * config (results, podwire-node's node config) fills in its own, strict.
 */
struct cni_conf_reader {
	struct cni_error *err; /* where a bad value is recorded */
	const json_t *obj;     /* the object read; anything else reads as empty */
	const char *path;      /* obj's JSON path in messages, "" for the root */
	bool lenient;	       /* a bad value is a warning and reads as absent (DEL, GC) */
	bool ci;	       /* keys match case-insensitively (runtime-supplied objects) */
};

/* rd on another object (a member of rd's, say): the same slot and rules. */
struct cni_conf_reader cni_conf_at(const struct cni_conf_reader *rd, const json_t *obj,
				   const char *path);

/*
 * A file a config key names (a TLS CA, certificate or key) that cannot be
 * opened for reading: error `code` "<path>.<key>: <file>: <reason>" with
 * open's errno, checked up front where the key is known (the TLS library
 * that reads it later knows only which PEM). A warning on a lenient reader.
 * NULL file: nothing to check.
 */
int cni_conf_check_file(const struct cni_conf_reader *rd, unsigned code, const char *key,
			const char *file);

/*
 * Typed getters. Each looks up `key` in rd->obj and:
 *  - absent (or JSON null): returns 0, leaves *ret untouched, *ret_present=false;
 *  - right type and valid: sets *ret, *ret_present=true, returns 0;
 *  - wrong type / invalid: records a code-7 error naming "<path>.<key>" and
 *    the value and returns -EINVAL; a lenient reader only logs a warning
 *    and returns 0 as if absent, so a bad config can never wedge clean-up.
 * ret_present may be NULL. Numbers may be written as reals with no fraction.
 */
int cni_conf_get_bool(const struct cni_conf_reader *rd, const char *key, bool *ret,
		      bool *ret_present);
int cni_conf_get_string(const struct cni_conf_reader *rd, const char *key, const char **ret,
			bool *ret_present);
/* An integer from min to max. */
int cni_conf_get_uint(const struct cni_conf_reader *rd, const char *key, unsigned min, unsigned max,
		      unsigned *ret, bool *ret_present);
/* Any non-negative integer (at most 2^63-1: JSON's integers are 64-bit signed). */
int cni_conf_get_u64(const struct cni_conf_reader *rd, const char *key, uint64_t *ret,
		     bool *ret_present);
int cni_conf_get_object(const struct cni_conf_reader *rd, const char *key, const json_t **ret,
			bool *ret_present);
/* A list of at most max_len entries. */
int cni_conf_get_array(const struct cni_conf_reader *rd, const char *key, size_t max_len,
		       const json_t **ret, bool *ret_present);

/*
 * Record an invalid-config error (code `code`, usually 7 or 2) and return
 * -EINVAL; a lenient reader logs it as a warning and returns 0. For
 * semantic checks after the typed getters.
 */
int cni_conf_invalid(const struct cni_conf_reader *rd, unsigned code, const char *fmt, ...)
    _printf_(3, 4);
/*
 * cni_conf_invalid() with code 7 and "<path>.<key>: <want>, got <value>"
 * (key NULL or "": the path alone), as the getters word it.
 */
int cni_conf_bad_value(const struct cni_conf_reader *rd, const char *key, const json_t *v,
		       const char *want);

/* Format a JSON value compactly for messages (truncated to 64 chars). Owned. */
char *cni_json_repr(const json_t *v);

/*
 * JSON has one number type: an integer, or a real with no fractional part
 * inside json_int_t's range (1500.0, not 1500.5 nor 2e80), gives its value.
 */
bool cni_json_whole_number(const json_t *v, json_int_t *ret);
