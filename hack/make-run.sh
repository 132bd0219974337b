#!/usr/bin/env bash
# The server exactly as `make run` starts it (the one place its flags are written):
#   hack/make-run.sh DATA_DIR PORT [extra server flags...]
# A single-machine cluster ready for machines to join: bootstrap-token authentication, every
# controller with the bootstrap signer and token cleaner, the installer's node-join bindings, and
# authorization by Node,RBAC (anonymous requests on, as with any mode but AlwaysAllow, so a joining
# machine can read cluster-public/cluster-info). test-e2e/make-run.test.ts runs this script.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data_dir=$1
port=$2
shift 2
exec node "$root/packages/server/dist/src/main.js" --data-dir "$data_dir" --secure-port "$port" --bind-address 127.0.0.1 \
  --enable-bootstrap-token-auth --node-join-bindings --authorization-mode=Node,RBAC \
  --controllers='*,bootstrapsigner,tokencleaner' "$@"
