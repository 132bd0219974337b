import { WatchFlusher, type FlushTask } from './watch-flusher.js';

/**
 * A flusher driven by hand: `step()` runs one deferred slice, `wait()` advances the clock to the
 * timer asked for and runs it; the clock advances per flush.
 */
function harness(sliceMs: number, msPerFlush: number, opts: { restRatio?: number; maxRestMs?: number } = {}) {
  let clock = 0;
  const deferred: Array<() => void> = [];
  const timers: Array<{ run: () => void; at: number }> = [];
  const flusher = new WatchFlusher({
    ...opts,
    sliceMs,
    defer: (run) => deferred.push(run),
    delay: (run, ms) => timers.push({ run, at: clock + ms }),
    now: () => clock,
  });
  const log: string[] = [];
  const task = (name: string, onFlush?: () => void, group?: object): FlushTask => ({
    flush() {
      clock += msPerFlush;
      log.push(name);
      onFlush?.();
    },
    group,
  });
  const step = () => deferred.shift()?.();
  const wait = () => {
    const timer = timers.shift();
    if (!timer) throw new Error('no timer');
    clock = Math.max(clock, timer.at);
    timer.run();
  };
  return { flusher, log, task, step, wait, pendingSlices: () => deferred.length, timers, now: () => clock };
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

  test('a task scheduled again during a round waits for the next round, after a rest as long as the round took', () => {
    const h = harness(100, 2);
    let again = true;
    const b = h.task('b');
    const a: FlushTask = h.task('a', () => {
      if (again) h.flusher.schedule(a);
      again = false;
    });
    h.flusher.schedule(a);
    h.flusher.schedule(b);
    h.step();
    expect(h.log).toEqual(['a', 'b']);
    // The round took 4 ms of flushing: the next one starts 4 ms after it ended, by a timer.
    expect(h.pendingSlices()).toBe(0);
    expect(h.timers).toEqual([{ run: expect.any(Function), at: 8 }]);
    h.wait();
    expect(h.log).toEqual(['a', 'b', 'a']);
  });

  test('a cheap round earns no timed rest: the next one runs after pending I/O', () => {
    const h = harness(100, 0.1);
    const a = h.task('a');
    h.flusher.schedule(a);
    h.step();
    h.flusher.schedule(a);
    expect(h.timers).toHaveLength(0);
    expect(h.pendingSlices()).toBe(1);
    h.step();
    expect(h.log).toEqual(['a', 'a']);
  });

  test('a task scheduled while the flusher rests waits out the rest; the rest is capped', () => {
    const h = harness(1, 1, { maxRestMs: 5 });
    const tasks = Array.from({ length: 40 }, (_, i) => h.task(`t${i}`));
    for (const t of tasks) h.flusher.schedule(t);
    for (let i = 0; i < 5 && h.pendingSlices() > 0; i++) h.step();
    expect(h.log).toHaveLength(40);
    // 40 ms of flushing, but no rest longer than 5 ms.
    const roundEnd = h.now();
    h.flusher.schedule(tasks[0]!);
    expect(h.pendingSlices()).toBe(0);
    expect(h.timers.map((t) => t.at)).toEqual([roundEnd + 5]);
    h.wait();
    expect(h.log).toHaveLength(41);
  });

  test('with restRatio 0 rounds follow each other without rests', () => {
    const h = harness(100, 5, { restRatio: 0 });
    const a = h.task('a');
    h.flusher.schedule(a);
    h.step();
    h.flusher.schedule(a);
    expect(h.timers).toHaveLength(0);
    h.step();
    expect(h.log).toEqual(['a', 'a']);
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

  test('a round writes the tasks of one connection back to back, ungrouped tasks last, slices unchanged', () => {
    const h = harness(1, 0.25);
    const x = {};
    const y = {};
    const order: Array<[string, object | undefined]> = [
      ['x1', x], ['solo1', undefined], ['y1', y], ['x2', x], ['y2', y], ['solo2', undefined], ['x3', x], ['y3', y],
      ['x4', x], ['y4', y], ['x5', x],
    ];
    for (const [name, group] of order) h.flusher.schedule(h.task(name, undefined, group));
    h.step();
    // 8 flushes of 0.25 ms reach the 1 ms slice: the rest waits for the next turn.
    expect(h.log).toEqual(['x1', 'x2', 'x3', 'x4', 'x5', 'y1', 'y2', 'y3']);
    expect(h.pendingSlices()).toBe(1);
    h.step();
    expect(h.log.slice(8)).toEqual(['y4', 'solo1', 'solo2']);
  });

  test('tasks without a group keep their order', () => {
    const h = harness(100, 0);
    for (const name of ['a', 'b', 'c', 'd']) h.flusher.schedule(h.task(name));
    h.step();
    expect(h.log).toEqual(['a', 'b', 'c', 'd']);
  });

  test('rounds reuse their queues: groups met again in later rounds, tasks queued during a round wait for the next one', () => {
    const h = harness(100, 0);
    const x = {};
    const y = {};
    const a = h.task('a', undefined, x);
    const b = h.task('b', undefined, y);
    const c = h.task('c', undefined, x);
    // c queues a again while the round runs: a flushes once in this round, again in the next.
    const again = h.task('again', () => h.flusher.schedule(a));
    for (const t of [b, again, a, c]) h.flusher.schedule(t);
    h.step();
    expect(h.log).toEqual(['b', 'a', 'c', 'again']);
    expect(h.flusher.waiting).toBe(1);
    h.step();
    expect(h.log.slice(4)).toEqual(['a']);
    // Later rounds group the same connections again, in their new order of arrival.
    for (const t of [c, b, a]) h.flusher.schedule(t);
    h.step();
    expect(h.log.slice(5)).toEqual(['c', 'a', 'b']);
    expect(h.flusher.waiting).toBe(0);
  });

  test('a cancelled task scheduled again is flushed once, in the round it was scheduled for', () => {
    const h = harness(100, 0);
    const a = h.task('a');
    const b = h.task('b');
    h.flusher.schedule(a);
    h.flusher.schedule(b);
    h.flusher.cancel(a);
    h.flusher.schedule(a);
    h.step();
    expect(h.log).toEqual(['a', 'b']);
    h.step();
    expect(h.log).toEqual(['a', 'b']);
  });

  test('counts the rounds it starts: one per batch of scheduled work, however many tasks or slices', () => {
    const h = harness(1, 0.25);
    expect(h.flusher.rounds).toBe(0);
    const tasks = Array.from({ length: 12 }, (_, i) => h.task(`t${i}`));
    for (const t of tasks) h.flusher.schedule(t);
    h.step();
    // Two slices of one round (8 flushes reach the slice, then the other 4).
    expect(h.flusher.rounds).toBe(1);
    h.step();
    expect(h.flusher.rounds).toBe(1);
    h.flusher.schedule(tasks[0]!);
    h.wait();
    expect(h.log).toHaveLength(13);
    expect(h.flusher.rounds).toBe(2);
  });
});
