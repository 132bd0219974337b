import { WriteCoalescer } from './write-coalescer.js';

/** A write whose answer the test gives; `sent` says whether the coalescer started it. */
function pendingWrite(label: string) {
  let answer!: (v: string) => void;
  let fail!: (e: Error) => void;
  const w = {
    sent: false,
    answer: (): void => answer(label),
    fail: (e: Error): void => fail(e),
    start: (): Promise<string> => {
      w.sent = true;
      return new Promise<string>((resolve, reject) => {
        answer = resolve;
        fail = reject;
      });
    },
  };
  return w;
}

/** A coalescer whose hold timer the test fires by hand. */
function manualCoalescer(maxHoldMs = 2) {
  const timers: Array<{ run: () => void; cancelled: boolean }> = [];
  const coalescer = new WriteCoalescer({
    maxHoldMs,
    delay: (run) => {
      const t = { run, cancelled: false };
      timers.push(t);
      return () => (t.cancelled = true);
    },
  });
  const fireTimers = (): void => {
    for (const t of timers.splice(0)) if (!t.cancelled) t.run();
  };
  return { coalescer, timers, fireTimers };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('WriteCoalescer', () => {
  test('on a quiet store a write goes out at once', async () => {
    const { coalescer, timers } = manualCoalescer();
    const a = pendingWrite('a');
    const result = coalescer.run(a.start);
    expect(a.sent).toBe(true);
    expect(timers).toHaveLength(0);
    a.answer();
    await expect(result).resolves.toBe('a');
  });

  test('writes that come while one is in flight wait for it, then go out together', async () => {
    const { coalescer } = manualCoalescer();
    const [a, b, c] = [pendingWrite('a'), pendingWrite('b'), pendingWrite('c')];
    const ra = coalescer.run(a.start);
    const rb = coalescer.run(b.start);
    const rc = coalescer.run(c.start);
    expect([a.sent, b.sent, c.sent]).toEqual([true, false, false]);
    expect(coalescer.waiting).toBe(2);
    a.answer();
    await settle();
    expect([b.sent, c.sent]).toEqual([true, true]);
    expect(coalescer.waiting).toBe(0);
    // A write during the second group waits for both of its writes.
    const d = pendingWrite('d');
    const rd = coalescer.run(d.start);
    b.answer();
    await settle();
    expect(d.sent).toBe(false);
    c.answer();
    await settle();
    expect(d.sent).toBe(true);
    d.answer();
    await expect(Promise.all([ra, rb, rc, rd])).resolves.toEqual(['a', 'b', 'c', 'd']);
  });

  test('a held write goes out after maxHoldMs even when the writes in flight are slow', async () => {
    const { coalescer, timers, fireTimers } = manualCoalescer();
    const [a, b] = [pendingWrite('a'), pendingWrite('b')];
    void coalescer.run(a.start);
    const rb = coalescer.run(b.start);
    expect(timers).toHaveLength(1);
    expect(b.sent).toBe(false);
    fireTimers();
    expect(b.sent).toBe(true);
    b.answer();
    await expect(rb).resolves.toBe('b');
    a.answer();
  });

  test('each caller gets its own failure; a failed write still releases the ones held behind it', async () => {
    const { coalescer } = manualCoalescer();
    const [a, b] = [pendingWrite('a'), pendingWrite('b')];
    const ra = coalescer.run(a.start);
    const rb = coalescer.run(b.start);
    a.fail(new Error('etcd unavailable'));
    await expect(ra).rejects.toThrow('etcd unavailable');
    await settle();
    expect(b.sent).toBe(true);
    b.answer();
    await expect(rb).resolves.toBe('b');
  });

  test('a write that throws before sending is that caller\'s failure only', async () => {
    const { coalescer } = manualCoalescer();
    const thrown = coalescer.run((): Promise<string> => {
      throw new Error('bad request');
    });
    await expect(thrown).rejects.toThrow('bad request');
    const a = pendingWrite('a');
    const ra = coalescer.run(a.start);
    expect(a.sent).toBe(true);
    a.answer();
    await expect(ra).resolves.toBe('a');
  });

  test('maxHoldMs 0 never holds a write', () => {
    const { coalescer, timers } = manualCoalescer(0);
    const [a, b] = [pendingWrite('a'), pendingWrite('b')];
    void coalescer.run(a.start);
    void coalescer.run(b.start);
    expect([a.sent, b.sent]).toEqual([true, true]);
    expect(timers).toHaveLength(0);
    a.answer();
    b.answer();
  });
});
