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

  test('no timer is left once every deadline is stopped, and a new one starts cleanly', async () => {
    const timers = new DeadlineTimers(20);
    const expired: string[] = [];
    const a = timers.start(() => expired.push('a'));
    const b = timers.start(() => expired.push('b'));
    b.stop();
    a.stop();
    expect((timers as unknown as { timer: unknown }).timer).toBeUndefined();
    timers.start(() => expired.push('c'));
    for (let i = 0; i < 200 && expired.length < 1; i++) await new Promise((r) => setTimeout(r, 10));
    expect(expired).toEqual(['c']);
    expect((timers as unknown as { timer: unknown }).timer).toBeUndefined();
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
