// Splits a V8 .cpuprofile's busy samples over a window into the parts of a write request:
//   node hack/bench/profile-parts.mjs <file> <from> <to> [--per=<µs per op>] [--unmatched=20]
// A sample goes to the first of the outer parts (in the order below) one of whose patterns matches
// a frame anywhere on its stack, so the inner parts (the etcd call, the response write) are taken
// out of the outer ones (the create handler) that are on many stacks; failing those, to the chain
// part (filters, HTTP) of the innermost frame that matches one, as each filter calls the next. With --per, each
// share is also given as µs of that per-operation figure (e.g. the bench's replica CPU per create).
// <from> and <to> as profile-window.mjs's (`--seconds` there finds the window).
import { frameKey, readProfileTree } from './lib/profile-tree.mjs';

const argv = process.argv.slice(2);
const opt = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const [file, from, to] = argv.filter((a) => !a.startsWith('--'));
const per = opt('per') === undefined ? undefined : Number(opt('per'));

/** [part, pattern over `functionName url`]: first match wins. */
const PARTS = [
  ['garbage collection', /^\(garbage collector\)/],
  ['(program): V8/Node outside JS', /^\(program\)/],
  ['in-process controllers (client side)', /packages\/controllers\//],
  ['serving watches (encode, write)', /handlers\/watch\.js|watch-flusher|handlers\/watch-/],
  ['etcd watch + watch cache', /watch-client\.js|raw-watch|change-feed|cacher\/(?!cached-store)|^take .*recent-writes|decodeHeldValue|watch-messages/],
  ['IPC between workers', /node:internal\/child_process|replica-protocol/],
  ['encoding for etcd (JSON, protobuf)', /^encodeValue |encodeTxnRequest|proto-wire/],
  ['etcd transaction (HTTP/2 client, decode)', /kv-client|write-coalescer|kv-messages|node:internal\/http2/],
  ['body decode (strict JSON, field validation)', /decode-body|parse-json-strict|field-validation|schema-walk/],
  ['managed fields', /managedfields\//],
  ['validation', /apimachinery\/validation\/|^validate .*strategy/],
  ['admission', /apiserver\/admission\//],
  ['create: registry, store, rest', /createResource|generic-registry|etcd3\/store|object-meta|handlers\/create/],
  ['response write (encode, headers, TLS write)', /writeResult|encodeBody|responders|listener\.js|_http_outgoing|resOnFinish|^writev |writevGeneric|Socket\._write/],
];
/** [part, pattern]: the innermost frame matching one of these wins. */
const CHAIN = [
  ['authentication', /with-authentication|authn\/|x509/],
  ['authorization', /with-authorization|authz\//],
  ['priority and fairness', /priority-and-fairness|flowcontrol\//],
  ['metrics, audit, observability', /with-observability|metrics\/|audit\/|with-audit/],
  ['request info, target, deadline, inflight', /request-info|with-request-|deadline|inflight|impersonation/],
  ['body read', /with-body/],
  ['microtask/tick machinery (self)', /^runMicrotasks |^processTicksAndRejections /],
  ['HTTP/1 parse, Koa, streams, TLS read', /_http_|koa|delegates|node:net|node:internal\/streams|stream_base|node:_tls|tls_wrap|api-handler|api-application|node:events/],
];

const { p, byId, parent } = readProfileTree(file);
const key = frameKey;
const partOfNode = new Map();
function partOf(node) {
  let part = partOfNode.get(node.id);
  if (part !== undefined) return part;
  const keys = [];
  for (let id = node.id; id !== undefined; id = parent.get(id)) keys.push(key(byId.get(id)));
  part = PARTS.find(([, rx]) => keys.some((k) => rx.test(k)))?.[0];
  for (let i = 0; part === undefined && i < keys.length; i++) part = CHAIN.find(([, rx]) => rx.test(keys[i]))?.[0];
  part ??= `other: ${keys[0]}`;
  partOfNode.set(node.id, part);
  return part;
}

const counts = new Map();
let total = 0;
let at = p.startTime;
for (let i = 0; i < p.samples.length; i++) {
  at += p.timeDeltas[i] ?? 0;
  const t = (at - p.startTime) / 1e6;
  if (t < Number(from) || t > Number(to)) continue;
  const node = byId.get(p.samples[i]);
  if (node.callFrame.functionName === '(idle)') continue;
  total++;
  const part = partOf(node);
  counts.set(part, (counts.get(part) ?? 0) + 1);
}
console.log(`${total} busy samples in ${from}-${to} s`);
const others = [...counts].filter(([k]) => k.startsWith('other: ')).sort((a, b) => b[1] - a[1]);
const otherTotal = others.reduce((s, [, v]) => s + v, 0);
const rows = [...[...PARTS, ...CHAIN].map(([name]) => [name, counts.get(name) ?? 0]), ['other', otherTotal]];
for (const [name, v] of rows.sort((a, b) => b[1] - a[1])) {
  const share = (100 * v) / total;
  console.log(`${share.toFixed(1).padStart(5)} %${per === undefined ? '' : `  ${((share * per) / 100).toFixed(0).padStart(4)} µs`}  ${name}`);
}
const n = Number(opt('unmatched') ?? 0);
if (n > 0) {
  console.log('largest unmatched innermost frames:');
  for (const [k, v] of others.slice(0, n)) console.log(`${((100 * v) / total).toFixed(2).padStart(6)} ${k.slice(7)}`);
}
const show = opt('frames');
if (show) {
  // The innermost frames of one part's samples.
  const leaves = new Map();
  let n2 = 0;
  at = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    at += p.timeDeltas[i] ?? 0;
    const t = (at - p.startTime) / 1e6;
    if (t < Number(from) || t > Number(to)) continue;
    const node = byId.get(p.samples[i]);
    if (node.callFrame.functionName === '(idle)' || !partOf(node).startsWith(show)) continue;
    n2++;
    leaves.set(key(node), (leaves.get(key(node)) ?? 0) + 1);
  }
  console.log(`innermost frames of '${show}' (${((100 * n2) / total).toFixed(1)} %):`);
  for (const [k, v] of [...leaves].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${((100 * v) / total).toFixed(2).padStart(6)} ${k}`);
}
