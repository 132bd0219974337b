import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How often the reclaimer looks; a quiet period is one with few requests since the last look. */
const CHECK_INTERVAL_MS = 10_000;
const QUIET_REQUESTS = 50;
/** Only worth a full collection when the heap holds this much more than after the last one. */
const GROWTH_BYTES = 64 * 1024 * 1024;

/**
 * Returns memory to the OS after bursts. V8 keeps the heap it grew for a large list or a watch
 * storm long after the garbage is gone; when the server is quiet and the heap has grown, one full
 * collection compacts it and releases the freed pages.
 */
export function startMemoryReclaimer(requestCount: () => number): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  setFlagsFromString('--no-expose-gc');
  if (typeof gc !== 'function') return () => {};
  let lastCount = requestCount();
  let baseline = process.memoryUsage().heapTotal;
  const timer = setInterval(() => {
    const count = requestCount();
    const quiet = count - lastCount < QUIET_REQUESTS;
    lastCount = count;
    const heapTotal = process.memoryUsage().heapTotal;
    if (quiet && heapTotal - baseline > GROWTH_BYTES) {
      gc();
      baseline = process.memoryUsage().heapTotal;
    }
  }, CHECK_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
