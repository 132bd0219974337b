import { RevisionBatcher } from './revision-batcher.js';

/** A stand-in for etcd's revision read whose answers the test gives, one per request sent. */
function manualRevisions() {
  const requests: Array<{ answer: (rev: number) => void; fail: (e: Error) => void }> = [];
  const batcher = new RevisionBatcher(
    () =>
      new Promise<number>((resolve, reject) => {
        requests.push({ answer: resolve, fail: reject });
      }),
  );
  return { batcher, requests };
}

const settle = () => new Promise((r) => setImmediate(r));

/** Records how a read ended, so a test can look without awaiting it. */
function track(p: Promise<number>) {
  const out: { value?: number; error?: Error } = {};
  p.then(
    (v) => (out.value = v),
    (e: Error) => (out.error = e),
  );
  return out;
}

describe('RevisionBatcher', () => {
  test('a read with nothing in flight sends at once', async () => {
    const { batcher, requests } = manualRevisions();
    const r = track(batcher.read());
    expect(requests).toHaveLength(1);
    requests[0]!.answer(7);
    await settle();
    expect(r.value).toBe(7);
    expect(batcher.sent).toBe(1);
  });

  test('reads arriving while a request is in flight do not join it: they share the next one', async () => {
    const { batcher, requests } = manualRevisions();
    const first = track(batcher.read());
    const later = [track(batcher.read()), track(batcher.read()), track(batcher.read())];
    // Only the first request has been sent; the others wait for one sent after they arrived.
    expect(requests).toHaveLength(1);
    expect(batcher.state).toEqual({ inFlight: true, waiting: true });
    requests[0]!.answer(10);
    await settle();
    expect(first.value).toBe(10);
    for (const r of later) expect(r.value).toBeUndefined();
    // The waiting request went out as soon as the first settled, once for all three.
    expect(requests).toHaveLength(2);
    requests[1]!.answer(12);
    await settle();
    for (const r of later) expect(r.value).toBe(12);
    expect(batcher.sent).toBe(2);
    expect(batcher.state).toEqual({ inFlight: false, waiting: false });
  });

  test('a read arriving after the waiting request was sent waits for a third', async () => {
    const { batcher, requests } = manualRevisions();
    track(batcher.read());
    const second = track(batcher.read());
    requests[0]!.answer(1);
    await settle();
    expect(requests).toHaveLength(2);
    // The second request is now in flight: a new read must not join it.
    const third = track(batcher.read());
    requests[1]!.answer(2);
    await settle();
    expect(second.value).toBe(2);
    expect(third.value).toBeUndefined();
    expect(requests).toHaveLength(3);
    requests[2]!.answer(3);
    await settle();
    expect(third.value).toBe(3);
  });

  test('a failure reaches every read that joined that request, and the waiting one still goes out', async () => {
    const { batcher, requests } = manualRevisions();
    const a = track(batcher.read());
    const b = track(batcher.read());
    const c = track(batcher.read());
    requests[0]!.fail(new Error('etcd unreachable'));
    await settle();
    expect(a.error?.message).toBe('etcd unreachable');
    expect(requests).toHaveLength(2);
    requests[1]!.fail(new Error('still unreachable'));
    await settle();
    expect(b.error?.message).toBe('still unreachable');
    expect(c.error?.message).toBe('still unreachable');
    // Nothing is left behind: the next read sends afresh.
    expect(batcher.state).toEqual({ inFlight: false, waiting: false });
    const d = track(batcher.read());
    requests[2]!.answer(5);
    await settle();
    expect(d.value).toBe(5);
  });

  test('a read function that throws synchronously fails that batch only', async () => {
    let calls = 0;
    const batcher = new RevisionBatcher(() => {
      calls++;
      if (calls === 1) throw new Error('boom');
      return Promise.resolve(9);
    });
    await expect(batcher.read()).rejects.toThrow('boom');
    await expect(batcher.read()).resolves.toBe(9);
  });

  test('however many reads arrive, at most one request is in flight and one waiting', async () => {
    const { batcher, requests } = manualRevisions();
    const reads = Array.from({ length: 1000 }, () => track(batcher.read()));
    expect(requests).toHaveLength(1);
    expect(batcher.state).toEqual({ inFlight: true, waiting: true });
    requests[0]!.answer(1);
    await settle();
    requests[1]!.answer(2);
    await settle();
    expect(batcher.sent).toBe(2);
    expect(reads[0]!.value).toBe(1);
    expect(reads.slice(1).every((r) => r.value === 2)).toBe(true);
  });

  test('reads that are not concurrent each get their own request', async () => {
    let rev = 0;
    const batcher = new RevisionBatcher(() => Promise.resolve(++rev));
    expect(await batcher.read()).toBe(1);
    expect(await batcher.read()).toBe(2);
    expect(await batcher.read()).toBe(3);
    expect(batcher.sent).toBe(3);
  });
});
