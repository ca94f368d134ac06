#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A minimal CRI client (runtime.v1 RuntimeService) for podwire's e2e tests.

It drives a container runtime the way the kubelet does, through the CRI gRPC
socket, for the calls that set up and tear down a pod's network:

    cri.py --sock S version
    cri.py --sock S run --name N --namespace NS --uid U [--annotation K=V]...
        prints the sandbox ID
    cri.py --sock S stop ID          StopPodSandbox (CNI DEL with the netns)
    cri.py --sock S rm ID            RemovePodSandbox (containerd: DEL again)
    cri.py --sock S status ID        the pod IPs, one a line; --json: the
                                     whole status with containerd's verbose
                                     info (cniResult, netns path) parsed
    cri.py --sock S list             ID, state, namespace/name, one a line

The messages come from runtime-v1.proto beside this file (CRI field numbers),
compiled with grpc_tools.protoc into a descriptor set at run time (--cache DIR
keeps it between calls), so no generated code is kept in the tree. Every call
has a deadline (--timeout, seconds). Exit status: 0 success, 1 the runtime
answered with an error (its message on stderr), 3 deadline exceeded or the
socket unreachable, 2 usage. --rpc-ms FILE writes the call's duration in
milliseconds (measured around the RPC alone, also when it fails), for tests
that bound how long the runtime takes.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import grpc
from google.protobuf import descriptor_pb2, json_format, message_factory

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = "runtime-v1.proto"
SERVICE = "/runtime.v1.RuntimeService/"
EXIT_ERROR, EXIT_USAGE, EXIT_UNAVAILABLE = 1, 2, 3


def compile_proto(out):
    """protoc runtime-v1.proto into the descriptor set OUT."""
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", HERE, "--include_imports",
                    "--descriptor_set_out=" + out, PROTO], check=True)


def descriptor_set(cache):
    """The compiled descriptor set's bytes, from CACHE when it is current."""
    src = os.path.join(HERE, PROTO)
    if cache:
        os.makedirs(cache, exist_ok=True)
        path = os.path.join(cache, "runtime-v1.pb")
        if not os.path.exists(path) or os.path.getmtime(path) < os.path.getmtime(src):
            tmp = tempfile.mkdtemp(dir=cache)
            try:
                compile_proto(os.path.join(tmp, "pb"))
                os.replace(os.path.join(tmp, "pb"), path)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        with open(path, "rb") as f:
            return f.read()
    tmp = tempfile.mkdtemp(prefix="cri-proto.")
    try:
        compile_proto(os.path.join(tmp, "pb"))
        with open(os.path.join(tmp, "pb"), "rb") as f:
            return f.read()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def message_classes(cache):
    fds = descriptor_pb2.FileDescriptorSet.FromString(descriptor_set(cache))
    classes = message_factory.GetMessages(list(fds.file))
    return {name.rsplit(".", 1)[1]: cls for name, cls in classes.items()
            if name.startswith("runtime.v1.")}


class Client:
    def __init__(self, sock, timeout, cache):
        self.m = message_classes(cache)
        self.timeout = timeout
        self.channel = grpc.insecure_channel("unix://" + os.path.abspath(sock))
        self.elapsed_ms = 0.0

    def call(self, method, request):
        response_cls = self.m[method + "Response"]
        stub = self.channel.unary_unary(SERVICE + method,
                                        request_serializer=lambda r: r.SerializeToString(),
                                        response_deserializer=response_cls.FromString)
        start = time.monotonic()
        try:
            return stub(request, timeout=self.timeout, wait_for_ready=True)
        finally:
            self.elapsed_ms += (time.monotonic() - start) * 1000

    def version(self):
        return self.call("Version", self.m["VersionRequest"](version="v1"))

    def run(self, name, namespace, uid, annotations, labels):
        meta = self.m["PodSandboxMetadata"](name=name, namespace=namespace, uid=uid)
        config = self.m["PodSandboxConfig"](metadata=meta, hostname=name,
                                             annotations=annotations, labels=labels)
        return self.call("RunPodSandbox",
                         self.m["RunPodSandboxRequest"](config=config)).pod_sandbox_id

    def stop(self, sid):
        self.call("StopPodSandbox", self.m["StopPodSandboxRequest"](pod_sandbox_id=sid))

    def remove(self, sid):
        self.call("RemovePodSandbox", self.m["RemovePodSandboxRequest"](pod_sandbox_id=sid))

    def status(self, sid, verbose):
        return self.call("PodSandboxStatus",
                         self.m["PodSandboxStatusRequest"](pod_sandbox_id=sid, verbose=verbose))

    def list(self):
        return self.call("ListPodSandbox", self.m["ListPodSandboxRequest"]()).items


def key_values(pairs, flag):
    out = {}
    for p in pairs or []:
        k, sep, v = p.partition("=")
        if not sep or not k:
            print(f"cri.py: {flag} wants KEY=VALUE, got {p!r}", file=sys.stderr)
            sys.exit(EXIT_USAGE)
        out[k] = v
    return out


def pod_ips(status):
    net = status.network
    return [ip for ip in [net.ip] + [a.ip for a in net.additional_ips] if ip]


def status_json(resp):
    """The status as JSON, with each verbose info value (JSON text) parsed."""
    doc = json_format.MessageToDict(resp.status, preserving_proto_field_name=True)
    info = {}
    for k, v in resp.info.items():
        try:
            info[k] = json.loads(v)
        except ValueError:
            info[k] = v
    doc["info"] = info
    return json.dumps(doc, sort_keys=True)


def run_command(client, a):
    if a.cmd == "version":
        v = client.version()
        print(f"{v.runtime_name} {v.runtime_version} {v.runtime_api_version}")
    elif a.cmd == "run":
        print(client.run(a.name, a.namespace, a.uid, key_values(a.annotation, "--annotation"),
                         key_values(a.label, "--label")))
    elif a.cmd == "stop":
        client.stop(a.id)
    elif a.cmd == "rm":
        client.remove(a.id)
    elif a.cmd == "status":
        resp = client.status(a.id, a.json)
        if a.json:
            print(status_json(resp))
        else:
            for ip in pod_ips(resp.status):
                print(ip)
    elif a.cmd == "list":
        state = client.m["PodSandboxStatus"].DESCRIPTOR.fields_by_name["state"].enum_type
        for p in client.list():
            print(p.id, state.values_by_number[p.state].name,
                  f"{p.metadata.namespace}/{p.metadata.name}")


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sock", required=True, help="the runtime's CRI socket (unix)")
    ap.add_argument("--timeout", type=float, default=30.0, help="deadline of each call, seconds")
    ap.add_argument("--cache", default=os.environ.get("PODWIRE_CRI_CACHE"),
                    help="directory keeping the compiled proto (default: none)")
    ap.add_argument("--rpc-ms", metavar="FILE",
                    help="write how long the RPC took (ms, without this program's start-up)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("version")
    run = sub.add_parser("run")
    run.add_argument("--name", required=True)
    run.add_argument("--namespace", required=True)
    run.add_argument("--uid", required=True)
    run.add_argument("--annotation", action="append", metavar="K=V")
    run.add_argument("--label", action="append", metavar="K=V")
    for cmd in ("stop", "rm"):
        sub.add_parser(cmd).add_argument("id")
    st = sub.add_parser("status")
    st.add_argument("id")
    st.add_argument("--json", action="store_true")
    sub.add_parser("list")
    return ap.parse_args(argv)


def main(argv):
    a = parse_args(argv)
    client = Client(a.sock, a.timeout, a.cache)
    try:
        run_command(client, a)
    except grpc.RpcError as e:
        code = e.code()
        print(f"cri.py {a.cmd}: {code.name}: {e.details()}", file=sys.stderr)
        unavailable = code in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE)
        return EXIT_UNAVAILABLE if unavailable else EXIT_ERROR
    finally:
        client.channel.close()
        if a.rpc_ms:
            with open(a.rpc_ms, "w") as f:
                f.write(f"{client.elapsed_ms:.0f}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
