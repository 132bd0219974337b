#!/bin/bash
# Usage: start-kcm.sh [DATA_DIR]   (default ./data: the data dir of `make run`)
# Starts upstream's kube-controller-manager ($KCM_BINARY, default $ANCHOR_DIR/bin/kube-controller-manager)
# beside this server, unmodified, as a client of DATA_DIR/admin.kubeconfig. pid -> DATA_DIR/kcm.pid,
# log -> DATA_DIR/kcm.log. Waits (max 60 s) for its /healthz. Stop it with stop-kcm.sh.
#
# It runs only the controllers this server lacks (KCM_CONTROLLERS overrides the list); the server keeps
# its own namespace, serviceaccount, root-ca-cert-publisher, csr*, bootstrapsigner and tokencleaner.
# Leader election uses a Lease in cluster-system (this server has no kube-system); its serving port
# authenticates and authorizes through this server's TokenReview and SubjectAccessReview APIs.
set -euo pipefail
DATA="$(cd "${1:-./data}" && pwd)"
ANCHOR_DIR="${ANCHOR_DIR:-/work/anchor}"
KCM="${KCM_BINARY:-$ANCHOR_DIR/bin/kube-controller-manager}"
PORT="${KCM_PORT:-10257}"
KCFG="$DATA/admin.kubeconfig"
[[ -x "$KCM" ]] || { echo "no $KCM: build it with hack/conformance/build-upstream.sh" >&2; exit 2; }
[[ -f "$KCFG" && -f "$DATA/certs/sa.key" && -f "$DATA/certs/ca.crt" ]] || { echo "$DATA is not a started server's data dir" >&2; exit 2; }
if [[ -f "$DATA/kcm.pid" ]] && kill -0 "$(cat "$DATA/kcm.pid")" 2>/dev/null; then
  echo "kube-controller-manager already running (pid $(cat "$DATA/kcm.pid"))" >&2; exit 1
fi
# Upstream's controllers this server does not run itself (see README.md beside this script).
DEFAULT_CONTROLLERS=deployment,replicaset,replicationcontroller,statefulset,daemonset,job,cronjob,ttl-after-finished,endpoint,endpointslice,endpointslicemirroring,garbagecollector,resourcequota,disruption,podgc,serviceaccount-token
nohup "$KCM" \
  --kubeconfig="$KCFG" \
  --authentication-kubeconfig="$KCFG" --authorization-kubeconfig="$KCFG" --authentication-skip-lookup=true \
  --bind-address=127.0.0.1 --secure-port="$PORT" \
  --leader-elect=true --leader-elect-resource-lock=leases --leader-elect-resource-namespace=cluster-system \
  --leader-elect-lease-duration=120s --leader-elect-renew-deadline=100s --leader-elect-retry-period=5s \
  --controllers="${KCM_CONTROLLERS:-$DEFAULT_CONTROLLERS}" \
  --use-service-account-credentials=false \
  --service-account-private-key-file="$DATA/certs/sa.key" \
  --root-ca-file="$DATA/certs/ca.crt" \
  --concurrent-gc-syncs=5 ${KCM_ARGS:-} \
  > "$DATA/kcm.log" 2>&1 < /dev/null &
PID=$!
echo "$PID" > "$DATA/kcm.pid"
for _ in $(seq 1 120); do
  if ! kill -0 "$PID" 2>/dev/null; then
    echo "kube-controller-manager exited early; last log lines:" >&2; tail -30 "$DATA/kcm.log" >&2; rm -f "$DATA/kcm.pid"; exit 1
  fi
  if [[ "$(curl -sk --max-time 2 "https://127.0.0.1:$PORT/healthz" 2>/dev/null)" == ok ]]; then
    echo "kube-controller-manager healthy (pid $PID, https://127.0.0.1:$PORT); log: $DATA/kcm.log"; exit 0
  fi
  sleep 0.5
done
echo "kube-controller-manager not healthy after 60 s (pid $PID still running; stop-kcm.sh stops it)" >&2
tail -30 "$DATA/kcm.log" >&2
exit 1
