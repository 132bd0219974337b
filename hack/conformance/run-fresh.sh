#!/bin/bash
# Usage: run-fresh.sh OUT_DIR [--with-kcm] [--groups N]
# One whole measurement: starts a fresh replica of this checkout's build (`make run`'s flags via hack/make-run.sh, a temporary
# data dir, port $PORT or 16443), optionally upstream's kube-controller-manager beside it (start-kcm.sh),
# runs the reference specs (run.sh, E2E_ARGS passed through), then stops what it started, by pid.
# Results: OUT_DIR/summary.txt, OUT_DIR/e2e.log, OUT_DIR/server.log, OUT_DIR/kcm.log.
# --groups N (default 1): split the reference specs into N groups (split-focus.py; [Serial] ones in group 1) and run
# one e2e.test per group at the same time against the same server, each into OUT_DIR/group-K/
# (e2e.log, summary.txt of its own specs); OUT_DIR/summary.txt then counts all of them. Without KCM
# most failing specs wait 5-10 minutes for a controller, so one process takes about 90 minutes.
# REFERENCE_FILE (spec names, one a line) runs a subset instead: split with --groups, or with one
# process give FOCUS_FILE too (split-focus.py 1 DIR writes both).
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="${1:?usage: run-fresh.sh OUT_DIR [--with-kcm] [--groups N]}"
shift
WITH_KCM=""
GROUPS_N=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --with-kcm) WITH_KCM=--with-kcm; shift ;;
    --groups) GROUPS_N="${2:?--groups needs a number}"; shift 2 ;;
    --groups=*) GROUPS_N="${1#--groups=}"; shift ;;
    *) echo "unknown argument $1 (usage: run-fresh.sh OUT_DIR [--with-kcm] [--groups N])" >&2; exit 2 ;;
  esac
done
[[ "$GROUPS_N" =~ ^[1-9][0-9]*$ ]] || { echo "--groups must be a positive number" >&2; exit 2; }
PORT="${PORT:-16443}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
DATA="$(mktemp -d /tmp/conformance-data.XXXXXX)"
# With upstream's kube-controller-manager beside it, its garbage collector collects: ours is turned off.
[[ "$WITH_KCM" == --with-kcm ]] && SERVER_ARGS="--controllers=*,bootstrapsigner,tokencleaner,-garbagecollector ${SERVER_ARGS:-}"
[[ -f "$ROOT/packages/server/dist/src/main.js" ]] || { echo "build first (make build)" >&2; exit 2; }
if [[ -f "$ROOT/hack/make-run.sh" ]]; then
  # shellcheck disable=SC2086
  bash "$ROOT/hack/make-run.sh" "$DATA" "$PORT" --log-level warn ${SERVER_ARGS:-} > "$OUT/server.log" 2>&1 < /dev/null &
else # checkouts from before hack/make-run.sh: the same flags
  # shellcheck disable=SC2086
  node "$ROOT/packages/server/dist/src/main.js" --data-dir "$DATA" --secure-port "$PORT" --bind-address 127.0.0.1 \
    --enable-bootstrap-token-auth --node-join-bindings --authorization-mode=Node,RBAC \
    --controllers='*,bootstrapsigner,tokencleaner' --log-level warn ${SERVER_ARGS:-} > "$OUT/server.log" 2>&1 < /dev/null &
fi
SERVER_PID=$!
cleanup() {
  [[ "$WITH_KCM" == --with-kcm ]] && bash "$HERE/stop-kcm.sh" "$DATA" >/dev/null && cp "$DATA/kcm.log" "$OUT/kcm.log" 2>/dev/null
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID"
    for _ in $(seq 1 150); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$SERVER_PID" 2>/dev/null && kill -9 "$SERVER_PID"
  fi
  rm -rf "$DATA"
}
trap cleanup EXIT
for _ in $(seq 1 120); do
  [[ -f "$DATA/admin.kubeconfig" ]] && grep -q "listening on" "$OUT/server.log" 2>/dev/null && break
  kill -0 "$SERVER_PID" 2>/dev/null || { echo "server exited:" >&2; tail -20 "$OUT/server.log" >&2; exit 1; }
  sleep 0.5
done
if [[ "$WITH_KCM" == --with-kcm ]]; then
  KCM_PORT="${KCM_PORT:-10357}" bash "$HERE/start-kcm.sh" "$DATA" || exit 1
fi
if [[ "$GROUPS_N" -eq 1 ]]; then
  bash "$HERE/run.sh" "$DATA/admin.kubeconfig" "$OUT"
  exit $?
fi
python3 "$HERE/split-focus.py" "$GROUPS_N" "$OUT" || exit 2
GROUP_PIDS=()
for K in $(seq 1 "$GROUPS_N"); do
  G="$OUT/group-$K"
  FOCUS_FILE="$G/focus.txt" REFERENCE_FILE="$G/reference.txt" \
    bash "$HERE/run.sh" "$DATA/admin.kubeconfig" "$G" > "$G/run.out" 2>&1 < /dev/null &
  GROUP_PIDS+=($!)
done
echo "$GROUPS_N e2e.test groups -> $OUT/group-{1..$GROUPS_N} (pids ${GROUP_PIDS[*]})"
RC=0
for P in "${GROUP_PIDS[@]}"; do wait "$P" || RC=1; done
python3 "$HERE/summarize.py" "$OUT" ${REFERENCE_FILE:+"$REFERENCE_FILE"} | tee "$OUT/summary.txt"
exit $RC
