#!/usr/bin/env python3
"""Markdown table of the reference specs across runs.

Usage: compare.py LABEL=OUT_DIR [LABEL=OUT_DIR ...]
Each OUT_DIR holds a run.sh report (junit_*.xml). Prints one row per reference spec with
pass / FAIL / - (not run) per run, then the totals.
"""
import os, sys

here = os.path.dirname(os.path.abspath(__file__))
reference = [l.rstrip("\n") for l in open(os.path.join(here, "conformance-reference.txt")) if l.strip()]
sys.path.insert(0, here)
from results_lib import load_results  # noqa: E402

runs = []
for arg in sys.argv[1:]:
    label, out = arg.split("=", 1)
    runs.append((label, {n: ("pass" if s == "passed" else "FAIL") for n, (s, _) in load_results(out).items() if s != "skipped"}))

print("| spec | " + " | ".join(l for l, _ in runs) + " |")
print("| --- | " + " | ".join("---" for _ in runs) + " |")
for name in reference:
    short = name.replace(" [Conformance]", "")
    print(f"| {short} | " + " | ".join(r.get(name, "-") for _, r in runs) + " |")
print("| **passed** | " + " | ".join(f"**{sum(1 for n in reference if r.get(n) == 'pass')}/{len(reference)}**" for _, r in runs) + " |")
