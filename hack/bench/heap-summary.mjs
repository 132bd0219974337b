// Summarises a V8 heap snapshot (e.g. from `NODE_OPTIONS=--heapsnapshot-signal=SIGUSR2` and
// `kill -USR2 <pid>`): `node hack/bench/heap-summary.mjs <file.heapsnapshot> [--top=25]`. Prints
// self size by node type and constructor, the largest strings (with one retainer each) and the
// scripts' source sizes: what a process holds, to find what need not be held at idle.
import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (!file) throw new Error('usage: heap-summary.mjs <file.heapsnapshot> [--top=N]');
const top = Number(process.argv.find((a) => a.startsWith('--top='))?.slice(6) ?? 25);
const snap = JSON.parse(readFileSync(file, 'utf8'));
const meta = snap.snapshot.meta;
const nf = meta.node_fields;
const ef = meta.edge_fields;
const types = meta.node_types[0];
const etypes = meta.edge_types[0];
const N = nf.length;
const E = ef.length;
const iType = nf.indexOf('type');
const iName = nf.indexOf('name');
const iSize = nf.indexOf('self_size');
const iEdges = nf.indexOf('edge_count');
const iEType = ef.indexOf('type');
const iEName = ef.indexOf('name_or_index');
const iTo = ef.indexOf('to_node');
const { nodes, edges, strings } = snap;
const count = nodes.length / N;

// First retainer of every node (for the largest strings).
const retainer = new Int32Array(count).fill(-1);
const retainerEdge = new Int32Array(count).fill(-1);
for (let n = 0, e = 0; n < count; n++) {
  const ec = nodes[n * N + iEdges];
  for (let k = 0; k < ec; k++, e += E) {
    const to = edges[e + iTo] / N;
    if (retainer[to] === -1 && etypes[edges[e + iEType]] !== 'weak') {
      retainer[to] = n;
      retainerEdge[to] = e;
    }
  }
}
const mib = (b) => (b / 1048576).toFixed(2);
const byType = new Map();
const byCtor = new Map();
const stringNodes = [];
const scripts = [];
let total = 0;
for (let n = 0; n < count; n++) {
  const t = types[nodes[n * N + iType]];
  const name = strings[nodes[n * N + iName]];
  const size = nodes[n * N + iSize];
  total += size;
  byType.set(t, (byType.get(t) ?? 0) + size);
  const key = t === 'object' || t === 'closure' || t === 'native' ? `${t}:${name}` : t === 'code' || t === 'hidden' || t === 'array' ? `${t}:${name.slice(0, 40)}` : t;
  const c = byCtor.get(key) ?? { size: 0, count: 0 };
  c.size += size;
  c.count++;
  byCtor.set(key, c);
  if (t === 'string' || t === 'concatenated string' || t === 'sliced string') stringNodes.push(n);
}
console.log(`total self size ${mib(total)} MiB in ${count} nodes`);
console.log('\nby node type (MiB):');
for (const [t, s] of [...byType].sort((a, b) => b[1] - a[1])) console.log(`  ${mib(s).padStart(8)}  ${t}`);
console.log(`\nby constructor / kind, top ${top} (MiB, count):`);
for (const [k, v] of [...byCtor].sort((a, b) => b[1].size - a[1].size).slice(0, top)) console.log(`  ${mib(v.size).padStart(8)}  ${String(v.count).padStart(7)}  ${k}`);
stringNodes.sort((a, b) => nodes[b * N + iSize] - nodes[a * N + iSize]);
console.log(`\nlargest strings, top ${top} (KiB, first retainer):`);
const describe = (n) => `${types[nodes[n * N + iType]]}:${strings[nodes[n * N + iName]].slice(0, 50).replace(/\s+/g, ' ')}`;
for (const n of stringNodes.slice(0, top)) {
  const r = retainer[n];
  const e = retainerEdge[n];
  const edgeName = e >= 0 ? (etypes[edges[e + iEType]] === 'element' || etypes[edges[e + iEType]] === 'hidden' ? `[${edges[e + iEName]}]` : strings[edges[e + iEName]]) : '';
  const rr = r >= 0 ? retainer[r] : -1;
  console.log(`  ${(nodes[n * N + iSize] / 1024).toFixed(0).padStart(7)}  ${JSON.stringify(strings[nodes[n * N + iName]].slice(0, 60))}  <- ${edgeName} of ${r >= 0 ? describe(r) : '?'}${rr >= 0 ? ` <- ${describe(rr)}` : ''}`);
}

// Script sources (kept by V8 for lazy compilation and Function.prototype.toString), by package.
const byPackage = new Map();
let sources = 0;
for (const n of stringNodes) {
  const e = retainerEdge[n];
  const r = retainer[n];
  if (e < 0 || r < 0 || strings[edges[e + iEName]] !== 'source') continue;
  const script = strings[nodes[r * N + iName]];
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(script) ?? /packages\/([^/]+)\//.exec(script);
  const pkg = m ? m[1] : script.startsWith('node:') || !script.includes('/') ? '(node internals)' : script.slice(0, 40);
  const size = nodes[n * N + iSize];
  sources += size;
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + size);
}
console.log(`\nscript sources: ${mib(sources)} MiB; by package, top ${top} (KiB):`);
for (const [p, s] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${(s / 1024).toFixed(0).padStart(7)}  ${p}`);
