#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A kube-apiserver stand-in for multinet's tests.

HTTPS only (server certificate and key given by the test, which generates
them with openssl), bearer-token auth (and optionally client certificates
signed by --client-ca), pods and NetworkAttachmentDefinitions served from
fixture files:

    <dir>/pods/<namespace>/<name>.json
    <dir>/nads/<namespace>/<name>.json

GET returns them; PATCH (application/merge-patch+json or
application/strategic-merge-patch+json) merges into the pod and PUT replaces
it, on /api/v1/namespaces/<ns>/pods/<name> and .../status, writing the file
back so tests read the result. Every request is logged as one JSON line
(method, path, status, content type, client port, whether the TLS session
was resumed, body) to --log.

With --rbac FILE (a Kubernetes manifest, e.g. conf/kubernetes/multinet-rbac.yaml)
the authenticated client holds the rules of FILE's ClusterRoles and nothing
more: a request whose verb (GET get, PATCH patch, PUT update) on its resource
(pods, pods/status, network-attachment-definitions) no rule grants is refused
with 403 Forbidden, as the real apiserver's RBAC authorizer refuses it.

Control: a file <dir>/fail holding "N [CODE]" makes the next N requests
fail with CODE (default 500). The test stops the server by PID. The bound
port (port 0 = a free one) is written to --port-file once listening.
"""
import argparse
import json
import os
import re
import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
POD_RE = re.compile(r"^/api/v1/namespaces/([a-z0-9-]+)/pods/([a-z0-9.-]+)(/status)?$")
NAD_RE = re.compile(
    r"^/apis/k8s\.cni\.cncf\.io/v1/namespaces/([a-z0-9-]+)/"
    r"network-attachment-definitions/([a-z0-9.-]+)$")
VERBS = {"GET": "get", "PATCH": "patch", "PUT": "update", "POST": "create",
         "DELETE": "delete"}


def load_rbac(path):
    """The (apiGroup, resource, verb) triples the ClusterRoles of path grant."""
    import yaml  # only with --rbac
    grants = set()
    with open(path) as f:
        for doc in yaml.safe_load_all(f):
            if not doc or doc.get("kind") != "ClusterRole":
                continue
            for r in doc.get("rules", []):
                for g in r.get("apiGroups", []):
                    for res in r.get("resources", []):
                        for v in r.get("verbs", []):
                            grants.add((g, res, v))
    return grants


def merge_patch(target, patch):
    """RFC 7386 JSON merge patch (strategic merge is the same for maps)."""
    if not isinstance(patch, dict):
        return patch
    if not isinstance(target, dict):
        target = {}
    for k, v in patch.items():
        if v is None:
            target.pop(k, None)
        else:
            target[k] = merge_patch(target.get(k), v)
    return target


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # no 40 ms delayed-ACK stalls on kept connections
    server_version = "podwire-apiserver-standin"

    def log_message(self, fmt, *args):  # quiet stderr
        pass

    def record(self, status, body):
        entry = {
            "method": self.command,
            "path": self.path,
            "status": status,
            "contentType": self.headers.get("Content-Type"),
            "clientPort": self.client_address[1],
            "tlsResumed": self.connection.session_reused,
            "body": body,
        }
        with LOCK:
            with open(self.server.opts.log, "a") as f:
                f.write(json.dumps(entry) + "\n")

    def reply(self, status, obj, req_body=None):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.record(status, req_body)

    def status_obj(self, code, reason, msg):
        return {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                "reason": reason, "message": msg, "code": code}

    def injected_failure(self):
        path = os.path.join(self.server.opts.dir, "fail")
        with LOCK:
            try:
                with open(path) as f:
                    parts = f.read().split()
            except FileNotFoundError:
                return None
            n = int(parts[0]) if parts else 0
            code = int(parts[1]) if len(parts) > 1 else 500
            if n <= 0:
                return None
            with open(path, "w") as f:
                f.write("%d %d\n" % (n - 1, code))
            return code

    def authorized(self):
        if self.server.opts.client_ca and self.connection.getpeercert():
            return True
        return self.headers.get("Authorization") == "Bearer " + self.server.opts.token

    def permitted(self):
        """With --rbac: does a rule grant this verb on this resource?"""
        grants = self.server.grants
        if grants is None:
            return True
        m = POD_RE.match(self.path)
        if m:
            want = ("", "pods/status" if m.group(3) else "pods")
        elif NAD_RE.match(self.path):
            want = ("k8s.cni.cncf.io", "network-attachment-definitions")
        else:
            return True  # not found either way
        return want + (VERBS.get(self.command),) in grants

    def fixture(self, kind, ns, name):
        return os.path.join(self.server.opts.dir, kind, ns, name + ".json")

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n).decode() if n else ""

    def handle_any(self):
        body = self.read_body() if self.command in ("PATCH", "PUT", "POST") else None
        code = self.injected_failure()
        if code:
            return self.reply(code, self.status_obj(code, "InternalError", "injected"), body)
        if not self.authorized():
            return self.reply(401, self.status_obj(401, "Unauthorized", "bad token"), body)
        if not self.permitted():
            return self.reply(403, self.status_obj(403, "Forbidden", "%s %s: not granted" % (
                VERBS.get(self.command, self.command), self.path)), body)
        m = POD_RE.match(self.path)
        if m:
            return self.pod(m.group(1), m.group(2), body)
        m = NAD_RE.match(self.path)
        if m and self.command == "GET":
            return self.get(self.fixture("nads", m.group(1), m.group(2)), body)
        return self.reply(404, self.status_obj(404, "NotFound", self.path), body)

    def get(self, path, body):
        try:
            with open(path) as f:
                text = f.read()
        except FileNotFoundError:
            return self.reply(404, self.status_obj(404, "NotFound", "not found"), body)
        data = text.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.record(200, body)

    def pod(self, ns, name, body):
        path = self.fixture("pods", ns, name)
        if self.command == "GET":
            return self.get(path, body)
        with LOCK:
            try:
                with open(path) as f:
                    obj = json.load(f)
            except FileNotFoundError:
                obj = None
            if obj is None:
                status, out = 404, self.status_obj(404, "NotFound", "pod not found")
            else:
                status, out = self.update(obj, body)
                if status == 200:
                    with open(path + ".tmp", "w") as f:
                        json.dump(out, f)
                    os.rename(path + ".tmp", path)
        return self.reply(status, out, body)

    def update(self, obj, body):
        try:
            doc = json.loads(body)
        except ValueError:
            return 400, self.status_obj(400, "BadRequest", "body is not JSON")
        ctype = (self.headers.get("Content-Type") or "").split(";")[0]
        if self.command == "PUT":
            if doc.get("metadata", {}).get("name") != obj["metadata"]["name"]:
                return 400, self.status_obj(400, "BadRequest", "name mismatch")
            return 200, doc
        if ctype not in ("application/merge-patch+json",
                         "application/strategic-merge-patch+json"):
            return 415, self.status_obj(415, "UnsupportedMediaType", ctype)
        return 200, merge_patch(obj, doc)

    do_GET = do_PATCH = do_PUT = do_POST = do_DELETE = handle_any


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--client-ca")
    ap.add_argument("--rbac")
    ap.add_argument("--log", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file", required=True)
    opts = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", opts.port), Handler)
    srv.daemon_threads = True
    srv.opts = opts
    srv.grants = load_rbac(opts.rbac) if opts.rbac else None
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(opts.cert, opts.key)
    if opts.client_ca:
        ctx.load_verify_locations(opts.client_ca)
        ctx.verify_mode = ssl.CERT_OPTIONAL
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    with open(opts.port_file + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(opts.port_file + ".tmp", opts.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
