/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nodelay.c: `podwire-node bgp-nodelay attach|detach|status [--cgroup DIR]`.
 *
 * The program runs on every TCP event of the sockets of a cgroup (and its
 * descendants); on ACTIVE_/PASSIVE_ESTABLISHED of a connection whose local
 * or remote port is 179 it calls bpf_setsockopt(SOL_TCP, TCP_NODELAY, 1).
 * It is attached with BPF_F_ALLOW_MULTI, so it stays attached after this
 * process exits (until `detach` or the cgroup goes away) and coexists with
 * other programs; it is found again by its name.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/file.h"
#include "base/macro.h"
#include "nodelay.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#define MAX_PROGS 64

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	return (struct bpf_insn){
	    .code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm};
}

#define CTX_FIELD(f) ((int16_t)offsetof(struct bpf_sock_ops, f))
/* 32-bit compares: remote_port holds the port in network order (htonl form). */
#define JEQ32(reg, val, off) insn(BPF_JMP32 | BPF_JEQ | BPF_K, reg, 0, off, (int32_t)(val))
#define LDW(dst, src, off) insn(BPF_LDX | BPF_MEM | BPF_W, dst, src, off, 0)
#define MOV_IMM(dst, imm) insn(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm)
#define MOV_REG(dst, src) insn(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0)

size_t pwn_nodelay_prog(struct bpf_insn *insns, size_t max)
{
	/* r6 = ctx; jump targets are counted from the next instruction. */
	const struct bpf_insn prog[] = {
	    MOV_REG(BPF_REG_6, BPF_REG_1),
	    LDW(BPF_REG_2, BPF_REG_6, CTX_FIELD(op)),
	    JEQ32(BPF_REG_2, BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB, 2),
	    JEQ32(BPF_REG_2, BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB, 1),
	    insn(BPF_JMP | BPF_JA, 0, 0, 13, 0), /* -> r0 = 1 */
	    LDW(BPF_REG_2, BPF_REG_6, CTX_FIELD(local_port)),
	    JEQ32(BPF_REG_2, PWN_BGP_PORT, 3),
	    LDW(BPF_REG_2, BPF_REG_6, CTX_FIELD(remote_port)),
	    JEQ32(BPF_REG_2, htonl(PWN_BGP_PORT), 1),
	    insn(BPF_JMP | BPF_JA, 0, 0, 8, 0), /* -> r0 = 1 */
	    /* *(u32 *)(r10 - 4) = 1; bpf_setsockopt(ctx, SOL_TCP, TCP_NODELAY, r10 - 4, 4) */
	    insn(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 1),
	    MOV_REG(BPF_REG_1, BPF_REG_6),
	    MOV_IMM(BPF_REG_2, IPPROTO_TCP),
	    MOV_IMM(BPF_REG_3, TCP_NODELAY),
	    MOV_REG(BPF_REG_4, BPF_REG_10),
	    insn(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_4, 0, 0, -4),
	    MOV_IMM(BPF_REG_5, 4),
	    insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_setsockopt),
	    MOV_IMM(BPF_REG_0, 1),
	    insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	if (ARRAY_SIZE(prog) > max)
		return 0;
	memcpy(insns, prog, sizeof(prog));
	return ARRAY_SIZE(prog);
}

/* Decode mountinfo's octal escapes (\040 for a space) of [s, s + len) into buf. */
static int unescape_field(const char *s, size_t len, char *buf, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '\\' && i + 3 < len && s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
			c = (char)((s[i + 1] - '0') << 6 | (s[i + 2] - '0') << 3 |
				   (s[i + 3] - '0'));
			i += 3;
		}
		if (o + 1 >= size)
			return -ENAMETOOLONG;
		buf[o++] = c;
	}
	buf[o] = '\0';
	return 0;
}

/* Field n (0-based, space separated) of the line [line, eol). */
static const char *field(const char *line, const char *eol, unsigned n, size_t *len)
{
	const char *p = line;

	for (unsigned i = 0; i < n; i++) {
		p = memchr(p, ' ', (size_t)(eol - p));
		if (!p)
			return NULL;
		p++;
	}
	const char *end = memchr(p, ' ', (size_t)(eol - p));
	*len = (size_t)((end ? end : eol) - p);
	return p;
}

int pwn_cgroup2_mount(const char *mountinfo, char *buf, size_t size)
{
	for (const char *line = mountinfo; *line;) {
		const char *eol = strchrnul(line, '\n');
		const char *sep = NULL, *mnt;
		size_t mnt_len;

		/* id parent maj:min root mountpoint options [optional...] - fstype source super */
		for (const char *p = line; p + 3 <= eol; p++)
			if (memcmp(p, " - ", 3) == 0) {
				sep = p;
				break;
			}
		mnt = field(line, eol, 4, &mnt_len);
		if (sep && mnt && mnt < sep && (size_t)(eol - sep) >= 10 &&
		    memcmp(sep + 3, "cgroup2 ", 8) == 0)
			return unescape_field(mnt, mnt_len, buf, size);
		line = *eol ? eol + 1 : eol;
	}
	return -ENOENT;
}

int pwn_cgroup_self_path(const char *proc_cgroup, char *buf, size_t size)
{
	for (const char *line = proc_cgroup; *line;) {
		const char *eol = strchrnul(line, '\n');
		size_t len = (size_t)(eol - line);

		if (len >= 4 && memcmp(line, "0::/", 4) == 0) {
			if (len - 3 >= size)
				return -ENAMETOOLONG;
			memcpy(buf, line + 3, len - 3);
			buf[len - 3] = '\0';
			return 0;
		}
		line = *eol ? eol + 1 : eol;
	}
	return -ENOENT;
}

/* This process's own cgroup v2 directory. */
static int own_cgroup(char *buf, size_t size, FILE *err)
{
	_cleanup_free_ char *mountinfo = NULL, *cg = NULL;
	char mnt[4096], rel[4096];
	int r;

	r = file_read_at(AT_FDCWD, "/proc/self/mountinfo", 1 << 20, &mountinfo);
	if (r >= 0)
		r = pwn_cgroup2_mount(mountinfo, mnt, sizeof(mnt));
	if (r < 0) {
		fprintf(
		    err,
		    "podwire-node bgp-nodelay: no cgroup v2 mount in /proc/self/mountinfo (%s); "
		    "give --cgroup DIR\n",
		    strerror(-r));
		return r;
	}
	r = file_read_at(AT_FDCWD, "/proc/self/cgroup", 1 << 16, &cg);
	if (r >= 0)
		r = pwn_cgroup_self_path(cg, rel, sizeof(rel));
	if (r < 0) {
		fprintf(err,
			"podwire-node bgp-nodelay: no \"0::\" line in /proc/self/cgroup (%s); "
			"give --cgroup DIR\n",
			strerror(-r));
		return r;
	}
	if (snprintf(buf, size, "%s%s", mnt, strcmp(rel, "/") == 0 ? "" : rel) >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	long r = syscall(__NR_bpf, cmd, attr, sizeof(*attr));

	return r < 0 ? -errno : (int)r;
}

static int open_cgroup(const char *path, FILE *err)
{
	struct statfs sfs;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		int r = -errno;
		fprintf(err, "podwire-node bgp-nodelay: --cgroup '%s': %s\n", path, strerror(-r));
		return r;
	}
	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		fprintf(err,
			"podwire-node bgp-nodelay: --cgroup '%s' is not a cgroup v2 directory\n",
			path);
		close(fd);
		return -ENOTDIR;
	}
	return fd;
}

static int load_prog(FILE *err)
{
	struct bpf_insn insns[PWN_NODELAY_MAX_INSNS];
	static char log[8192];
	union bpf_attr a = {0};
	int fd;

	a.prog_type = BPF_PROG_TYPE_SOCK_OPS;
	a.insn_cnt = (uint32_t)pwn_nodelay_prog(insns, ARRAY_SIZE(insns));
	a.insns = (uint64_t)(uintptr_t)insns;
	a.license = (uint64_t)(uintptr_t) "Apache-2.0";
	a.log_buf = (uint64_t)(uintptr_t)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	memcpy(a.prog_name, PWN_NODELAY_PROG_NAME, sizeof(PWN_NODELAY_PROG_NAME));
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0) {
		fprintf(err, "podwire-node bgp-nodelay: loading the sock_ops program: %s%s\n",
			strerror(-fd), fd == -EPERM ? " (needs CAP_BPF and CAP_NET_ADMIN)" : "");
		if (log[0])
			fprintf(err, "%s", log);
	}
	return fd;
}

/* Is the program with this id ours (by name)? Its fd into *ret_fd when asked. */
static bool prog_is_ours(uint32_t id, int *ret_fd)
{
	struct bpf_prog_info info = {0};
	union bpf_attr a = {0};
	int fd;
	bool ours;

	a.prog_id = id;
	fd = sys_bpf(BPF_PROG_GET_FD_BY_ID, &a);
	if (fd < 0)
		return false;
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (uint32_t)fd;
	a.info.info_len = sizeof(info);
	a.info.info = (uint64_t)(uintptr_t)&info;
	ours = sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) == 0 &&
	       strncmp(info.name, PWN_NODELAY_PROG_NAME, sizeof(info.name)) == 0;
	if (ours && ret_fd)
		*ret_fd = fd;
	else
		close(fd);
	return ours;
}

/* Ids of the sock_ops programs on cgfd (effective: also those inherited). */
static int query_progs(int cgfd, bool effective, uint32_t *ids, uint32_t max)
{
	union bpf_attr a = {0};
	int r;

	a.query.target_fd = (uint32_t)cgfd;
	a.query.attach_type = BPF_CGROUP_SOCK_OPS;
	a.query.query_flags = effective ? BPF_F_QUERY_EFFECTIVE : 0;
	a.query.prog_ids = (uint64_t)(uintptr_t)ids;
	a.query.prog_cnt = max;
	r = sys_bpf(BPF_PROG_QUERY, &a);
	return r < 0 ? r : (int)a.query.prog_cnt;
}

/* Our program's id among the cgroup's programs, 0 when absent, or -errno. */
static int64_t find_ours(int cgfd, bool effective, FILE *err)
{
	uint32_t ids[MAX_PROGS];
	int n = query_progs(cgfd, effective, ids, MAX_PROGS);

	if (n < 0) {
		fprintf(err, "podwire-node bgp-nodelay: querying the cgroup's programs: %s\n",
			strerror(-n));
		return n;
	}
	for (int i = 0; i < n; i++)
		if (prog_is_ours(ids[i], NULL))
			return ids[i];
	return 0;
}

static int do_attach(int cgfd, const char *path, FILE *out, FILE *err)
{
	_cleanup_close_ int pfd = -1;
	union bpf_attr a = {0};
	int64_t id;
	int r;

	id = find_ours(cgfd, true, err);
	if (id < 0)
		return (int)id;
	if (id > 0) {
		fprintf(out, "bgp-nodelay: already in effect on %s (program %lld)\n", path,
			(long long)id);
		return 0;
	}
	pfd = load_prog(err);
	if (pfd < 0)
		return pfd;
	a.target_fd = (uint32_t)cgfd;
	a.attach_bpf_fd = (uint32_t)pfd;
	a.attach_type = BPF_CGROUP_SOCK_OPS;
	a.attach_flags = BPF_F_ALLOW_MULTI;
	r = sys_bpf(BPF_PROG_ATTACH, &a);
	if (r < 0) {
		fprintf(err, "podwire-node bgp-nodelay: attaching to %s: %s%s\n", path,
			strerror(-r),
			r == -EPERM ? " (a program attached without BPF_F_ALLOW_MULTI, or no "
				      "CAP_NET_ADMIN)"
				    : "");
		return r;
	}
	id = find_ours(cgfd, false, err);
	fprintf(out, "bgp-nodelay: attached to %s (program %lld)\n", path,
		(long long)(id > 0 ? id : 0));
	return 0;
}

static int do_detach(int cgfd, const char *path, FILE *out, FILE *err)
{
	uint32_t ids[MAX_PROGS];
	int n = query_progs(cgfd, false, ids, MAX_PROGS), detached = 0;

	if (n < 0) {
		fprintf(err, "podwire-node bgp-nodelay: querying %s: %s\n", path, strerror(-n));
		return n;
	}
	for (int i = 0; i < n; i++) {
		_cleanup_close_ int pfd = -1;
		union bpf_attr a = {0};
		int r;

		if (!prog_is_ours(ids[i], &pfd))
			continue;
		a.target_fd = (uint32_t)cgfd;
		a.attach_bpf_fd = (uint32_t)pfd;
		a.attach_type = BPF_CGROUP_SOCK_OPS;
		r = sys_bpf(BPF_PROG_DETACH, &a);
		if (r < 0) {
			fprintf(err, "podwire-node bgp-nodelay: detaching program %u from %s: %s\n",
				ids[i], path, strerror(-r));
			return r;
		}
		detached++;
	}
	fprintf(out, "bgp-nodelay: %s %s\n", detached ? "detached from" : "was not attached to",
		path);
	return 0;
}

/* 0 when in effect (attached here or inherited), 1 when not. */
static int do_status(int cgfd, const char *path, FILE *out, FILE *err)
{
	int64_t here = find_ours(cgfd, false, err), eff;

	if (here < 0)
		return (int)here;
	eff = here ? here : find_ours(cgfd, true, err);
	if (eff < 0)
		return (int)eff;
	if (here)
		fprintf(out, "bgp-nodelay: attached to %s (program %lld)\n", path, (long long)here);
	else if (eff)
		fprintf(out, "bgp-nodelay: in effect on %s, inherited (program %lld)\n", path,
			(long long)eff);
	else
		fprintf(out, "bgp-nodelay: not in effect on %s\n", path);
	return eff ? 0 : 1;
}

static void nodelay_usage(FILE *f)
{
	fprintf(f, "usage: podwire-node bgp-nodelay attach|detach|status [--cgroup DIR]\n"
		   "Set TCP_NODELAY on every BGP connection (port 179) of the processes in a\n"
		   "cgroup v2 directory (default: this process's own cgroup) with a sock_ops\n"
		   "BPF program, so BIRD's UPDATEs are sent at once. attach is idempotent and\n"
		   "lasts until detach or the cgroup is removed; status exits 1 when the\n"
		   "program is not in effect.\n");
}

static const struct option nodelay_opts[] = {
    {"cgroup", required_argument, NULL, 'c'},
    {"help", no_argument, NULL, 'h'},
    {0},
};

int pwn_cmd_bgp_nodelay(int argc, char **argv, FILE *out, FILE *err)
{
	const char *cgroup = NULL, *action;
	_cleanup_close_ int cgfd = -1;
	char own[8192];
	int c, r;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:h", nodelay_opts, NULL)) != -1) {
		if (c == 'c')
			cgroup = optarg;
		else if (c == 'h') {
			nodelay_usage(out);
			return 0;
		} else {
			fprintf(err,
				"podwire-node bgp-nodelay: unknown or incomplete option '%s'\n",
				argv[optind - 1]);
			nodelay_usage(err);
			return 2;
		}
	}
	action = optind < argc ? argv[optind] : NULL;
	if (!action || optind + 1 < argc ||
	    (strcmp(action, "attach") != 0 && strcmp(action, "detach") != 0 &&
	     strcmp(action, "status") != 0)) {
		fprintf(err,
			"podwire-node bgp-nodelay: expected one of attach, detach, status%s%s%s\n",
			action ? ", got '" : "", action ? action : "", action ? "'" : "");
		nodelay_usage(err);
		return 2;
	}
	if (!cgroup) {
		if (own_cgroup(own, sizeof(own), err) < 0)
			return 1;
		cgroup = own;
	}
	cgfd = open_cgroup(cgroup, err);
	if (cgfd < 0)
		return 1;
	if (strcmp(action, "attach") == 0)
		r = do_attach(cgfd, cgroup, out, err);
	else if (strcmp(action, "detach") == 0)
		r = do_detach(cgfd, cgroup, out, err);
	else
		return do_status(cgfd, cgroup, out, err) == 0 ? 0 : 1;
	return r < 0 ? 1 : 0;
}
