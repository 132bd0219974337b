// A server entry point for allocation profiles (`watch-garbage.mjs`): runs the real server
// (`BENCH_ALLOC_MAIN`, a main.js) in this process after arming V8's sampling heap profiler on
// signals. SIGUSR2 starts a profile; the next SIGUSR2 stops it and writes
// `<BENCH_ALLOC_DIR>/alloc-<pid>-<n>.json`: the sampled allocations (collected ones included, so
// it is every allocation, young garbage too, not what stayed alive), and the scavenges and
// mark-compacts that ran meanwhile (count and pause), plus this process's CPU time.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const dir = process.env.BENCH_ALLOC_DIR;
const main = process.env.BENCH_ALLOC_MAIN;
const interval = Number(process.env.BENCH_ALLOC_INTERVAL ?? 4096);
if (!dir || !main) throw new Error('alloc-profile-main: BENCH_ALLOC_DIR and BENCH_ALLOC_MAIN must be set');

const session = new Session();
session.connect();
const post = (method, params) =>
  new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));

let gc = { minor: 0, minorMs: 0, major: 0, majorMs: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = e.detail?.kind ?? e.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) {
      gc.minor++;
      gc.minorMs += e.duration;
    } else {
      gc.major++;
      gc.majorMs += e.duration;
    }
  }
}).observe({ entryTypes: ['gc'] });

let running = false;
let n = 0;
let cpu0;
process.on('SIGUSR2', () => {
  if (!running) {
    running = true;
    gc = { minor: 0, minorMs: 0, major: 0, majorMs: 0 };
    cpu0 = process.cpuUsage();
    post('HeapProfiler.startSampling', {
      samplingInterval: interval,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    }).catch((e) => process.stderr.write(`alloc-profile-main: ${e.message}\n`));
    return;
  }
  running = false;
  const cpu = process.cpuUsage(cpu0);
  post('HeapProfiler.stopSampling', {}).then(
    (res) => {
      const file = join(dir, `alloc-${process.pid}-${n++}.json`);
      writeFileSync(file, JSON.stringify({ interval, gc: { ...gc }, cpuUs: cpu.user + cpu.system, profile: res.profile }));
    },
    (e) => process.stderr.write(`alloc-profile-main: ${e.message}\n`),
  );
});

process.argv[1] = main;
await import(pathToFileURL(main).href);
