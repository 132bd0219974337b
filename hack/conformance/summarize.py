#!/usr/bin/env python3
"""Summarize an e2e.test JUnit report against the reference spec list.

Usage: summarize.py OUT_DIR [REFERENCE_FILE]
Reads OUT_DIR/junit_*.xml; prints counts, then PASSED / FAILED (with the first line of each failure
message) / NOT RUN spec names of the reference set. Specs outside the reference set that ran are
listed apart. Setup failures (BeforeSuite, AfterSuite) are reported as failures of their own.
"""
import os, sys

out = sys.argv[1]
ref_file = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "conformance-reference.txt")
reference = [l.rstrip("\n") for l in open(ref_file) if l.strip()]
ref_set = set(reference)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_lib import load_results  # noqa: E402

results = load_results(out)

passed = [n for n in reference if results.get(n, ("",))[0] == "passed"]
failed = [n for n in reference if results.get(n, ("",))[0] == "failed"]
not_run = [n for n in reference if results.get(n, ("",))[0] not in ("passed", "failed")]
extra = sorted(n for n, (s, _) in results.items() if n not in ref_set and s == "failed")

print(f"reference specs: {len(reference)}  passed: {len(passed)}  failed: {len(failed)}  not run: {len(not_run)}")
print("\nPASSED")
for n in passed:
    print("  " + n)
print("\nFAILED")
for n in failed:
    print("  " + n)
    print("      " + results[n][1])
print("\nNOT RUN (absent from the report, or skipped)")
for n in not_run:
    print("  " + n)
if extra:
    print("\nOTHER FAILURES (outside the reference set: suite setup/teardown)")
    for n in extra:
        print("  " + n)
        print("      " + results[n][1])
