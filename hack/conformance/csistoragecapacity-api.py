#!/usr/bin/env python3
"""The steps of upstream's v1.24 e2e spec "[sig-storage] CSIStorageCapacity should support
CSIStorageCapacities API operations" (test/e2e/storage/csistoragecapacity.go, added after the
v1.24.0-alpha.1 source e2e.test is built from), over plain HTTP, for any server.

Usage: csistoragecapacity-api.py KUBECONFIG [VERSION]   (VERSION: v1, the default, or v1beta1)

Discovery lists storage.k8s.io/VERSION and csistoragecapacities; in a fresh namespace: create
(a second create of the same name is 409), watch in the namespace and across namespaces, create a
third, get, list in the namespace and across (3 each, by label), merge patch and update an
annotation, both watches see the change, delete one (2 left), delete the collection (none left).
Prints each step; exit code 0 when every step held. Deletes its namespace at the end.
"""
import json, sys, threading, time, urllib.error, urllib.request, uuid
import kubeconfig_lib

SERVER, TOKEN, CTX = kubeconfig_lib.load(sys.argv[1])
VERSION = sys.argv[2] if len(sys.argv) > 2 else "v1"
GV = f"storage.k8s.io/{VERSION}"


def call(method, path, body=None, content_type="application/json", stream=False):
    req = urllib.request.Request(SERVER + path, data=None if body is None else json.dumps(body).encode(), method=method)
    req.add_header("Authorization", "Bearer " + TOKEN)
    req.add_header("Accept", "application/json")
    if body is not None:
        req.add_header("Content-Type", content_type)
    try:
        r = urllib.request.urlopen(req, context=CTX, timeout=30)
        return (r.status, r) if stream else (r.status, json.loads(r.read() or b"{}"))
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


failures = []


def check(what, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else f": {detail}"))
    if not ok:
        failures.append(what)


def watch(path, seen):
    code, r = call("GET", path, stream=True)
    if code != 200:
        return
    for line in r:
        if line.strip():
            ev = json.loads(line)
            seen.append((ev["type"], ev["object"].get("metadata", {}).get("annotations") or {}))


ns = "csc-" + uuid.uuid4().hex[:8]
label = ns
base = f"/apis/{GV}/namespaces/{ns}/csistoragecapacities"
check("namespace created", call("POST", "/api/v1/namespaces", {"metadata": {"name": ns}})[0] == 201)
try:
    groups = call("GET", "/apis")[1]
    check(f"/apis lists {GV}", any(v["groupVersion"] == GV for g in groups.get("groups", []) for v in g["versions"]))
    check(f"/apis/storage.k8s.io lists {VERSION}", any(v["version"] == VERSION for v in call("GET", "/apis/storage.k8s.io")[1].get("versions", [])))
    check(f"/apis/{GV} lists csistoragecapacities", any(r["name"] == "csistoragecapacities" for r in call("GET", f"/apis/{GV}")[1].get("resources", [])))
    obj = lambda suffix: {"apiVersion": GV, "kind": "CSIStorageCapacity", "metadata": {"name": ns + suffix, "labels": {"test": label}}, "storageClassName": "e2e.example.com"}
    code, created = call("POST", base, obj("-csc1"))
    check("create", code == 201, code)
    code, dup = call("POST", base, obj("-csc1"))
    check("second create is 409 AlreadyExists", code == 409 and dup.get("reason") == "AlreadyExists", (code, dup.get("reason")))
    check("create csc2", call("POST", base, obj("-csc2"))[0] == 201)
    seen_ns, seen_all = [], []
    rv = created["metadata"]["resourceVersion"]
    for path, seen in ((f"{base}?watch=1&labelSelector=test%3D{label}&resourceVersion={rv}&timeoutSeconds=20", seen_ns),
                       (f"/apis/{GV}/csistoragecapacities?watch=1&labelSelector=test%3D{label}&resourceVersion={rv}&timeoutSeconds=20", seen_all)):
        threading.Thread(target=watch, args=(path, seen), daemon=True).start()
    check("create csc3", call("POST", base, obj("-csc3"))[0] == 201)
    code, got = call("GET", f"{base}/{ns}-csc1")
    check("get returns the created uid", code == 200 and got["metadata"]["uid"] == created["metadata"]["uid"])
    check("list in namespace: 3", len(call("GET", f"{base}?labelSelector=test%3D{label}")[1].get("items", [])) == 3)
    check("list across namespaces: 3", len(call("GET", f"/apis/{GV}/csistoragecapacities?labelSelector=test%3D{label}")[1].get("items", [])) == 3)
    code, patched = call("PATCH", f"{base}/{ns}-csc1", {"metadata": {"annotations": {"patched": "true"}}}, "application/merge-patch+json")
    check("merge patch sets the annotation", code == 200 and patched["metadata"]["annotations"].get("patched") == "true", code)
    patched["metadata"]["annotations"]["updated"] = "true"
    code, updated = call("PUT", f"{base}/{ns}-csc1", patched)
    check("update sets the annotation", code == 200 and updated["metadata"]["annotations"].get("updated") == "true", code)
    deadline = time.time() + 15
    while time.time() < deadline and not all(any(t == "MODIFIED" and a.get("updated") == "true" for t, a in s) for s in (seen_ns, seen_all)):
        time.sleep(0.2)
    for what, s in (("in namespace", seen_ns), ("across namespaces", seen_all)):
        check(f"watch {what}: ADDED, then MODIFIED with patched and updated",
              any(t == "ADDED" for t, _ in s) and any(t == "MODIFIED" and a.get("patched") == "true" for t, a in s)
              and any(t == "MODIFIED" and a.get("updated") == "true" for t, a in s), [t for t, _ in s])
    check("delete", call("DELETE", f"{base}/{ns}-csc1")[0] == 200)
    check("get after delete is 404", call("GET", f"{base}/{ns}-csc1")[0] == 404)
    check("list after delete: 2", len(call("GET", f"{base}?labelSelector=test%3D{label}")[1].get("items", [])) == 2)
    check("delete collection", call("DELETE", f"{base}?labelSelector=test%3D{label}")[0] == 200)
    check("list after delete collection: 0", len(call("GET", f"{base}?labelSelector=test%3D{label}")[1].get("items", [])) == 0)
finally:
    call("DELETE", f"/api/v1/namespaces/{ns}")
print("PASSED" if not failures else f"FAILED ({len(failures)} steps)")
sys.exit(1 if failures else 0)
