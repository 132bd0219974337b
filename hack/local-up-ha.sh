#!/usr/bin/env bash
# The HA control plane on one machine: a three-member etcd cluster, three API server replicas
# sharing one CA, serving certificate, service-account key pair and token file, and HAProxy in
# front (TCP pass-through, health checks on /readyz over HTTPS). Every process listens on
# loopback on free ports and logs to its own file under $HA_DIR (default _output/ha).
#   hack/local-up-ha.sh up     start everything, print the kubeconfig and a line per process
#   hack/local-up-ha.sh down   stop exactly what `up` started, by PID
#   hack/local-up-ha.sh restart <etcdN|replicaN|haproxy>   stop one process and start it again
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HA_DIR=${HA_DIR:-$ROOT/_output/ha}
PIDS=$HA_DIR/pids
MAIN=$ROOT/packages/server/dist/src/main.js

stop_all() {
  [ -f "$PIDS" ] || return 0
  # Replicas first (they release the controllers' Lease), then the load balancer, then etcd.
  for kind in replica haproxy etcd; do
    while read -r name pid; do
      case $name in "$kind"*) kill -TERM "$pid" 2>/dev/null || true ;; esac
    done < "$PIDS"
    while read -r name pid; do
      case $name in
        "$kind"*)
          for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
          kill -KILL "$pid" 2>/dev/null || true
          ;;
      esac
    done < "$PIDS"
  done
  rm -f "$PIDS"
}

# Starts a process in the background, logging to $HA_DIR/<name>.log, and records its PID and its
# command line (so `restart <name>` can start it again exactly as before).
launch() {
  local name=$1; shift
  printf '%q ' "$@" > "$HA_DIR/$name.cmd"
  "$@" >> "$HA_DIR/$name.log" 2>&1 &
  echo "$name $!" >> "$PIDS"
}

if [ "${1:-up}" = "restart" ]; then
  # hack/local-up-ha.sh restart <etcdN|replicaN|haproxy>: SIGTERM it if alive, start it again.
  name=${2:?which process}
  pid=$(awk -v n="$name" '$1 == n { print $2 }' "$PIDS")
  if [ -n "$pid" ]; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    grep -v "^$name " "$PIDS" > "$PIDS.tmp" || true
    mv "$PIDS.tmp" "$PIDS"
  fi
  eval "set -- $(cat "$HA_DIR/$name.cmd")"
  "$@" >> "$HA_DIR/$name.log" 2>&1 &
  echo "$name $!" >> "$PIDS"
  echo "$name restarted, pid $!"
  exit 0
fi

if [ "${1:-up}" = "down" ]; then
  stop_all
  echo "local HA cluster stopped"
  exit 0
fi

[ -f "$MAIN" ] || { echo "build first: make build" >&2; exit 1; }
command -v etcd >/dev/null || { echo "etcd is not on PATH (hack/ensure-tools.sh etcd=etcd-server installs it)" >&2; exit 1; }
command -v haproxy >/dev/null || { echo "haproxy is not on PATH (make up-ha installs it)" >&2; exit 1; }
if [ -f "$PIDS" ]; then echo "already up ($PIDS exists): make down-ha first" >&2; exit 1; fi
rm -rf "$HA_DIR" && mkdir -p "$HA_DIR"
# Anything started is stopped again if a later step fails.
trap 'echo "start-up failed; stopping what was started" >&2; stop_all' ERR

mapfile -t PORTS < <(node "$ROOT/hack/ha/ports.mjs" 10)
ETCD_CLIENT=("${PORTS[0]}" "${PORTS[1]}" "${PORTS[2]}")
ETCD_PEER=("${PORTS[3]}" "${PORTS[4]}" "${PORTS[5]}")
API=("${PORTS[6]}" "${PORTS[7]}" "${PORTS[8]}")
LB=${PORTS[9]}

CLUSTER=""
for i in 0 1 2; do CLUSTER+="${CLUSTER:+,}etcd$i=http://127.0.0.1:${ETCD_PEER[$i]}"; done
ENDPOINTS=""
for i in 0 1 2; do ENDPOINTS+="${ENDPOINTS:+,}http://127.0.0.1:${ETCD_CLIENT[$i]}"; done

for i in 0 1 2; do
  launch "etcd$i" etcd --name "etcd$i" --data-dir "$HA_DIR/etcd$i" \
    --listen-client-urls "http://127.0.0.1:${ETCD_CLIENT[$i]}" --advertise-client-urls "http://127.0.0.1:${ETCD_CLIENT[$i]}" \
    --listen-peer-urls "http://127.0.0.1:${ETCD_PEER[$i]}" --initial-advertise-peer-urls "http://127.0.0.1:${ETCD_PEER[$i]}" \
    --initial-cluster "$CLUSTER" --initial-cluster-state new --initial-cluster-token local-ha \
    --experimental-watch-progress-notify-interval=5s
done
for i in 0 1 2; do node "$ROOT/hack/ha/wait.mjs" "http://127.0.0.1:${ETCD_CLIENT[$i]}/health" 30; done

node "$ROOT/hack/ha/setup.mjs" "$HA_DIR" "$LB"

# One after the other: the first generates the service-account key pair in the shared cert dir.
# One worker per replica unless HA_WORKERS says otherwise. With two, one full `make test` run (a
# loaded machine) saw kubectl EOFs through HAProxy in the rolling restart and a TLS disconnect
# after a SIGKILL, while the suite alone passed. Suspected: when a replica's last worker closes,
# node:cluster's primary closes connections it had accepted and not yet handed to a worker, where
# one process refuses them (HAProxy redispatches only a refused connection).
# --shutdown-delay-duration outlasts HAProxy's worst case to notice a failing /readyz (two checks
# of up to 500 ms + the 2 s check timeout), as deploy/README.md's 5 s does: with 2 s a starved
# machine let new connections reach a replica that was already closing (kubectl saw EOF).
# The aggregation layer's front proxy, as deploy/README.md gives it: every replica presents the one
# client certificate setup.mjs made and trusts its CA for X-Remote-* identities.
FRONT_PROXY=(--proxy-client-cert-file "$HA_DIR/certs/front-proxy-client.crt" --proxy-client-key-file "$HA_DIR/certs/front-proxy-client.key"
  --requestheader-client-ca-file "$HA_DIR/certs/front-proxy-ca.crt" --requestheader-allowed-names=front-proxy-client
  --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group --requestheader-extra-headers-prefix=X-Remote-Extra-)
for i in 0 1 2; do
  # shellcheck disable=SC2086 # HA_ARGS holds extra flags, split on purpose
  launch "replica$i" node "$MAIN" --data-dir "$HA_DIR/replica$i" --cert-dir "$HA_DIR/certs" --etcd-servers "$ENDPOINTS" \
    --secure-port "${API[$i]}" --bind-address 127.0.0.1 --token-auth-file "$HA_DIR/tokens.csv" \
    --authorization-mode=Node,RBAC --enable-bootstrap-token-auth --node-join-bindings \
    --controllers='*,bootstrapsigner,tokencleaner' --shutdown-delay-duration=5s --workers "${HA_WORKERS:-1}" "${FRONT_PROXY[@]}" ${HA_ARGS:-}
  node "$ROOT/hack/ha/wait.mjs" "https://127.0.0.1:${API[$i]}/readyz" 60
done

SERVERS=""
for i in 0 1 2; do SERVERS+="    server replica$i 127.0.0.1:${API[$i]}"$'\n'; done
awk -v bind="127.0.0.1:$LB" -v servers="$SERVERS" '{ gsub("@BIND@", bind); if ($0 == "@SERVERS@") printf "%s", servers; else print }' \
  "$ROOT/deploy/haproxy/haproxy.cfg" > "$HA_DIR/haproxy.cfg"
haproxy -c -q -f "$HA_DIR/haproxy.cfg"
launch haproxy haproxy -db -f "$HA_DIR/haproxy.cfg"
node "$ROOT/hack/ha/wait.mjs" "https://127.0.0.1:$LB/readyz" 30
trap - ERR

while read -r name pid; do
  case $name in
    etcd*) i=${name#etcd}; echo "$name pid $pid client http://127.0.0.1:${ETCD_CLIENT[$i]} log $HA_DIR/$name.log" ;;
    replica*) i=${name#replica}; echo "$name pid $pid https://127.0.0.1:${API[$i]} log $HA_DIR/$name.log" ;;
    haproxy) echo "$name pid $pid https://127.0.0.1:$LB log $HA_DIR/haproxy.log" ;;
  esac
done < "$PIDS"
echo "kubeconfig: $HA_DIR/admin.kubeconfig"
echo "  export KUBECONFIG=$HA_DIR/admin.kubeconfig; kubectl get namespaces"
