#!/usr/bin/env python3
"""Split the reference set into N groups, for concurrent e2e.test processes (run-fresh.sh --groups N).

Usage: split-focus.py N OUT_DIR
Deals the reference specs (conformance-reference.txt, or the file $REFERENCE_FILE names, in file order) round-robin into N groups, so
neighbouring specs of one area (the CronJob ones, the Garbage collector ones) land in different groups.
Specs marked [Serial] (they change cluster-wide state, e.g. the default IngressClass) all go to group 1,
so they run one after another, never beside each other; each other spec goes to the first of the shortest groups.
Writes OUT_DIR/group-K/reference.txt (the group's spec names) and OUT_DIR/group-K/focus.txt (a regex
selecting exactly them, written as conformance-focus.txt is), for K = 1..N.
"""
import os, re, sys

n = int(sys.argv[1])
out = sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
ref_file = os.environ.get("REFERENCE_FILE") or os.path.join(here, "conformance-reference.txt")
reference = [l.rstrip("\n") for l in open(ref_file) if l.strip()]
if n < 1 or n > len(reference):
    sys.exit(f"--groups must be between 1 and {len(reference)}")


def escape(name):
    # The characters conformance-focus.txt escapes, and any other regex metacharacter.
    return re.sub(r"([\\.^$*+?()\[\]{}|])", r"\\\1", name)


serial = [name for name in reference if "[Serial]" in name]
groups = [serial if k == 0 else [] for k in range(n)]
for name in reference:
    if "[Serial]" not in name:
        min(groups, key=len).append(name)  # the first of the shortest groups: round-robin once they are even

order = {name: i for i, name in enumerate(reference)}
for k in range(n):
    names = sorted(groups[k], key=order.__getitem__)  # each group in file order
    d = os.path.join(out, f"group-{k + 1}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "reference.txt"), "w") as f:
        f.write("".join(name + "\n" for name in names))
    with open(os.path.join(d, "focus.txt"), "w") as f:
        f.write("(" + "|".join(escape(name) for name in names) + ")$")
