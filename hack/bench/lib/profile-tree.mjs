// A V8 .cpuprofile (node --cpu-prof) read for walking its stacks: the profile, its nodes by id,
// each node's parent, and a frame's name as the profile scripts print it (function, file, line).
import { readFileSync } from 'node:fs';

export function readProfileTree(file) {
  const p = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  return { p, byId, parent };
}

/** `functionName path:line`, the path from `packages/` or `node_modules/` on. */
export function frameKey(n) {
  const cf = n.callFrame;
  const url = (cf.url || '').replace(/^.*\/(packages|node_modules)\//, '$1/').replace('dist/src/', '');
  return `${cf.functionName || '(anonymous)'} ${url}:${cf.lineNumber + 1}`;
}
