"""Shared reader of e2e.test results (JUnit report, or progress lines of a cut-short run)."""

def load_results(out):
    """name -> ("passed" | "failed" | "skipped", first failure line) from OUT_DIR's JUnit report, or,
    when the run was cut short before the report was written, from the progress lines in e2e.log."""
    import glob, json, os, re
    import xml.etree.ElementTree as ET
    results = {}
    groups = sorted(glob.glob(os.path.join(out, "group-*", "")))
    if groups and not glob.glob(os.path.join(out, "junit_*.xml")):
        # run-fresh.sh --groups N: one run.sh per group-K/ sub-directory, each with its own specs.
        # A group's JUnit report also lists every other spec, as skipped: keep what ran.
        for group in groups:
            for name, result in load_results(group).items():
                if result[0] != "skipped" or name not in results:
                    results[name] = result
        return results
    paths = sorted(glob.glob(os.path.join(out, "junit_*.xml")))
    for path in paths:
        for case in ET.parse(path).getroot().iter("testcase"):
            name = case.get("name", "")
            failure = case.find("failure")
            if failure is None:
                failure = case.find("error")
            if failure is not None:
                text = (failure.get("message") or failure.text or "").strip()
                results[name] = ("failed", first_cause(text.splitlines()))
            elif case.find("skipped") is not None:
                results.setdefault(name, ("skipped", ""))
            else:
                results[name] = ("passed", "")
    if paths:
        return results
    log = os.path.join(out, "e2e.log")
    if not os.path.exists(log):
        return results
    lines = open(log, errors="replace").read().splitlines()
    for i, line in enumerate(lines):
        m = re.match(r'^(?:\u2022)?(\{"msg":"(PASSED|FAILED) .*)$', line.lstrip("\u2022"))
        if not m:
            continue
        try:
            msg = json.loads(m.group(1))["msg"]
        except ValueError:
            continue
        state, name = msg.split(" ", 1)
        if state == "PASSED":
            results[name] = ("passed", "")
        else:
            # The failure text is printed a few lines above: the first line after the [It] location.
            first = ""
            for j in range(i - 1, max(0, i - 60), -1):
                if lines[j].startswith("\u2022 Failure"):
                    block = [l.strip() for l in lines[j:i] if l.strip()]
                    loc = next((k for k, l in enumerate(block) if l.endswith("[It]") or "[BeforeEach]" in l or "[AfterEach]" in l), None)
                    if loc is not None:
                        first = first_cause(block[loc + 1:])
                    break
            results[name] = ("failed", first[:300])
    return results


def first_cause(lines):
    """The failure's own words: skips source locations and Go type noise; an "Unexpected error:"
    line is followed by the error text (`s: "..."`, or the line that names it)."""
    import re
    kept = [l.strip() for l in lines if l.strip() and not l.strip().startswith("/") and not l.strip().startswith("<")]
    out = []
    for l in kept:
        l = re.sub(r"^[A-Z][a-z]{2} \d+ [\d:.]+: (FAIL: )?", "", l)
        if l in ("{", "}", "occurred", "Expected", "to equal"):
            continue
        out.append(l)
        if not (l.endswith(":") or l.startswith("Unexpected error")) or len(out) >= 3:
            break
    return " ".join(out)[:300]
