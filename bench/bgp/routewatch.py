#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Print every IPv4 route change of the current netns as it happens.

One line per RTM_NEWROUTE / RTM_DELROUTE: "<realtime ns> new|del <dst>/<len> <proto>".
A netlink socket subscribed to the IPv4 route group, no polling. Runs until
killed; flushes every line (the bench reads the file afterwards). IPv4
only: the bench times the pods' /32s, and waking K Pythons for every IPv6
route too only took CPU from the BIRDs being measured (--ipv6 adds it).
"""
import ipaddress
import socket
import struct
import sys
import time

RTMGRP_IPV4_ROUTE = 0x40
RTMGRP_IPV6_ROUTE = 0x400
RTM_NEWROUTE, RTM_DELROUTE = 24, 25
RTA_DST = 1


def parse(buf, out):
    off = 0
    now = time.time_ns()
    while off + 16 <= len(buf):
        length, mtype, _flags, _seq, _pid = struct.unpack_from("=IHHII", buf, off)
        if length < 16:
            break
        if mtype in (RTM_NEWROUTE, RTM_DELROUTE):
            family, dst_len, _src, _tos, _table, proto, _scope, _type, _fl = \
                struct.unpack_from("=BBBBBBBBI", buf, off + 16)
            a = off + 16 + 12
            dst = None
            while a + 4 <= off + length:
                alen, atype = struct.unpack_from("=HH", buf, a)
                if alen < 4:
                    break
                if atype == RTA_DST:
                    raw = buf[a + 4:a + alen]
                    dst = str(ipaddress.ip_address(bytes(raw)))
                a += (alen + 3) & ~3
            if dst is not None:
                kind = "new" if mtype == RTM_NEWROUTE else "del"
                out.write("%d %s %s/%d %d\n" % (now, kind, dst, dst_len, proto))
        off += (length + 3) & ~3


def main():
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    groups = RTMGRP_IPV4_ROUTE | (RTMGRP_IPV6_ROUTE if "--ipv6" in sys.argv[1:] else 0)
    s.bind((0, groups))
    out = sys.stdout
    out.write("ready\n")
    out.flush()
    while True:
        parse(s.recv(1 << 20), out)
        out.flush()


if __name__ == "__main__":
    main()
