#!/bin/bash
# Usage: run.sh KUBECONFIG [OUT_DIR]
# Runs the reference set of upstream's [Conformance] specs (conformance-focus.txt) with
# $ANCHOR_DIR/bin/e2e.test against the server KUBECONFIG reaches, then writes OUT_DIR/summary.txt
# (passed / failed / skipped spec names, with each failure's first message line) from the JUnit report.
# Env: ANCHOR_DIR (default /work/anchor), E2E_ARGS (extra e2e.test flags, e.g.
# --kube-api-content-type=application/json), FOCUS_FILE (default the reference regex), REFERENCE_FILE
# (the spec names summary.txt counts; default the whole reference set),
# TIMEOUT (default 90m), NICE (default 10). Exit code: 0 when every focused spec passed.
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
KCFG="${1:?usage: run.sh KUBECONFIG [OUT_DIR]}"
KCFG="$(cd "$(dirname "$KCFG")" && pwd)/$(basename "$KCFG")"
OUT="${2:-$PWD/conformance-$(date -u +%Y%m%dT%H%M%SZ)}"
ANCHOR_DIR="${ANCHOR_DIR:-/work/anchor}"
E2E="$ANCHOR_DIR/bin/e2e.test"
KUBECTL="$ANCHOR_DIR/bin/kubectl"
FOCUS_FILE="${FOCUS_FILE:-$HERE/conformance-focus.txt}"
[[ -x "$E2E" ]] || { echo "no $E2E: build it with hack/conformance/build-upstream.sh" >&2; exit 2; }
[[ -x "$KUBECTL" ]] || KUBECTL="$(command -v kubectl)"
mkdir -p "$OUT"
echo "e2e.test -> $OUT (log: $OUT/e2e.log)"
# e2e.test runs its specs serially from this one process; `timeout` bounds the whole run.
# shellcheck disable=SC2086
timeout --kill-after=30s "${TIMEOUT:-90m}" nice -n "${NICE:-10}" "$E2E" \
  --kubeconfig="$KCFG" --kubectl-path="$KUBECTL" \
  --provider=skeleton --allowed-not-ready-nodes=-1 --num-nodes=0 --minStartupPods=-1 \
  --e2e-verify-service-account=false \
  --report-dir="$OUT" \
  --ginkgo.focus="$(cat "$FOCUS_FILE")" --ginkgo.noColor ${E2E_ARGS:-} \
  > "$OUT/e2e.log" 2>&1
RC=$?
echo "e2e.test exited $RC"
python3 "$HERE/summarize.py" "$OUT" ${REFERENCE_FILE:+"$REFERENCE_FILE"} | tee "$OUT/summary.txt"
exit $RC
