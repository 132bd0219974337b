import { DeadlineTimers } from './deadline-timers.js';

describe('DeadlineTimers', () => {
  test('deadlines expire in start order, each no sooner than its length, and stopped ones never', async () => {
    const timers = new DeadlineTimers(40);
    const expired: number[] = [];
    const late: number[] = [];
    const startAt: number[] = [];
    const start = (i: number) => {
      startAt[i] = performance.now();
      return timers.start(() => {
        expired.push(i);
        late[i] = performance.now() - startAt[i]!;
      });
    };
    const d = [0, 1, 2, 3].map(start);
    d[1]!.stop();
    d[1]!.stop(); // twice is harmless
    await new Promise((r) => setTimeout(r, 15));
    const last = start(4);
    expect(timers.size).toBe(4);
    for (let i = 0; i < 200 && expired.length < 4; i++) await new Promise((r) => setTimeout(r, 10));
    expect(expired).toEqual([0, 2, 3, 4]);
    // Timers may fire a millisecond early by the monotonic clock's rounding, never more.
    for (const i of [0, 2, 3, 4]) expect(late[i]).toBeGreaterThanOrEqual(39);
    last.stop(); // after it expired: nothing
    expect(timers.size).toBe(0);
    expect((timers as unknown as { timer: unknown }).timer).toBeUndefined();
  });

  test('with every deadline stopped the timer holds nothing open and is gone once it fires; a new one starts cleanly', async () => {
    const timers = new DeadlineTimers(20);
    const timer = () => (timers as unknown as { timer: NodeJS.Timeout | undefined }).timer;
    const expired: string[] = [];
    const a = timers.start(() => expired.push('a'));
    const b = timers.start(() => expired.push('b'));
    const armed = timer();
    b.stop();
    a.stop();
    // Not cleared (a request that starts and ends in one turn then costs no timer), but unreferenced.
    expect(timer()).toBe(armed);
    expect(armed!.hasRef()).toBe(false);
    // A deadline started meanwhile takes the same timer, referenced again, and expires on time.
    const startedAt = performance.now();
    timers.start(() => expired.push('c'));
    expect(timer()).toBe(armed);
    expect(armed!.hasRef()).toBe(true);
    for (let i = 0; i < 200 && expired.length < 1; i++) await new Promise((r) => setTimeout(r, 5));
    expect(expired).toEqual(['c']);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(19);
    expect(timer()).toBeUndefined();
    // Stopped with nothing else running: the timer fires once, finds nothing, and is dropped.
    timers.start(() => expired.push('d')).stop();
    expect(timer()!.hasRef()).toBe(false);
    for (let i = 0; i < 200 && timer() !== undefined; i++) await new Promise((r) => setTimeout(r, 5));
    expect(timer()).toBeUndefined();
    expect(expired).toEqual(['c']);
  });

  test('stopping the oldest keeps the others on time (the timer is re-armed for the next)', async () => {
    const timers = new DeadlineTimers(30);
    const expired: string[] = [];
    const first = timers.start(() => expired.push('first'));
    await new Promise((r) => setTimeout(r, 10));
    timers.start(() => expired.push('second'));
    first.stop();
    for (let i = 0; i < 200 && expired.length < 1; i++) await new Promise((r) => setTimeout(r, 10));
    expect(expired).toEqual(['second']);
  });
});
