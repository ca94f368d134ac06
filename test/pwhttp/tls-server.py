#!/usr/bin/env python3
"""TLS server for test/pwhttp/tls-test.sh: answers the first request of each
connection on 127.0.0.1 ("ok", or "re" when the client resumed a TLS
session); when the client starts a second request on it, the
connection is reset (SO_LINGER 0), so the client's writes meet a closed
socket. Prints its port first."""
import socket
import ssl
import struct
import sys

ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[1], sys.argv[2])
if len(sys.argv) > 4:  # a client CA: a client certificate is required
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_verify_locations(sys.argv[4])
lsock = socket.socket()
lsock.bind(("127.0.0.1", 0))
lsock.listen(4)
print(lsock.getsockname()[1], flush=True)
for _ in range(int(sys.argv[3])):
    conn, _ = lsock.accept()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no Nagle wait after a ticket
    try:
        tls = ctx.wrap_socket(conn, server_side=True)
        tls.recv(65536)
        body = b"re" if tls.session_reused else b"ok"
        tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n" + body)
        tls.recv(1)  # the second request begins (or the client closes)
        tls.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        tls.close()
    except (ssl.SSLError, OSError):
        conn.close()
