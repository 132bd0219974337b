#!/usr/bin/env bash
# Builds the optional native addon (packages/server/native/*.c -> packages/server/dist/native/*.node)
# with the C compiler and Node's own headers. Best effort: when no compiler or headers are found
# the server runs without it (see packages/server/src/memory-reclaimer.ts), so this never fails
# the build.
set -u
out=packages/server/dist/native
src=packages/server/native/malloc_trim.c
mkdir -p "$out"
[ "$out/malloc_trim.node" -nt "$src" ] && exit 0
node_bin=$(command -v node)
include=""
for dir in "$(dirname "$node_bin")/../include/node" /usr/include/node /usr/local/include/node; do
  if [ -f "$dir/node_api.h" ]; then include=$dir; break; fi
done
cc=$(command -v cc || command -v gcc || true)
if [ -z "$include" ] || [ -z "$cc" ]; then
  echo "build-native: no C compiler or Node headers; skipping the optional malloc_trim addon" >&2
  exit 0
fi
if ! "$cc" -O2 -shared -fPIC -DNODE_GYP_MODULE_NAME=malloc_trim -I"$include" -o "$out/malloc_trim.node" "$src"; then
  echo "build-native: compiling the optional malloc_trim addon failed; the server runs without it" >&2
  rm -f "$out/malloc_trim.node"
fi
exit 0
