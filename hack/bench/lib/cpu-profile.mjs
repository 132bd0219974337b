// Summarizes a V8 .cpuprofile (from node --cpu-prof): where the replica spent its CPU time.
import { readFile } from 'node:fs/promises';

function where(url) {
  if (!url) return '';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1];
  const ours = /\/packages\/([^/]+)\/dist\/src\/(.*)$/.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}`;
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\//, '');
}

function area(url, functionName) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return `npm:${pkg[1]}`;
  const ours = /\/packages\/([^/]+)\/dist\//.exec(url);
  if (ours) return `@cluster/${ours[1]}`;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/').slice(0, 2).join('/')}`;
  return url;
}

/**
 * Returns text lines: total sampled time, the top functions by self time, the top functions by
 * inclusive time (our packages only) and self time per area (our packages, npm packages, node).
 */
export async function summarizeProfile(file, top = 20, windows = undefined) {
  const profile = JSON.parse(await readFile(file, 'utf8'));
  const byId = new Map();
  for (const node of profile.nodes) byId.set(node.id, node);
  const parent = new Map();
  for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
  const keyOf = (node) => {
    const cf = node.callFrame;
    const name = cf.functionName || '(anonymous)';
    const loc = where(cf.url);
    return loc ? `${name} ${loc}:${cf.lineNumber + 1}` : name;
  };
  const self = new Map();
  const inclusive = new Map();
  const areas = new Map();
  let total = 0;
  let idle = 0;
  const add = (m, k, v) => m.set(k, (m.get(k) ?? 0) + v);
  const { samples, timeDeltas } = profile;
  // Sample timestamps are µs of the monotonic clock (process.hrtime): `windows` keeps the samples
  // inside any of the [start, end] ranges given.
  let at = profile.startTime;
  for (let i = 0; i < samples.length; i++) {
    at += timeDeltas[i] ?? 0;
    if (windows && !windows.some(([a, b]) => at >= a && at <= b)) continue;
    const dt = (timeDeltas[i + 1] ?? 0) / 1000;
    const node = byId.get(samples[i]);
    if (!node) continue;
    const k = keyOf(node);
    if (node.callFrame.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    total += dt;
    add(self, k, dt);
    add(areas, area(node.callFrame.url, node.callFrame.functionName), dt);
    const onStack = new Set();
    for (let id = samples[i]; id !== undefined; id = parent.get(id)) {
      const n = byId.get(id);
      if (!n || !/\/packages\//.test(n.callFrame.url)) continue;
      onStack.add(keyOf(n));
    }
    for (const key of onStack) add(inclusive, key, dt);
  }
  const fmt = (m, n) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `  ${v.toFixed(0).padStart(7)} ms ${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
  return [
    `CPU profile ${file}${windows ? `, measured phases only (${windows.length})` : ''}: ${(total / 1000).toFixed(1)} s busy, ${(idle / 1000).toFixed(1)} s idle`,
    `top ${top} functions by self time:`,
    ...fmt(self, top),
    `top ${top} of our functions by inclusive time:`,
    ...fmt(inclusive, top),
    'self time by area:',
    ...fmt(areas, 15),
  ];
}
