#!/usr/bin/python3
"""Checks podwire's Kubernetes manifests (conf/kubernetes/*.yaml).

  check-manifests.py check DIR        every manifest parses and is complete
  check-manifests.py self-test DIR    the checks reject broken variants
  check-manifests.py argv DIR --daemonset NAME --container NAME
        --image-root R --host-root H --work W [--watch N]
                                      the container's command line as the
                                      node would run it, paths mapped into
                                      temp dirs (JSON {argv, env} on stdout)

What "complete" means is in the check_* functions: the fields each kind
requires, references between objects (volumes, ConfigMaps, service
accounts, RBAC subjects, NAD names in pod annotations, ConfigMap keys named
in container arguments), JSON inside ConfigMaps and NADs, the node config
keys tools/podwire-node/README.md documents, and multinet's RBAC being
exactly the minimal set (get pods, patch pods/status, get NADs).
"""
import copy
import glob
import json
import os
import re
import sys

import yaml


class Bad(Exception):
    pass


def need(cond, where, msg):
    if not cond:
        raise Bad(f"{where}: {msg}")


API = {
    "DaemonSet": "apps/v1",
    "ConfigMap": "v1",
    "ServiceAccount": "v1",
    "Pod": "v1",
    "Secret": "v1",
    "ClusterRole": "rbac.authorization.k8s.io/v1",
    "ClusterRoleBinding": "rbac.authorization.k8s.io/v1",
    "CustomResourceDefinition": "apiextensions.k8s.io/v1",
    "NetworkAttachmentDefinition": "k8s.cni.cncf.io/v1",
}
NAMESPACED = {"DaemonSet", "ConfigMap", "ServiceAccount", "Pod", "Secret",
              "NetworkAttachmentDefinition"}
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
# Every CNI type podwire ships (README.md).
PODWIRE_TYPES = {"bridge", "host-local", "static", "bgp-route", "sriov-rdma",
                 "multinet", "cluster-ipam", "loopback", "portmap", "tuning",
                 "bandwidth", "macvlan"}
# podwire-node's node config (tools/podwire-node/README.md).
NODE_KEYS = {"nodeName", "routerId", "asNumber", "peers", "routeReflector",
             "birdSocket", "exportMode", "etcd", "etcdPrefix"}
NODE_REQUIRED = {"nodeName", "routerId", "asNumber", "birdSocket", "exportMode"}
ETCD_KEYS = {"endpoints", "caFile", "certFile", "keyFile", "timeoutMs"}
# multinet: get pods, patch pods/status, get network-attachment-definitions.
MULTINET_RULES = {("", "pods", "get"), ("", "pods/status", "patch"),
                  ("k8s.cni.cncf.io", "network-attachment-definitions", "get")}
FIELD_PATHS = {"spec.nodeName", "status.hostIP", "metadata.name",
               "metadata.namespace", "status.podIP"}
VOLUME_SOURCES = {"hostPath", "configMap", "secret", "emptyDir", "projected"}


def load(d):
    docs = []
    files = sorted(glob.glob(os.path.join(d, "*.yaml")))
    need(files, d, "no *.yaml manifest")
    for f in files:
        with open(f) as fh:
            try:
                parsed = [x for x in yaml.safe_load_all(fh) if x is not None]
            except yaml.YAMLError as e:
                raise Bad(f"{f}: does not parse: {e}")
        need(parsed, f, "no document")
        for i, doc in enumerate(parsed):
            docs.append((f"{os.path.basename(f)}#{i}", doc))
    return docs


def check_common(where, doc):
    need(isinstance(doc, dict), where, "not a mapping")
    kind = doc.get("kind")
    need(kind in API, where, f"unknown kind {kind!r}")
    need(doc.get("apiVersion") == API[kind], where,
         f"{kind} needs apiVersion {API[kind]}, has {doc.get('apiVersion')!r}")
    meta = doc.get("metadata")
    need(isinstance(meta, dict), where, "no metadata")
    name = meta.get("name")
    need(isinstance(name, str) and DNS_SUBDOMAIN.match(name), where,
         f"metadata.name {name!r} is not a DNS subdomain")
    if kind in NAMESPACED:
        need(isinstance(meta.get("namespace"), str), where,
             f"{kind} {name} has no metadata.namespace")
    else:
        need("namespace" not in meta, where, f"{kind} {name} is cluster-scoped")


def index(docs):
    idx = {}
    for where, doc in docs:
        m = doc["metadata"]
        key = (doc["kind"], m.get("namespace"), m["name"])
        need(key not in idx, where, f"duplicate {key}")
        idx[key] = doc
    return idx


def parse_json(where, text):
    need(isinstance(text, str), where, "not a string")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise Bad(f"{where}: invalid JSON: {e}")


def plugin_types(where, conf):
    """The types of a CNI conf or conflist, ipam included."""
    if "plugins" in conf:
        plugins = conf["plugins"]
        need(isinstance(plugins, list) and plugins, where, "plugins is empty")
    else:
        plugins = [conf]
    types = []
    for p in plugins:
        need(isinstance(p, dict) and isinstance(p.get("type"), str), where,
             "a plugin without \"type\"")
        types.append(p["type"])
        if isinstance(p.get("ipam"), dict) and p["ipam"]:
            need(isinstance(p["ipam"].get("type"), str), where, "ipam without type")
            types.append(p["ipam"]["type"])
    for t in types:
        need(t in PODWIRE_TYPES, where, f"type {t!r} is not a podwire plugin")
    return types


def check_cni(where, conf):
    need(isinstance(conf, dict), where, "not a JSON object")
    need(isinstance(conf.get("cniVersion"), str), where, "no cniVersion")
    need(isinstance(conf.get("name"), str) and conf["name"], where, "no name")
    return plugin_types(where, conf)


def check_node_config(where, conf):
    need(isinstance(conf, dict), where, "node config is not an object")
    unknown = set(conf) - NODE_KEYS
    need(not unknown, where, f"unknown node config keys {sorted(unknown)}")
    missing = NODE_REQUIRED - set(conf)
    need(not missing, where, f"node config lacks {sorted(missing)}")
    need(conf["exportMode"] in ("pods", "blocks"), where,
         f"exportMode {conf['exportMode']!r} is not pods or blocks")
    asn = conf["asNumber"]
    need(isinstance(asn, int) and 0 < asn < 2**32, where, f"asNumber {asn!r}")
    need(isinstance(conf.get("peers", []), list), where, "peers is not a list")
    for p in conf.get("peers", []):
        need(isinstance(p, dict) and "address" in p, where, "peer without address")
    if "etcd" in conf:
        need(isinstance(conf["etcd"], dict), where, "etcd is not an object")
        unknown = set(conf["etcd"]) - ETCD_KEYS
        need(not unknown, where, f"unknown etcd keys {sorted(unknown)}")
        need(conf["etcd"].get("endpoints"), where, "etcd without endpoints")


def capabilities(plugins):
    """The capabilities the plugins declare true."""
    return {c for p in plugins for c, on in p.get("capabilities", {}).items() if on}


def check_multinet_caps(where, conf, data):
    """multinet hands the runtime's capability args to the cluster network
    only if it declares them itself: it must declare what that list does."""
    for p in conf.get("plugins", [conf]):
        cluster = p.get("clusterNetwork") if p.get("type") == "multinet" else None
        key = os.path.basename(cluster) if isinstance(cluster, str) else None
        if key not in data:
            continue
        listed = json.loads(data[key])
        want = capabilities(listed.get("plugins", [listed]))
        need(capabilities([p]) == want, where,
             f"multinet declares capabilities {sorted(capabilities([p]))}, its cluster "
             f"network {key} {sorted(want)}: the runtime would not send the rest")


def check_configmap(where, doc):
    data = doc.get("data")
    need(isinstance(data, dict) and data, where, "ConfigMap without data")
    for key, val in data.items():
        w = f"{where} data[{key}]"
        need(isinstance(val, str), w, "value is not a string")
        if key.endswith((".conflist", ".conf")):
            check_cni(w, parse_json(w, val))
            check_multinet_caps(w, parse_json(w, val), data)
        elif key.startswith("node.json"):
            check_node_config(w, parse_json(w, val))
        elif key.endswith(".json"):
            parse_json(w, val)


def check_container(where, c, volumes, names):
    need(isinstance(c, dict), where, "container is not a mapping")
    name = c.get("name")
    need(isinstance(name, str) and DNS_LABEL.match(name), where,
         f"container name {name!r}")
    need(name not in names, where, f"two containers named {name}")
    names.add(name)
    need(isinstance(c.get("image"), str) and c["image"], where,
         f"container {name} has no image")
    for key in ("command", "args"):
        if key in c:
            need(isinstance(c[key], list) and
                 all(isinstance(a, str) for a in c[key]), where,
                 f"container {name}: {key} must be a list of strings")
    for m in c.get("volumeMounts", []):
        need(m.get("name") in volumes, where,
             f"container {name} mounts unknown volume {m.get('name')!r}")
        need(str(m.get("mountPath", "")).startswith("/"), where,
             f"container {name}: mountPath {m.get('mountPath')!r}")
    for e in c.get("env", []):
        need(isinstance(e.get("name"), str), where, "env without name")
        ref = e.get("valueFrom", {}).get("fieldRef")
        if ref:
            need(ref.get("fieldPath") in FIELD_PATHS, where,
                 f"env {e['name']}: fieldPath {ref.get('fieldPath')!r}")


def check_pod_spec(where, spec, idx, ns):
    need(isinstance(spec, dict), where, "no pod spec")
    volumes = {}
    for v in spec.get("volumes", []):
        src = VOLUME_SOURCES & set(v)
        need(len(src) == 1, where, f"volume {v.get('name')!r} needs one source")
        volumes[v["name"]] = v
        cm = v.get("configMap")
        if cm:
            need(("ConfigMap", ns, cm.get("name")) in idx, where,
                 f"volume {v['name']}: no ConfigMap {cm.get('name')!r} in {ns}")
        hp = v.get("hostPath")
        if hp:
            need(str(hp.get("path", "")).startswith("/"), where,
                 f"volume {v['name']}: hostPath {hp.get('path')!r}")
    need(spec.get("containers"), where, "no containers")
    names = set()
    for c in spec.get("initContainers", []) + spec["containers"]:
        check_container(where, c, volumes, names)
    sa = spec.get("serviceAccountName")
    if sa:
        need(("ServiceAccount", ns, sa) in idx, where,
             f"no ServiceAccount {sa!r} in {ns}")
    return volumes


def config_args(c, volumes, idx, ns):
    """ConfigMap files named in a container's arguments must exist."""
    for mount in c.get("volumeMounts", []):
        cm = volumes[mount["name"]].get("configMap")
        if not cm:
            continue
        data = idx[("ConfigMap", ns, cm["name"])]["data"]
        for arg in c.get("command", []) + c.get("args", []):
            for word in re.split(r"[\s=]", arg):
                if word.startswith(mount["mountPath"] + "/"):
                    key = word[len(mount["mountPath"]) + 1:]
                    need(key in data, f"container {c['name']}",
                         f"{word}: ConfigMap {cm['name']} has no key {key!r}")


def check_daemonset(where, doc, idx):
    ns = doc["metadata"]["namespace"]
    spec = doc.get("spec", {})
    sel = spec.get("selector", {}).get("matchLabels")
    need(isinstance(sel, dict) and sel, where, "no spec.selector.matchLabels")
    tmpl = spec.get("template", {})
    labels = tmpl.get("metadata", {}).get("labels", {})
    need(all(labels.get(k) == v for k, v in sel.items()), where,
         "selector does not match the template's labels")
    pod = tmpl.get("spec")
    volumes = check_pod_spec(where, pod, idx, ns)
    need(pod.get("hostNetwork") is True, where, "a node DaemonSet needs hostNetwork: true")
    tolerations = pod.get("tolerations", [])
    need(any(t.get("operator") == "Exists" and "key" not in t for t in tolerations),
         where, "must tolerate every taint (nodes are NotReady without CNI)")
    host_cni = {n for n, v in volumes.items()
                if v.get("hostPath", {}).get("path") in ("/opt/cni/bin", "/etc/cni/net.d")}
    for c in pod.get("initContainers", []) + pod["containers"]:
        config_args(c, volumes, idx, ns)
        if {m["name"] for m in c.get("volumeMounts", [])} & host_cni:
            need(c.get("securityContext", {}).get("privileged") is True, where,
                 f"container {c['name']} writes the node's CNI dirs: privileged")
    if host_cni:
        need(any(c.get("securityContext", {}).get("privileged") is True
                 for c in pod.get("initContainers", [])), where,
             "the install needs a privileged init container")


def check_crd(where, doc):
    spec = doc.get("spec", {})
    names = spec.get("names", {})
    for k in ("kind", "plural", "singular"):
        need(isinstance(names.get(k), str), where, f"spec.names.{k} missing")
    group = spec.get("group")
    need(isinstance(group, str) and "." in group, where, "spec.group")
    need(doc["metadata"]["name"] == f"{names['plural']}.{group}", where,
         "metadata.name must be <plural>.<group>")
    need(spec.get("scope") in ("Namespaced", "Cluster"), where, "spec.scope")
    versions = spec.get("versions", [])
    need(versions, where, "no versions")
    need(sum(1 for v in versions if v.get("storage") is True) == 1, where,
         "exactly one storage version")
    for v in versions:
        need(v.get("served") is True and isinstance(v.get("name"), str), where,
             "version without name or not served")
        need(v.get("schema", {}).get("openAPIV3Schema"), where,
             f"version {v.get('name')}: no openAPIV3Schema")


def check_nad(where, doc, idx):
    need(("CustomResourceDefinition", None,
          "network-attachment-definitions.k8s.cni.cncf.io") in idx, where,
         "the NetworkAttachmentDefinition CRD is not among the manifests")
    conf = parse_json(where + " spec.config", doc.get("spec", {}).get("config"))
    types = check_cni(where + " spec.config", conf)
    need(conf["name"] == doc["metadata"]["name"], where,
         f"config name {conf['name']!r} differs from the object's name")
    if "sriov-rdma" in types:
        ann = doc["metadata"].get("annotations", {})
        need(ann.get("k8s.v1.cni.cncf.io/resourceName"), where,
             "an SR-IOV network needs the k8s.v1.cni.cncf.io/resourceName annotation")
        need("CNIDeviceInfoFile" in capabilities([conf]), where,
             "an SR-IOV network declares the CNIDeviceInfoFile capability, or "
             "network-status has no device-info for it")


def rule_triples(where, rules):
    out = set()
    for r in rules:
        need(not r.get("resourceNames") and not r.get("nonResourceURLs"), where,
             "unexpected resourceNames/nonResourceURLs")
        for field in ("apiGroups", "resources", "verbs"):
            need(isinstance(r.get(field), list) and r[field], where, f"rule without {field}")
            need("*" not in r[field], where, f"wildcard in {field}")
        for g in r["apiGroups"]:
            for res in r["resources"]:
                for v in r["verbs"]:
                    out.add((g, res, v))
    return out


def check_rbac(where, doc, idx):
    if doc["kind"] == "ClusterRole":
        got = rule_triples(where, doc.get("rules", []))
        if doc["metadata"]["name"] == "podwire-multinet":
            need(got == MULTINET_RULES, where,
                 f"multinet's rules must be exactly {sorted(MULTINET_RULES)}, "
                 f"are {sorted(got)}")
        return
    ref = doc.get("roleRef", {})
    need(ref.get("kind") == "ClusterRole" and
         ref.get("apiGroup") == "rbac.authorization.k8s.io", where, "roleRef")
    need(("ClusterRole", None, ref.get("name")) in idx, where,
         f"roleRef names no ClusterRole {ref.get('name')!r}")
    subjects = doc.get("subjects", [])
    need(subjects, where, "no subjects")
    for s in subjects:
        need(s.get("kind") == "ServiceAccount", where, "subject is not a ServiceAccount")
        need(("ServiceAccount", s.get("namespace"), s.get("name")) in idx, where,
             f"no ServiceAccount {s.get('namespace')}/{s.get('name')}")


def check_pod(where, doc, idx):
    ns = doc["metadata"]["namespace"]
    check_pod_spec(where, doc.get("spec"), idx, ns)
    nets = doc["metadata"].get("annotations", {}).get("k8s.v1.cni.cncf.io/networks", "")
    for n in filter(None, (x.strip() for x in nets.split(","))):
        name = n.split("@")[0]
        nns, _, nname = name.rpartition("/")
        need(("NetworkAttachmentDefinition", nns or ns, nname) in idx, where,
             f"network {n!r}: no NetworkAttachmentDefinition {nns or ns}/{nname}")


def check_all(docs):
    for where, doc in docs:
        check_common(where, doc)
    idx = index(docs)
    for where, doc in docs:
        kind = doc["kind"]
        if kind == "ConfigMap":
            check_configmap(where, doc)
        elif kind == "DaemonSet":
            check_daemonset(where, doc, idx)
        elif kind == "CustomResourceDefinition":
            check_crd(where, doc)
        elif kind == "NetworkAttachmentDefinition":
            check_nad(where, doc, idx)
        elif kind in ("ClusterRole", "ClusterRoleBinding"):
            check_rbac(where, doc, idx)
        elif kind == "Pod":
            check_pod(where, doc, idx)
    kinds = {d["kind"] for _, d in docs}
    for k in ("DaemonSet", "ConfigMap", "ServiceAccount", "ClusterRole",
              "ClusterRoleBinding", "CustomResourceDefinition",
              "NetworkAttachmentDefinition"):
        need(k in kinds, "manifests", f"no {k}")
    return idx


def find(docs, kind, name):
    for _, d in docs:
        if d["kind"] == kind and d["metadata"]["name"] == name:
            return d
    raise Bad(f"no {kind} {name}")


def ds_pod(docs, name):
    return find(docs, "DaemonSet", name)["spec"]["template"]["spec"]


def cm_set(docs, name, key, fn):
    cm = find(docs, "ConfigMap", name)
    cm["data"][key] = json.dumps(fn(json.loads(cm["data"][key])))


def _role(docs):
    return find(docs, "ClusterRole", "podwire-multinet")["rules"]


def _nad_conf(docs, name, fn):
    nad = find(docs, "NetworkAttachmentDefinition", name)
    nad["spec"]["config"] = json.dumps(fn(json.loads(nad["spec"]["config"])))


def _del(d, k):
    d.pop(k)
    return d


# Each variant breaks one rule; check_all must reject every one of them.
MUTATIONS = [
    ("list verb for multinet", lambda d: _role(d)[0]["verbs"].append("list")),
    ("watch on NADs", lambda d: _role(d)[2]["verbs"].append("watch")),
    ("secrets for multinet", lambda d: _role(d).append(
        {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]})),
    ("wildcard resource", lambda d: _role(d)[0]["resources"].__setitem__(0, "*")),
    ("patch on pods", lambda d: _role(d)[0]["verbs"].append("patch")),
    ("update instead of patch on pods/status", lambda d: _role(d)[1]["verbs"]
        .__setitem__(0, "update")),
    ("the status patch granted on pods", lambda d: _role(d)[1]["resources"]
        .__setitem__(0, "pods")),
    ("no hostNetwork", lambda d: ds_pod(d, "podwire-install").pop("hostNetwork")),
    ("unprivileged init", lambda d: ds_pod(d, "podwire-install")["initContainers"][0]
        .pop("securityContext")),
    ("selector mismatch", lambda d: find(d, "DaemonSet", "podwire-install")["spec"]
        ["selector"]["matchLabels"].update({"app.kubernetes.io/name": "other"})),
    ("mount of no volume", lambda d: ds_pod(d, "podwire-node")["containers"][0]
        ["volumeMounts"].append({"name": "nope", "mountPath": "/x"})),
    ("missing ConfigMap key", lambda d: find(d, "ConfigMap", "podwire-cni-config")
        ["data"].pop("00-multinet.conflist")),
    ("container without image", lambda d: ds_pod(d, "podwire-node")["containers"][1]
        .pop("image")),
    ("bad conflist JSON", lambda d: find(d, "ConfigMap", "podwire-cni-config")["data"]
        .__setitem__("10-podwire-bridge.conflist", "{\"plugins\": [")),
    ("unknown plugin type", lambda d: cm_set(d, "podwire-cni-config",
        "10-podwire-bridge.conflist", lambda c: {**c, "plugins": [{"type": "flannel"}]})),
    ("unknown node key", lambda d: cm_set(d, "podwire-node-config", "node.json.in",
        lambda c: {**c, "asn": 1})),
    ("node config without routerId", lambda d: cm_set(d, "podwire-node-config",
        "node.json.in", lambda c: _del(c, "routerId"))),
    ("bad exportMode", lambda d: cm_set(d, "podwire-node-config", "node.json.in",
        lambda c: {**c, "exportMode": "all"})),
    ("rail without resourceName", lambda d: find(d, "NetworkAttachmentDefinition",
        "rdma-rail-0")["metadata"].pop("annotations")),
    ("rail without CNIDeviceInfoFile", lambda d: _nad_conf(d, "rdma-rail-1",
        lambda c: _del(c, "capabilities"))),
    ("multinet without the cluster network's capabilities", lambda d: cm_set(d,
        "podwire-cni-config", "00-multinet.conflist", lambda c: {**c, "plugins": [
            _del(c["plugins"][0], "capabilities")]})),
    ("NAD name differs", lambda d: _nad_conf(d, "macvlan-storage",
        lambda c: {**c, "name": "other"})),
    ("CRD two storage versions", lambda d: find(d, "CustomResourceDefinition",
        "network-attachment-definitions.k8s.cni.cncf.io")["spec"]["versions"].append(
        {"name": "v2", "served": True, "storage": True,
         "schema": {"openAPIV3Schema": {"type": "object"}}})),
    ("binding to a missing SA", lambda d: find(d, "ClusterRoleBinding", "podwire-multinet")
        ["subjects"][0].update({"name": "ghost"})),
    ("pod asks for an unknown network", lambda d: find(d, "Pod", "trainer-0")["metadata"]
        ["annotations"].update({"k8s.v1.cni.cncf.io/networks": "rdma-rail-9"})),
    ("bad apiVersion", lambda d: find(d, "DaemonSet", "podwire-node")
        .update({"apiVersion": "extensions/v1beta1"})),
    ("no tolerations", lambda d: ds_pod(d, "podwire-install").pop("tolerations")),
    ("bad fieldPath", lambda d: ds_pod(d, "podwire-node")["initContainers"][0]["env"][0]
        ["valueFrom"]["fieldRef"].update({"fieldPath": "spec.host"})),
]


def self_test(docs):
    check_all(copy.deepcopy(docs))
    for desc, mutate in MUTATIONS:
        variant = copy.deepcopy(docs)
        mutate(variant)
        try:
            check_all(variant)
        except Bad as e:
            print(f"ok: rejected {desc}: {e}")
            continue
        raise Bad(f"self-test: the variant \"{desc}\" was accepted")
    print(f"ok: {len(MUTATIONS)} broken variants rejected")


# ---- the node's view of a container (for e2e/550) ----

def map_path(word, mounts, image_root):
    for mount_path, host in mounts:
        if word == mount_path or word.startswith(mount_path + "/"):
            return host + word[len(mount_path):]
    if word.startswith("/"):
        return image_root + word
    return word


def materialize(pod, idx, ns, host_root, work):
    """Volumes as the kubelet would provide them, under host_root/work."""
    out = {}
    for v in pod.get("volumes", []):
        if "hostPath" in v:
            out[v["name"]] = host_root + v["hostPath"]["path"]
        else:
            d = os.path.join(work, "volumes", v["name"])
            os.makedirs(d, exist_ok=True)
            if "configMap" in v:
                for k, val in idx[("ConfigMap", ns, v["configMap"]["name"])]["data"].items():
                    with open(os.path.join(d, k), "w") as f:
                        f.write(val)
            out[v["name"]] = d
    return out


def container_argv(docs, a):
    idx = check_all(docs)
    ds = find(docs, "DaemonSet", a["--daemonset"])
    ns = ds["metadata"]["namespace"]
    pod = ds["spec"]["template"]["spec"]
    vols = materialize(pod, idx, ns, a["--host-root"], a["--work"])
    c = [x for x in pod.get("initContainers", []) + pod["containers"]
         if x["name"] == a["--container"]]
    need(c, a["--daemonset"], f"no container {a['--container']}")
    c = c[0]
    mounts = sorted(((m["mountPath"], vols[m["name"]]) for m in c.get("volumeMounts", [])),
                    key=lambda m: -len(m[0]))
    argv = []
    for arg in c.get("command", []) + c.get("args", []):
        argv.append("=".join(map_path(w, mounts, a["--image-root"]) for w in arg.split("=")))
    if "--watch" in a and "--watch" in argv:
        argv[argv.index("--watch") + 1] = a["--watch"]
    env = {"NODE_NAME": "node-1.example", "NODE_IP": "192.0.2.10",
           "KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}
    env = {e["name"]: env.get(e["name"], "") for e in c.get("env", [])} | {
        k: env[k] for k in ("KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT")}
    if pod.get("serviceAccountName") and pod.get("automountServiceAccountToken", True):
        sa = os.path.join(a["--work"], "serviceaccount")
        os.makedirs(sa, exist_ok=True)
        for f, val in (("token", "token-1"), ("ca.crt", "-----BEGIN CERTIFICATE-----\n")):
            if not os.path.exists(os.path.join(sa, f)):
                with open(os.path.join(sa, f), "w") as fh:
                    fh.write(val)
        argv += ["--sa-dir", sa]
    return {"argv": argv, "env": env}


def main(argv):
    if len(argv) < 3 or argv[1] not in ("check", "self-test", "argv"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        docs = load(argv[2])
        if argv[1] == "check":
            check_all(docs)
            print(f"ok: {len(docs)} documents in {argv[2]}")
        elif argv[1] == "self-test":
            self_test(docs)
        else:
            opts = dict(zip(argv[3::2], argv[4::2]))
            for k in ("--daemonset", "--container", "--image-root", "--host-root", "--work"):
                need(k in opts, "argv", f"{k} is required")
            print(json.dumps(container_argv(docs, opts)))
    except Bad as e:
        print(f"check-manifests: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
