#!/usr/bin/env python3
"""A broken etcd gateway on 127.0.0.1:PORT for the cluster-ipam e2e tests.

MODE silent:  accepts, reads, never answers (a frozen etcd).
MODE trickle: answers one byte every 50 ms, headers included, a body that
              never ends within any test's timeout (a slow link or proxy).
MODE reset:   reads the request, then resets the connection (RST).
Prints "ready" once listening.
"""
import socket
import struct
import sys
import threading
import time


def read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return False
        data += chunk
    return True


def silent(conn):
    while conn.recv(65536):
        pass


def trickle(conn):
    if not read_request(conn):
        return
    head = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100000\r\n\r\n")
    for i in range(100000):
        conn.sendall(head[i:i + 1] if i < len(head) else b" ")
        time.sleep(0.05)


def reset(conn):
    read_request(conn)
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def serve(conn, handler):
    try:
        handler(conn)
    except OSError:
        pass
    finally:
        conn.close()


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    handler = {"silent": silent, "trickle": trickle, "reset": reset}[mode]
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen(128)
    print("ready", flush=True)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn, handler), daemon=True).start()


main()
