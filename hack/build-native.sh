#!/usr/bin/env bash
# Builds the optional native addons (packages/server/native/* -> packages/server/dist/native/*.node)
# with the C/C++ compiler and Node's own headers. Best effort: when no compiler or headers are
# found the server runs without them (see packages/server/src/memory-reclaimer.ts), so this never
# fails the build.
set -u
out=packages/server/dist/native
mkdir -p "$out"
node_bin=$(command -v node)
include=""
for dir in "$(dirname "$node_bin")/../include/node" /usr/include/node /usr/local/include/node; do
  if [ -f "$dir/node_api.h" ]; then include=$dir; break; fi
done

# build <name> <source> <compiler> [flags...]: one addon, skipped when up to date.
build() {
  local name=$1 src=$2 compiler=$3
  shift 3
  [ "$out/$name.node" -nt "$src" ] && return 0
  if [ -z "$include" ] || [ -z "$compiler" ]; then
    echo "build-native: no compiler or Node headers; skipping the optional $name addon" >&2
    return 0
  fi
  if ! "$compiler" -O2 -shared -fPIC "$@" -DNODE_GYP_MODULE_NAME="$name" -I"$include" -o "$out/$name.node" "$src"; then
    echo "build-native: compiling the optional $name addon failed; the server runs without it" >&2
    rm -f "$out/$name.node"
  fi
}

build malloc_trim packages/server/native/malloc_trim.c "$(command -v cc || command -v gcc || true)"
build memory_pressure packages/server/native/memory_pressure.cc "$(command -v c++ || command -v g++ || true)" -std=c++17
build fd_dup packages/server/native/fd_dup.c "$(command -v cc || command -v gcc || true)"
exit 0
