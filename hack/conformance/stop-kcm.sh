#!/bin/bash
# Usage: stop-kcm.sh [DATA_DIR]  (default ./data). Stops only the pid start-kcm.sh recorded.
set -uo pipefail
DATA="${1:-./data}"
[[ -f "$DATA/kcm.pid" ]] || { echo "no $DATA/kcm.pid; nothing to stop"; exit 0; }
PID="$(cat "$DATA/kcm.pid")"
if kill -0 "$PID" 2>/dev/null; then
  kill "$PID"
  for _ in $(seq 1 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$PID" 2>/dev/null && kill -9 "$PID"
fi
rm -f "$DATA/kcm.pid"
echo "kube-controller-manager (pid $PID) stopped"
