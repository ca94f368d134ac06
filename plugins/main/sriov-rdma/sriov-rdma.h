/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sriov-rdma: an SR-IOV VF netdev (or a DPDK VF) and its RDMA device into
 * the pod in one step, restored exactly on DEL. Parse (sriov-conf.c), resolve
 * (sriov-sysfs.c), record (sriov-state.c), plan (sriov-plan.c), apply
 * (sriov-netdev.c, sriov-rdmadev.c, sriov-pod.c) and the verbs (sriov-add.c,
 * sriov-del.c, sriov-check.c).
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "cni/plugin.h"
#include "nlw/rdma.h"
#include "podnet/podnet.h"
#include "nlw/vf.h"

struct nlw_link;

#define SR_DEFAULT_STATE_DIR "/var/lib/cni/sriov-rdma"
#define SR_BDF_LEN 13 /* "0000:3b:00.2" */
#define SR_MTU_MIN 68
#define SR_MTU_MAX 65535
#define SR_DRIVER_MAX 64
/* vfReturnTimeoutMs: default and largest value (DEL stays bounded). */
#define SR_VF_RETURN_TIMEOUT_MS 2000
#define SR_VF_RETURN_TIMEOUT_MAX 60000

enum sr_rdma_mode {
	SR_RDMA_AUTO = 0,
	SR_RDMA_ON,
	SR_RDMA_OFF,
};

/* PF-side settings, one bit per config key (also the state file's "applied" list). */
enum sr_pf_key {
	SR_PF_VLAN = 1U << 0,
	SR_PF_MAC = 1U << 1,
	SR_PF_RATE = 1U << 2,
	SR_PF_SPOOFCHK = 1U << 3,
	SR_PF_TRUST = 1U << 4,
	SR_PF_LINK_STATE = 1U << 5,
};
#define SR_PF_ALL 0x3fU

/* The plugin's own keys, validated (sriov-conf.c). */
struct sr_conf {
	char device_id[SR_BDF_LEN]; /* lower case */
	char master[IFNAMSIZ];	    /* expected PF netdev, "" = any */
	unsigned pf_keys;	    /* enum sr_pf_key bits present in the config */
	uint16_t vlan;
	uint8_t qos;
	uint16_t vlan_proto; /* NLW_VLAN_PROTO_* */
	unsigned char mac[6];
	char mac_str[18];
	bool spoofchk, trust;
	enum nlw_vf_link_state link_state;
	uint32_t min_tx_rate, max_tx_rate;
	unsigned mtu; /* 0: leave the MTU alone */
	enum sr_rdma_mode rdma;
	char *state_dir;	       /* owned */
	char *devinfo_file;	       /* runtimeConfig.CNIDeviceInfoFile, owned, NULL if absent */
	unsigned vf_return_timeout_ms; /* vfReturnTimeoutMs */
};

/*
 * Parse and validate the plugin's keys of ctx->conf.root (plus CNI_ARGS MAC
 * and runtimeConfig.mac / runtimeConfig.deviceID). Every bad value is a
 * code-7 error naming key and value. On DEL/GC, device_id may stay "" when
 * absent or malformed (the state is found by attachment then).
 */
int sr_conf_parse(struct cni_ctx *ctx, struct sr_conf *ret);
void sr_conf_done(struct sr_conf *c);
/* True when s is a full PCI BDF (dddd:bb:dd.f, hex, function 0-7). */
bool sr_bdf_valid(const char *s);
const char *sr_pf_key_name(unsigned key);

/* A VF as sysfs describes it (sriov-sysfs.c). */
struct sr_vf {
	char bdf[SR_BDF_LEN];
	char pf_bdf[SR_BDF_LEN];
	char pf_name[IFNAMSIZ];
	int index;	       /* virtfnN */
	char netdev[IFNAMSIZ]; /* "" for a DPDK VF */
	char driver[SR_DRIVER_MAX];
	bool dpdk;
	char rdma_dev[NLW_RDMA_NAME_MAX]; /* "" when the VF has none */
};

/*
 * Resolve bdf under the sysfs root fd: PF (physfn), its netdev, the VF index
 * (virtfnN of the PF, N < sriov_numvfs), the VF netdev, the driver (DPDK
 * when vfio-pci, uio_pci_generic or igb_uio) and the RDMA device
 * (infiniband/). Errors are code 7 naming deviceID, set in err.
 */
int sr_sysfs_resolve(int sysfs_fd, const char *bdf, struct sr_vf *ret, struct cni_error *err);
/* Current netdev names of the VF (<vf>/net/ entries); returns the count (<= max). */
int sr_sysfs_netdevs(int sysfs_fd, const char *bdf, char (*names)[IFNAMSIZ], int max);
/* The sysfs root: PODWIRE_SYSFS_ROOT (test-only) or ctx->sysfs_fd. Borrowed. */
int sr_sysfs_root(struct cni_ctx *ctx, int *ret_fd);

/* The VF's original state, recorded before the first change. */
struct sr_orig {
	bool pf_known; /* the PF reported the VF (IFLA_VFINFO_LIST) */
	struct nlw_vf_info pf;
	char netdev[IFNAMSIZ]; /* host name, "" for DPDK */
	int ifindex;
	unsigned mtu;
	unsigned char mac[6];
	bool up;
};

/* The state record of one VF (one file per VF: <stateDir>/<BDF>.json). */
struct sr_state {
	char container_id[256];
	char ifname[IFNAMSIZ];
	char netns[4096];
	char network[256];
	struct sr_vf vf;
	int pf_ifindex;
	struct sr_orig orig;
	unsigned applied;	 /* PF-side keys ADD changes (planned before the first change) */
	struct nlw_vf_info want; /* the values ADD sets for those keys */
	unsigned pod_mtu;
	unsigned char pod_mac[6];
	int pod_ifindex; /* 0 until the netdev is in the pod */
	bool has_ipam;
	bool rdma_move; /* ADD moves vf.rdma_dev into the pod */
	bool complete;	/* ADD finished */
};

/* JSON text of a state (owned, NUL-terminated) / parse it back (untrusted input). */
char *sr_state_format(const struct sr_state *s);
int sr_state_parse(const char *text, size_t len, struct sr_state *ret);
/* The compact, key-sorted text of j (its reference taken; NULL: NULL). */
char *sr_json_dump(json_t *j);
/*
 * Fields of a state file (input: every one checked): a string that fits len
 * with no NUL inside, an integer in [min, max], a MAC address. 0 or -EBADMSG.
 */
int sr_json_str(const json_t *o, const char *key, char *buf, size_t len);
int sr_json_int(const json_t *o, const char *key, long long min, long long max, long long *ret);
int sr_json_mac(const json_t *o, const char *key, unsigned char mac[6]);
/*
 * Write the device-info file (device-info-spec 1.1.0, type "pci": the
 * pci-address and, when moved, the rdma-device) atomically at path.
 */
int sr_devinfo_write(const char *path, const struct sr_state *s);
/* Atomic write: <dir>/.<BDF>.json.tmp, fsync, rename, fsync(dir). */
int sr_state_save(int dir_fd, const struct sr_state *s);
/* Load <BDF>.json. -ENOENT when absent, -EBADMSG when unreadable. */
int sr_state_load(int dir_fd, const char *bdf, struct sr_state *ret);
int sr_state_remove(int dir_fd, const char *bdf);
/* Open (creating 0700) the state directory. */
int sr_state_dir_open(const char *path, int *ret_fd);
/*
 * Take the per-VF lock <BDF>.lock (flock LOCK_EX, waits up to timeout_ms).
 * *ret_fd stays open (O_CLOEXEC) until closed. -ETIMEDOUT when still held.
 */
int sr_state_lock(int dir_fd, const char *bdf, unsigned timeout_ms, int *ret_fd);
/* Find the state of attachment (cid, ifname) by scanning the directory. */
int sr_state_find(int dir_fd, const char *cid, const char *ifname, struct sr_state *ret);

/*
 * A VF whose netdev DEL did not find within vfReturnTimeoutMs (the VF was
 * reset or removed, or died with the pod netns): <stateDir>/lost/<BDF>.json,
 * what a later GC or ADD needs to give the netdev back its name, MAC and MTU.
 */
#define SR_LOST_DIR "lost"
struct sr_lost {
	char bdf[SR_BDF_LEN];
	char pf_name[IFNAMSIZ];
	int vf_index;
	char container_id[256]; /* the attachment it came from */
	char ifname[IFNAMSIZ];	/* its name in the pod */
	char network[256];
	char netns[4096];
	char netdev[IFNAMSIZ]; /* original host name */
	int ifindex;	       /* original host ifindex */
	int pod_ifindex;
	unsigned char mac[6]; /* original netdev MAC */
	unsigned mtu;
	bool up;
	char rdma_dev[NLW_RDMA_NAME_MAX];
	int64_t lost_at; /* Unix time, seconds */
	char reason[256];
};

void sr_lost_from_state(const struct sr_state *s, int64_t now, const char *reason,
			struct sr_lost *ret);
/* The fields of a state record that finding and restoring the netdev use. */
void sr_lost_to_state(const struct sr_lost *l, struct sr_state *ret);
/* JSON text (owned) / parse it back (untrusted input: -EBADMSG). */
char *sr_lost_format(const struct sr_lost *l);
int sr_lost_parse(const char *text, size_t len, struct sr_lost *ret);
/* <stateDir>/lost/<BDF>.json: atomic save (creating lost/ 0700), load (-ENOENT), remove. */
int sr_lost_save(int dir_fd, const struct sr_lost *l);
int sr_lost_load(int dir_fd, const char *bdf, struct sr_lost *ret);
int sr_lost_remove(int dir_fd, const char *bdf);

/* PF-side requests (sriov-plan.c, pure). */
/* The request setting one key to the conf's value. */
void sr_plan_apply(const struct sr_conf *c, int vf, unsigned key, struct nlw_vf_params *ret);
/* The request restoring one key to the recorded original (or the kernel's defaults). */
void sr_plan_restore(const struct sr_orig *o, int vf, unsigned key, struct nlw_vf_params *ret);
/* The keys in the order ADD applies them (DEL restores in reverse). */
extern const unsigned sr_pf_order[6];
/* What the conf asks for, as a struct nlw_vf_info (for the state and CHECK). */
void sr_plan_want(const struct sr_conf *c, int vf, struct nlw_vf_info *ret);
/* Does the PF's report match what was asked for key? */
bool sr_plan_matches(const struct nlw_vf_info *want, const struct nlw_vf_info *have, unsigned key);
/*
 * DEL: does a failed PF-side restore keep the record for a retry? Not when
 * the PF is gone (-ENODEV: its VFs went with it) nor when the VF is lost
 * (what can be restored is, the rest is logged).
 */
bool sr_plan_restore_fatal(int err, bool vf_lost);
/*
 * DEL: the next pause (ms) while waiting for a device the kernel has not
 * returned: 5, 10, 20, 40, then 50, never past the time left; 0 when
 * left_ms is used up.
 */
unsigned sr_plan_poll_ms(unsigned prev_ms, int64_t left_ms);

/* Per-invocation working set of ADD/DEL/CHECK/GC. */
struct sr_run {
	struct cni_ctx *ctx;
	/*
	 * Borrowed: the host socket, the pod netns and its socket (podnet's for
	 * the invocation; for another attachment's record, one with only the
	 * host socket, whose recorded netns teardown opens).
	 */
	struct podnet *pn;
	struct sr_conf conf;
	struct sr_state st;
	int sysfs_fd;	       /* borrowed */
	int dir_fd;	       /* state directory */
	int lock_fd;	       /* per-VF lock */
	int host_ns_fd;	       /* our own netns */
	struct nlw_sock *rdma; /* NETLINK_RDMA in the host netns (ADD with a device to move) */
	uint32_t rdma_index;
	struct cni_result *result;
	bool recorded;		    /* ADD: the state file is (being) written */
	int64_t return_deadline_ns; /* DEL: end of the vfReturnTimeoutMs wait, 0 = not started */
};
/* A working set on pn that owns nothing yet. */
#define SR_RUN_INIT(p)                                                                             \
	{                                                                                          \
		.ctx = (p)->ctx, .pn = (p), .dir_fd = -1, .lock_fd = -1, .host_ns_fd = -1          \
	}
/* Close what the working set owns (not what pn holds). */
void sr_run_done(struct sr_run *r);
/*
 * A working set for another attachment's record, on base's sysfs, stateDir
 * and host netns handles (borrowed: never sr_run_done it) and pn holding only
 * base's host socket.
 */
void sr_run_borrow(struct sr_run *r, struct podnet *pn, const struct sr_run *base);
/* Open our own netns (r->host_ns_fd), where VF netdevs go back to. */
int sr_host_ns_open(struct sr_run *r);

/* sriov-netdev.c */
int sr_netdev_record(struct sr_run *r);
/* CNI_IFNAME is free in the pod (code 103 otherwise). */
int sr_netdev_name_free(struct sr_run *r);
int sr_netdev_to_pod(struct sr_run *r);
/*
 * Where the VF netdev is now: in the pod (as CNI_IFNAME or under its pod
 * ifindex, *in_pod set) or in the host; -ENODEV (no error recorded) when in
 * neither.
 */
int sr_netdev_locate(struct sr_run *r, struct nlw_link *ret, bool *in_pod);
/* Bring the VF netdev home (from the pod, or found in the host), restore name, MAC, MTU. */
int sr_netdev_release(struct sr_run *r);
/*
 * DEL: wait one poll step for a device the kernel has not returned yet;
 * false once vfReturnTimeoutMs is used up (one bound for every wait of a
 * DEL or GC, counted from the first wait).
 */
bool sr_return_wait(struct sr_run *r, unsigned *step_ms);
/*
 * A lost VF whose netdev is back in the host: name, MAC, MTU and up state
 * restored, its lost record removed. -ENODEV (no error recorded) while it
 * is still away. Under the VF's lock.
 */
int sr_lost_restore(struct sr_run *base, const struct sr_lost *l);

/* sriov-pf.c: apply one PF-side key / restore it. Error names the key. */
int sr_pf_read(struct sr_run *r);
int sr_pf_apply(struct sr_run *r, unsigned key);
int sr_pf_restore(struct sr_run *r, unsigned key);

/* sriov-rdmadev.c */
/* Before any change: RDMA subsystem exclusive and the device in the host netns. */
int sr_rdma_precheck(struct sr_run *r);
int sr_rdma_to_pod(struct sr_run *r);
int sr_rdma_verify(struct sr_run *r);
/*
 * Back to the host netns; a device already in the host counts as done.
 * -ENODEV (no error recorded) when it is neither in the pod nor in the host
 * (or RDMA netlink is gone).
 */
int sr_rdma_release(struct sr_run *r);
/* Test seam: how RDMA sockets are opened (netns_fd -1: host). NULL restores the kernel. */
void sr_rdma_set_open(int (*open_fn)(int netns_fd, struct nlw_sock **ret));
/* Is the device in the pod netns? 1 yes, 0 no, negative errno. */
int sr_rdma_in_pod(struct sr_run *r);

/* sriov-pod.c: IPAM (ADD pushes the IPAM DEL undo step) and the pod netdev. */
int sr_ipam_add(struct cni_ctx *ctx, struct cni_result **ret);
int sr_ipam_run(struct cni_ctx *ctx, enum cni_command cmd);
/* sriov-pod.c: addresses (no DAD), up, routes of the IPAM result on the pod netdev. */
int sr_pod_configure(struct sr_run *r, int ifindex);

/* The verbs (sriov-add.c, sriov-del.c, sriov-check.c), on podnet_plugin_main. */
int sr_cmd_add(struct podnet *pn);
int sr_cmd_status(struct podnet *pn);
/* DEL, CHECK and GC on a run that sriov-ops.c makes and releases. */
int sr_del(struct sr_run *r);
int sr_check(struct sr_run *r);
int sr_gc(struct sr_run *r);
/* Restore everything a state records and remove it (DEL, GC, stale takeover). */
int sr_teardown(struct sr_run *r);

extern const struct podnet_plugin_ops sriov_rdma_ops;
