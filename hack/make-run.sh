#!/usr/bin/env bash
# The server exactly as `make run` starts it, with the flags the Makefile's RUN_FLAGS writes:
#   hack/make-run.sh DATA_DIR PORT [extra server flags...]
# test-e2e/make-run.test.ts and hack/conformance/run-fresh.sh start it this way.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data_dir=$1
port=$2
shift 2
flags=$(make -s --no-print-directory -C "$root" print-run-flags)
# eval: RUN_FLAGS is shell text (its --controllers value is quoted), as in the Makefile's recipe.
eval "exec node \"\$root/packages/server/dist/src/main.js\" --data-dir \"\$data_dir\" --secure-port \"\$port\" $flags \"\$@\""
