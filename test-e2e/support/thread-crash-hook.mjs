// Fault injection for test-e2e/workers-threads.test.ts, loaded with `node --import` (node passes
// its options on to worker threads): in a worker thread of a replica, it waits for the file
// `crash-<slot>` to appear in the replica's --data-dir and then throws an exception nothing catches, as a
// bug in the serving code would; with `crash-at-start-<slot>` there when the thread starts, it
// throws at once, before the thread serves. It does nothing in any other thread or process.
import { existsSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

const at = process.argv.indexOf('--data-dir');
const dir = at > 0 ? process.argv[at + 1] : undefined;
const slot = process.env['CLUSTER_APISERVER_WORKER_ID'];
if (!isMainThread && dir && slot) {
  if (existsSync(join(dir, `crash-at-start-${slot}`))) throw new Error(`injected start-up failure of worker thread ${slot}`);
  const trigger = join(dir, `crash-${slot}`);
  const timer = setInterval(() => {
    if (!existsSync(trigger)) return;
    try {
      unlinkSync(trigger); // taken by this thread, not by its replacement
    } catch {
      return;
    }
    clearInterval(timer);
    setImmediate(() => {
      throw new Error(`injected crash of worker thread ${slot}`);
    });
  }, 100);
  timer.unref();
}
