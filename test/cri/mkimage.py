#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Pack one static binary into an OCI image layout tarball.

    mkimage.py --binary FILE --name REF --out TAR

The image has one uncompressed layer holding FILE as /pause (mode 0755),
entrypoint /pause, platform linux/<this machine's architecture>, and an index
entry annotated with REF, so `ctr images import` stores it under that name.
The CRI e2e tests use it as containerd's sandbox_image: no registry needed.
"""
import argparse
import hashlib
import io
import json
import os
import platform
import sys
import tarfile

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_CONFIG = "application/vnd.oci.image.config.v1+json"
OCI_LAYER = "application/vnd.oci.image.layer.v1.tar"
GOARCH = {"x86_64": "amd64", "aarch64": "arm64", "armv7l": "arm", "ppc64le": "ppc64le",
          "s390x": "s390x", "riscv64": "riscv64"}


def layer_tar(binary):
    """An uncompressed tar with the binary as /pause; fixed owner and mtime."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        with open(binary, "rb") as f:
            data = f.read()
        info = tarfile.TarInfo("pause")
        info.size = len(data)
        info.mode = 0o755
        info.mtime = 0
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def descriptor(media_type, blob, annotations=None, platform_=None):
    d = {"mediaType": media_type, "digest": "sha256:" + hashlib.sha256(blob).hexdigest(),
         "size": len(blob)}
    if platform_:
        d["platform"] = platform_
    if annotations:
        d["annotations"] = annotations
    return d


def to_json(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


def build(binary, name):
    """The image's blobs and index: returns (blobs, index bytes)."""
    arch = GOARCH.get(platform.machine())
    if not arch:
        sys.exit(f"mkimage: unknown machine {platform.machine()!r}")
    plat = {"architecture": arch, "os": "linux"}
    layer = layer_tar(binary)
    layer_desc = descriptor(OCI_LAYER, layer)
    config = to_json({**plat, "config": {"Entrypoint": ["/pause"]},
                      "rootfs": {"type": "layers", "diff_ids": [layer_desc["digest"]]}})
    manifest = to_json({"schemaVersion": 2, "mediaType": OCI_MANIFEST,
                        "config": descriptor(OCI_CONFIG, config), "layers": [layer_desc]})
    tag = name.rsplit(":", 1)[1] if ":" in name.rsplit("/", 1)[-1] else "latest"
    index = to_json({"schemaVersion": 2, "manifests": [descriptor(
        OCI_MANIFEST, manifest, platform_=plat,
        annotations={"io.containerd.image.name": name,
                     "org.opencontainers.image.ref.name": tag})]})
    return [layer, config, manifest], index


def write_layout(out, blobs, index):
    with tarfile.open(out, "w") as tar:
        def add(path, data):
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
        add("oci-layout", to_json({"imageLayoutVersion": "1.0.0"}))
        for blob in blobs:
            add("blobs/sha256/" + hashlib.sha256(blob).hexdigest(), blob)
        add("index.json", index)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", required=True)
    ap.add_argument("--name", required=True, help="image reference, e.g. podwire.test/pause:1")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if not os.access(a.binary, os.R_OK):
        sys.exit(f"mkimage: cannot read --binary {a.binary!r}")
    blobs, index = build(a.binary, a.name)
    write_layout(a.out, blobs, index)


if __name__ == "__main__":
    main()
