import { QueueSet, type QueuedRequest } from './queue-set.js';
import { dealHand, flowHash, requiredEntropyBits } from './shuffle-sharding.js';
import { estimateSeats } from './width.js';

describe('shuffle sharding', () => {
  test('hands are distinct cards of the deck, the same on every call', () => {
    for (const [deck, hand] of [[128, 6], [64, 8], [16, 4], [3, 3], [1, 1]] as const) {
      for (let i = 0; i < 200; i++) {
        const h = flowHash('schema', `user-${i}`);
        const cards = dealHand(h, deck, hand);
        expect(cards).toHaveLength(hand);
        expect(new Set(cards).size).toBe(hand);
        expect(cards.every((c) => c >= 0 && c < deck)).toBe(true);
        expect(dealHand(h, deck, hand)).toEqual(cards);
      }
    }
  });

  test('different flows get different hands', () => {
    const hands = new Set(Array.from({ length: 100 }, (_, i) => dealHand(flowHash('s', `u${i}`), 128, 6).join(',')));
    expect(hands.size).toBe(100);
  });

  test.each([
    [128, 6, 42],
    [64, 8, 48],
    [10_000_000, 1, 24],
  ])('entropy bits of deck %d, hand %d: %d', (deck, hand, bits) => expect(requiredEntropyBits(deck, hand)).toBe(bits));
});

describe('seat estimates', () => {
  const list = { verb: 'list', isResourceRequest: true };
  test.each([
    [{ verb: 'get', isResourceRequest: true }, '', 5000, 1],
    [list, '', undefined, 1],
    [list, '', 0, 1],
    [list, '', 150, 2],
    [list, '', 3000, 10],
    [list, 'limit=500', 3000, 5],
    [list, 'limit=500&labelSelector=a%3Db', 3000, 10],
  ])('%j %s over %s objects: %d seats', (info, query, count, seats) => expect(estimateSeats(info, new URLSearchParams(query), count)).toBe(seats));
});

/** A queue set driven by a fake clock: requests are dispatched synchronously by finish(). */
function harness(concurrencyLimit: number, queues: number, handSize: number, queueLengthLimit: number) {
  let now = 0;
  const qs = new QueueSet({ concurrencyLimit, queues, handSize, queueLengthLimit }, now);
  const order: string[] = [];
  const running: Array<{ flow: string; req: QueuedRequest }> = [];
  const pending: Array<{ flow: string; req: QueuedRequest }> = [];
  const submit = (flow: string, hand: number[], width = 1) => {
    const out = qs.enqueue(hand, width, now, () => order.push(flow));
    if (typeof out === 'string') return out;
    (out.state === 'executing' ? running : pending).push({ flow, req: out });
    return out;
  };
  /** Advances time by `ms`, then finishes the oldest running request. */
  const finishOldest = (ms: number) => {
    now += ms;
    const done = running.shift()!;
    qs.finish(done.req, now);
    for (let j = pending.length - 1; j >= 0; j--) {
      if (pending[j]!.req.state === 'executing') running.push(...pending.splice(j, 1));
    }
  };
  return { qs, order, submit, finishOldest, running, pending, tick: (ms: number) => (now += ms), now: () => now };
}

describe('fair queuing', () => {
  test('within the limit, requests run at once; over it they wait; a full queue rejects', () => {
    const h = harness(2, 4, 1, 2);
    expect((h.submit('a', [0]) as QueuedRequest).state).toBe('executing');
    expect((h.submit('a', [0]) as QueuedRequest).state).toBe('executing');
    expect((h.submit('a', [0]) as QueuedRequest).state).toBe('waiting');
    expect((h.submit('a', [0]) as QueuedRequest).state).toBe('waiting');
    expect(h.submit('a', [0])).toBe('queue-full');
    // Another flow in another queue still queues.
    expect((h.submit('b', [1]) as QueuedRequest).state).toBe('waiting');
    expect(h.qs.snapshot()).toMatchObject({ waiting: 3, executing: 2, seatsInUse: 2 });
  });

  test('a level without queues rejects what does not fit', () => {
    const h = harness(1, 0, 0, 0);
    expect((h.submit('a', []) as QueuedRequest).state).toBe('executing');
    expect(h.submit('a', [])).toBe('concurrency-limit');
  });

  test('a flooding flow does not starve a quiet one: the quiet request goes next', () => {
    const h = harness(2, 8, 1, 100);
    for (let i = 0; i < 50; i++) h.submit('flood', [0]);
    h.tick(10);
    h.submit('quiet', [1]);
    // The next freed seat goes to the quiet flow, though 48 flood requests arrived before it.
    h.finishOldest(10);
    expect(h.order.slice(2)).toEqual(['quiet']);
  });

  test('two busy flows share the seats evenly', () => {
    const h = harness(1, 8, 1, 1000);
    for (let i = 0; i < 100; i++) h.submit('a', [0]);
    for (let i = 0; i < 20; i++) h.submit('b', [1]);
    for (let i = 0; i < 30; i++) h.finishOldest(10);
    const window = h.order.slice(1, 31);
    const a = window.filter((f) => f === 'a').length;
    expect(Math.abs(a - 15)).toBeLessThanOrEqual(2);
  });

  test('wide requests use several seats; a request wider than the level still runs alone', () => {
    const h = harness(4, 4, 1, 10);
    expect((h.submit('a', [0], 3) as QueuedRequest).state).toBe('executing');
    expect((h.submit('b', [1], 2) as QueuedRequest).state).toBe('waiting');
    expect((h.submit('c', [2], 1) as QueuedRequest).state).toBe('waiting');
    expect(h.qs.snapshot().seatsInUse).toBe(3);
    h.finishOldest(5);
    expect(h.qs.snapshot().seatsInUse).toBe(3);
    const wide = harness(2, 4, 1, 10);
    expect((wide.submit('a', [0], 10) as QueuedRequest).width).toBe(2);
  });

  test('withdrawn requests leave their queue and are counted', () => {
    const h = harness(1, 2, 1, 5);
    h.submit('a', [0]);
    const waiting = h.submit('a', [0]) as QueuedRequest;
    h.qs.withdraw(waiting, 'time-out', 100);
    expect(waiting.state).toBe('rejected');
    expect(h.qs.snapshot().waiting).toBe(0);
    expect(h.qs.stats).toMatchObject({ timedOut: 1, dispatched: 1 });
    h.finishOldest(1);
    expect(h.qs.idle).toBe(true);
  });

  test('the shortest queue of the hand is chosen', () => {
    const h = harness(1, 4, 2, 10);
    h.submit('x', [0]);
    h.submit('x', [0]);
    h.submit('x', [0]);
    const r = h.submit('y', [0, 3]) as QueuedRequest;
    expect(r.queue).toBe(3);
  });
});
