// Heap bytes one cached object costs in a watch cache: `node --expose-gc hack/bench/cache-cost.mjs
// [--root=<worktree>] [--managed-fields] [--count=50000]`. Feeds a WatchCache of the build under
// `root` (default this tree; its packages/storage/dist) the memory workload's ConfigMaps, decoded
// as that build's watch feed decodes them and applied as its watch would (puts in transactions of 100 sharing
// a revision, creation times over ~10 seconds), and prints the heap used after two full GCs per
// object (the state, the window's events, the keys) beside the JSON bytes per object.
// Deterministic, unlike RSS on a shared machine: for comparing builds' per-object cost.
// --shared-store: the cache keeps its versions in a shared store (--watch-cache-shared-store of
// worker threads); the store's bytes per object are printed beside the heap's (a second worker
// thread would pay the heap's again, not the store's). --selectors: see below.
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
// The ordered keys, as a first list makes them (not what a selector keeps).
cache.entries('/registry/core/configmaps/');
global.gc();
global.gc();
const h1 = process.memoryUsage().heapUsed;
// --selectors: what a selector list then keeps per version (its labels and field set, see
// selection-attrs.ts): a label and a field selector as the apiserver builds them, one list each.
let attrs;
const selectors = process.argv.find((a) => a === '--selectors' || a.startsWith('--selectors='));
if (selectors) {
  // --selectors=labels: a label selector only (no field set kept).
  const labelsOnly = selectors === '--selectors=labels';
  const { parseLabelSelector, parseFieldSelector } = await import(`${root}/packages/apimachinery/dist/src/index.js`);
  const fieldsOf = (o) => ({ 'metadata.name': o.metadata.name ?? '', 'metadata.namespace': o.metadata.namespace ?? '' });
  const labels = parseLabelSelector('app=none');
  const fields = parseFieldSelector('metadata.name=none');
  const byLabel = (o) => labels.matches(o.metadata.labels ?? {});
  byLabel.attrs = { labels: (ls) => labels.matches(ls), fieldsOf };
  const byField = (o) => fields.matches(fieldsOf(o));
  byField.attrs = { fields: (fs) => fields.matches(fs), fieldsOf };
  const t1 = performance.now();
  cache.list('/registry/core/configmaps/', byLabel);
  if (!labelsOnly) cache.list('/registry/core/configmaps/', byField);
  const firstMs = performance.now() - t1;
  const t2 = performance.now();
  cache.list('/registry/core/configmaps/', byLabel);
  if (!labelsOnly) cache.list('/registry/core/configmaps/', byField);
  const againMs = performance.now() - t2;
  global.gc();
  global.gc();
  attrs = {
    selectorAttrBytesPerObject: Math.round((process.memoryUsage().heapUsed - h1) / n),
    firstSelectorListsMs: Math.round(firstMs),
    nextSelectorListsMs: Math.round(againMs),
  };
}
console.log(
  JSON.stringify({
    ...attrs,
    root,
    managedFields,
    objects: cache.size,
    jsonBytesPerObject: Math.round(bytes / n),
    heapBytesPerObject: Math.round((h1 - h0) / n),
    decodeAndApplyUs: +((ms * 1000) / n).toFixed(2),
    ...(store ? { storeBytesPerObject: Math.round(store.shared.stats().liveBytes / n), storeEntries: store.shared.stats().entries } : {}),
  }),
);
