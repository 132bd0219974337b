#!/usr/bin/env python3
"""A stand-in for one kubelet (and a scheduler), for measuring API specs that need a Ready node.

Usage: [BIND=1] fake-node.py KUBECONFIG [NODE_NAME] [SECONDS]

Measurement aid only (run by hand, beside run.sh, against this server or upstream's alike): it runs
no containers. Through the API, as the admin of KUBECONFIG, it
- registers Node NODE_NAME (default fake-node) with a Ready condition and capacity, removes the
  taints admission or a node controller put on it, and renews its heartbeat every 10 s;
- with BIND=1, binds every pending pod (no spec.nodeName) to it through pods/binding, as a scheduler
  would (this server does not serve pods/binding: then the pod stays unbound);
- reports each pod bound to it, or unbound, as Running and Ready through pods/status, as a kubelet
  would (but one pod per host port, as a scheduler places them on one node) (without BIND, for both servers alike, no pod is bound: a PDB or an eviction reads only
  the pod's phase and Ready condition);
- confirms the deletion (grace period 0) of each of its pods that has a deletionTimestamp.
So a pod is "running" a second or two after it is created: the specs that only wait for Ready pods
(PodDisruptionBudget status, evictions) or for a Ready schedulable node (PriorityClass endpoints)
can run, while specs needing real containers (a Job's pods exiting, logs, exec) still cannot.
Stops after SECONDS (default 3600) or on SIGTERM; deletes the Node on the way out.
"""
import json, os, signal, sys, time, urllib.error, urllib.request
import kubeconfig_lib
from datetime import datetime, timezone

SERVER, TOKEN, CTX = kubeconfig_lib.load(sys.argv[1])
NODE = sys.argv[2] if len(sys.argv) > 2 else "fake-node"
DEADLINE = time.time() + (float(sys.argv[3]) if len(sys.argv) > 3 else 3600)
BIND = os.environ.get("BIND") == "1"
stopping = False


def on_term(*_):
    global stopping
    stopping = True


signal.signal(signal.SIGTERM, on_term)
signal.signal(signal.SIGINT, on_term)


def call(method, path, body=None, content_type="application/json"):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(SERVER + path, data=data, method=method)
    req.add_header("Authorization", "Bearer " + TOKEN)
    req.add_header("Accept", "application/json")
    if data is not None:
        req.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(req, context=CTX, timeout=10) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")
    except (urllib.error.URLError, TimeoutError, ConnectionError):
        return 0, {}


def now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


CAPACITY = {"cpu": "64", "memory": "256Gi", "pods": "250", "ephemeral-storage": "500Gi"}


def node_status():
    t = now()
    cond = lambda typ, status, reason: {"type": typ, "status": status, "reason": reason, "message": reason,
                                        "lastHeartbeatTime": t, "lastTransitionTime": t}
    return {"capacity": CAPACITY, "allocatable": CAPACITY,
            "conditions": [cond("Ready", "True", "KubeletReady"), cond("MemoryPressure", "False", "KubeletHasSufficientMemory"),
                           cond("DiskPressure", "False", "KubeletHasNoDiskPressure"), cond("PIDPressure", "False", "KubeletHasSufficientPID"),
                           cond("NetworkUnavailable", "False", "RouteCreated")],
            "addresses": [{"type": "InternalIP", "address": "127.0.0.1"}, {"type": "Hostname", "address": NODE}],
            "nodeInfo": {"kubeletVersion": "v1.24.0", "kubeProxyVersion": "v1.24.0", "operatingSystem": "linux", "architecture": "amd64",
                         "containerRuntimeVersion": "fake://1", "osImage": "fake", "kernelVersion": "0", "machineID": "", "systemUUID": "", "bootID": ""}}


def heartbeat():
    code, node = call("GET", f"/api/v1/nodes/{NODE}")
    if code == 404:
        call("POST", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node",
                                       "metadata": {"name": NODE, "labels": {"kubernetes.io/hostname": NODE, "kubernetes.io/os": "linux"}}})
        code, node = call("GET", f"/api/v1/nodes/{NODE}")
    if code != 200:
        return
    if node.get("spec", {}).get("taints"):
        call("PATCH", f"/api/v1/nodes/{NODE}", {"spec": {"taints": None}}, "application/merge-patch+json")
    call("PATCH", f"/api/v1/nodes/{NODE}/status", {"status": node_status()}, "application/merge-patch+json")


def host_ports(pod):
    return {(p.get("protocol", "TCP"), p["hostPort"]) for c in pod.get("spec", {}).get("containers", [])
            for p in c.get("ports") or [] if p.get("hostPort")}


def tend_pods():
    code, pods = call("GET", "/api/v1/pods")
    if code != 200:
        return
    items = pods.get("items", [])
    # As the scheduler would: one running pod per host port on this one node (the exclusive
    # eviction specs rely on a ReplicaSet with a hostPort not fitting).
    used = set()
    for pod in items:
        if pod.get("status", {}).get("phase") == "Running" and not pod["metadata"].get("deletionTimestamp"):
            used |= host_ports(pod)
    for pod in items:
        meta, spec, status = pod["metadata"], pod.get("spec", {}), pod.get("status", {})
        ns, name = meta["namespace"], meta["name"]
        node = spec.get("nodeName")
        if meta.get("deletionTimestamp"):
            if node == NODE:
                call("DELETE", f"/api/v1/namespaces/{ns}/pods/{name}",
                     {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0, "preconditions": {"uid": meta["uid"]}})
            continue
        if not node and BIND:
            code, _ = call("POST", f"/api/v1/namespaces/{ns}/pods/{name}/binding",
                           {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name, "namespace": ns}, "target": {"kind": "Node", "name": NODE}})
            if code == 201:
                continue
        if (node and node != NODE) or status.get("phase") in ("Running", "Succeeded", "Failed"):
            continue
        if host_ports(pod) & used:
            continue
        used |= host_ports(pod)
        t = now()
        cond = lambda typ: {"type": typ, "status": "True", "lastProbeTime": None, "lastTransitionTime": t}
        containers = [{"name": c["name"], "image": c.get("image", ""), "imageID": "", "ready": True, "restartCount": 0, "started": True,
                       "state": {"running": {"startedAt": t}}} for c in spec.get("containers", [])]
        call("PATCH", f"/api/v1/namespaces/{ns}/pods/{name}/status",
             {"status": {"phase": "Running", "hostIP": "127.0.0.1", "podIP": "10.244.0.10", "podIPs": [{"ip": "10.244.0.10"}],
                         "startTime": t, "conditions": [cond("Initialized"), cond("Ready"), cond("ContainersReady"), cond("PodScheduled")],
                         "containerStatuses": containers}}, "application/merge-patch+json")


last_beat = 0.0
while not stopping and time.time() < DEADLINE:
    if time.time() - last_beat >= 10:
        heartbeat()
        last_beat = time.time()
    tend_pods()
    time.sleep(1)
call("DELETE", f"/api/v1/nodes/{NODE}")
