// Reads a V8 .cpuprofile (node --cpu-prof, e.g. from BENCH_CPU_PROF=1) over a window of it:
//   node hack/bench/profile-window.mjs <file> --seconds          busy samples per second (find the workload's window)
//   node hack/bench/profile-window.mjs <file> <from> <to> [top]   self and inclusive shares of every frame (Node's too)
//   node hack/bench/profile-window.mjs <file> <from> <to> --callers=<regex> [--depth=5]   the stacks above matching frames
//   node hack/bench/profile-window.mjs <file> <from> <to> --callees=<regex>                what runs under the outermost match
// <from> and <to> are seconds since the profile's start. Shares are of the window's busy samples
// (idle excluded); the profile samples wall-clock time, so on a loaded machine syscalls are overstated.
import { frameKey, readProfileTree } from './lib/profile-tree.mjs';

const argv = process.argv.slice(2);
const opt = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const [file, from, to, topArg] = argv.filter((a) => !a.startsWith('--'));
const { p, byId, parent } = readProfileTree(file);
const key = frameKey;
const isIdle = (n) => n.callFrame.functionName === '(idle)';

const samples = [];
let at = p.startTime;
for (let i = 0; i < p.samples.length; i++) {
  at += p.timeDeltas[i] ?? 0;
  samples.push({ t: (at - p.startTime) / 1e6, node: byId.get(p.samples[i]) });
}
const pct = (v, total) => ((100 * v) / total).toFixed(2).padStart(6);
const top = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
const add = (m, k, v = 1) => m.set(k, (m.get(k) ?? 0) + v);

if (argv.includes('--seconds')) {
  const per = new Map();
  for (const s of samples) if (!isIdle(s.node)) add(per, Math.floor(s.t));
  console.log([...per].map(([s, c]) => `${s}:${c}`).join(' '));
  process.exit(0);
}
const inWindow = samples.filter((s) => s.t >= Number(from) && s.t <= Number(to) && !isIdle(s.node));
const total = inWindow.length;
const stackOf = (n) => {
  const chain = [];
  for (let id = n.id; id !== undefined; id = parent.get(id)) chain.push(byId.get(id));
  return chain; // innermost first
};
console.log(`${total} busy samples in ${from}-${to} s`);
const callers = opt('callers');
const callees = opt('callees');
if (callers || callees) {
  const rx = new RegExp(callers ?? callees);
  const depth = Number(opt('depth') ?? 5);
  const paths = new Map();
  const leaves = new Map();
  for (const s of inWindow) {
    const chain = stackOf(s.node);
    if (callers) {
      const i = chain.findIndex((x) => rx.test(key(x)));
      if (i >= 0) add(paths, chain.slice(i, i + depth).map(key).join(' <- '));
    } else {
      const i = chain.findLastIndex((x) => rx.test(key(x)));
      if (i < 0) continue;
      add(paths, i > 0 ? key(chain[i - 1]) : '(self)');
      add(leaves, key(chain[0]));
    }
  }
  for (const [k, v] of top(paths, 20)) console.log(pct(v, total), k);
  if (callees) {
    console.log('innermost frames under it:');
    for (const [k, v] of top(leaves, 20)) console.log(pct(v, total), k);
  }
  process.exit(0);
}
const self = new Map();
const incl = new Map();
for (const s of inWindow) {
  add(self, key(s.node));
  for (const k of new Set(stackOf(s.node).map(key))) add(incl, k);
}
const n = Number(topArg ?? 40);
console.log('self:');
for (const [k, v] of top(self, n)) console.log(pct(v, total), k);
console.log('inclusive:');
for (const [k, v] of top(incl, n * 2)) console.log(pct(v, total), k);
