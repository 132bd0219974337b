// Heap bytes one cached object costs in a watch cache: `node --expose-gc hack/bench/cache-cost.mjs
// [--root=<worktree>] [--managed-fields] [--count=50000]`. Feeds a WatchCache of the build under
// `root` (default this tree; its packages/storage/dist) the memory workload's ConfigMaps, decoded
// as that build's watch feed decodes them and applied as its watch would (puts in transactions of 100 sharing
// a revision, creation times over ~10 seconds), and prints the heap used after two full GCs per
// object (the state, the window's events, the keys) beside the JSON bytes per object.
// Deterministic, unlike RSS on a shared machine: for comparing builds' per-object cost.
// --shared-store: the cache keeps its versions in a shared store (--watch-cache-shared-store of
// worker threads); the store's bytes per object are printed beside the heap's (a second worker
// thread would pay the heap's again, not the store's).
import { resolve } from 'node:path';
import { storedConfigMapBytes, objectName } from './lib/objects.mjs';
import { repoRoot } from './lib/processes.mjs';

const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const root = resolve(arg('root') ?? repoRoot);
const managedFields = process.argv.includes('--managed-fields');
const n = Number(arg('count') ?? '50000');
const shared = process.argv.includes('--shared-store');
if (typeof global.gc !== 'function') throw new Error('run with node --expose-gc');
const { WatchCache } = await import(`${root}/packages/storage/dist/src/index.js`);
const codec = await import(`${root}/packages/storage/dist/src/etcd3/value-codec.js`);
// What the build's watch feed decodes with (decodeHeldValue since the fifteenth session).
const decodeValue = codec.decodeHeldValue ?? codec.decodeValue;

const values = [];
let bytes = 0;
for (let i = 0; i < n; i++) {
  const v = storedConfigMapBytes('bench-memory', objectName('cm', i), { managedFields });
  bytes += v.length;
  values.push(v);
  // Creation seconds as a burst of creates has them: a few thousand objects per second.
  if (i % Math.ceil(n / 10) === 0) await new Promise((r) => setTimeout(r, 1_050));
}
const storage = await import(`${root}/packages/storage/dist/src/index.js`);
const store = shared ? storage.useSharedStore(storage.SharedObjectStore.createBuffer(), 1) : undefined;
const cache = new WatchCache({ windowMs: 3_600_000 });
cache.reset([], 1);
global.gc();
global.gc();
const h0 = process.memoryUsage().heapUsed;
const t0 = performance.now();
for (let i = 0; i < n; i++) {
  const key = `/registry/core/configmaps/bench-memory/${objectName('cm', i)}`;
  const rev = 2 + Math.floor(i / 100);
  cache.apply({ type: 'put', key, revision: rev, object: decodeValue(key, values[i], String(rev)) });
}
const ms = performance.now() - t0;
global.gc();
global.gc();
const h1 = process.memoryUsage().heapUsed;
console.log(
  JSON.stringify({
    root,
    managedFields,
    objects: cache.size,
    jsonBytesPerObject: Math.round(bytes / n),
    heapBytesPerObject: Math.round((h1 - h0) / n),
    decodeAndApplyUs: +((ms * 1000) / n).toFixed(2),
    ...(store ? { storeBytesPerObject: Math.round(store.shared.stats().liveBytes / n), storeEntries: store.shared.stats().entries } : {}),
  }),
);
