import { WatchFlusher, type FlushTask } from './watch-flusher.js';

/** A flusher driven by hand: `step()` runs one deferred slice; the clock advances per flush. */
function harness(sliceMs: number, msPerFlush: number) {
  let clock = 0;
  const deferred: Array<() => void> = [];
  const flusher = new WatchFlusher({ sliceMs, defer: (run) => deferred.push(run), now: () => clock });
  const log: string[] = [];
  const task = (name: string, onFlush?: () => void): FlushTask => ({
    flush() {
      clock += msPerFlush;
      log.push(name);
      onFlush?.();
    },
  });
  const step = () => deferred.shift()?.();
  return { flusher, log, task, step, pendingSlices: () => deferred.length };
}

describe('WatchFlusher', () => {
  test('flushes in arrival order, each task once however often it was scheduled, on a later turn', () => {
    const h = harness(10, 0);
    const a = h.task('a');
    const b = h.task('b');
    h.flusher.schedule(a);
    h.flusher.schedule(b);
    h.flusher.schedule(a);
    expect(h.log).toEqual([]); // nothing is written synchronously
    h.step();
    expect(h.log).toEqual(['a', 'b']);
    expect(h.pendingSlices()).toBe(0);
  });

  test('yields to the event loop when a slice has used its time, and resumes where it stopped', () => {
    const h = harness(1, 0.2);
    const tasks = Array.from({ length: 20 }, (_, i) => h.task(`t${i}`));
    for (const t of tasks) h.flusher.schedule(t);
    h.step();
    // The clock is looked at every 8 flushes: 8 x 0.2 ms = 1.6 ms >= 1 ms.
    expect(h.log).toHaveLength(8);
    expect(h.pendingSlices()).toBe(1);
    h.step();
    h.step();
    expect(h.log).toEqual(tasks.map((_, i) => `t${i}`));
    expect(h.flusher.waiting).toBe(0);
  });

  test('a task scheduled again while flushing goes to the back of the queue', () => {
    const h = harness(100, 0);
    let again = true;
    const b = h.task('b');
    const a: FlushTask = h.task('a', () => {
      if (again) h.flusher.schedule(a);
      again = false;
    });
    h.flusher.schedule(a);
    h.flusher.schedule(b);
    h.step();
    expect(h.log).toEqual(['a', 'b', 'a']);
  });

  test('cancelled tasks are skipped; a throwing task does not stop the others', () => {
    const h = harness(100, 0);
    const a = h.task('a');
    const bad: FlushTask = {
      flush() {
        throw new Error('boom');
      },
    };
    const c = h.task('c');
    h.flusher.schedule(a);
    h.flusher.schedule(bad);
    h.flusher.schedule(c);
    h.flusher.cancel(a);
    h.step();
    expect(h.log).toEqual(['c']);
  });
});
