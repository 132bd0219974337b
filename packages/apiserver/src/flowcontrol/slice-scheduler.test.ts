import { FairRotation, MIN_SLICE_SHARE, OTHER_LEVEL_SHARE, SliceScheduler, sharingShare, type SliceSchedulerOptions } from './slice-scheduler.js';

type Op = ['add', string, string, string] | ['next', string | undefined] | ['remove', string, string, string, boolean];

/** Runs a script of adds, removes and expected nexts against one rotation. */
function play(ops: Op[]): void {
  const r = new FairRotation<string>();
  let size = 0;
  for (const op of ops) {
    if (op[0] === 'add') {
      r.add(op[1], op[2], op[3]);
      size++;
    } else if (op[0] === 'remove') {
      expect(r.remove(op[1], op[2], op[3])).toBe(op[4]);
      if (op[4]) size--;
    } else {
      expect(r.next()).toBe(op[1]);
      if (op[1] !== undefined) size--;
    }
    expect(r.size).toBe(size);
  }
}

describe('FairRotation', () => {
  test.each<[string, Op[]]>([
    ['empty', [['next', undefined]]],
    ['one flow is first in, first out', [['add', 'L', 'f', 'a1'], ['add', 'L', 'f', 'a2'], ['add', 'L', 'f', 'a3'], ['next', 'a1'], ['next', 'a2'], ['next', 'a3'], ['next', undefined]]],
    [
      'flows of a level take turns, however many tasks one has queued',
      [['add', 'L', 'flood', 'f1'], ['add', 'L', 'flood', 'f2'], ['add', 'L', 'flood', 'f3'], ['add', 'L', 'quiet', 'q1'], ['next', 'f1'], ['next', 'q1'], ['next', 'f2'], ['next', 'f3'], ['next', undefined]],
    ],
    [
      'levels take turns before flows: a level of many flows gets no more turns than a level of one',
      [
        ['add', 'low', 'u1', 'a'], ['add', 'low', 'u2', 'b'], ['add', 'low', 'u3', 'c'], ['add', 'high', 'x', 'x1'], ['add', 'high', 'x', 'x2'],
        ['next', 'a'], ['next', 'x1'], ['next', 'b'], ['next', 'x2'], ['next', 'c'], ['next', undefined],
      ],
    ],
    [
      'a flow that comes back joins the end of its rotation',
      [['add', 'L', 'a', 'a1'], ['add', 'L', 'b', 'b1'], ['next', 'a1'], ['add', 'L', 'a', 'a2'], ['add', 'L', 'c', 'c1'], ['next', 'b1'], ['next', 'a2'], ['next', 'c1'], ['next', undefined]],
    ],
    [
      'a stream that asks again after its slice goes behind its flow\'s other streams',
      [['add', 'L', 'f', 's1'], ['add', 'L', 'f', 's2'], ['next', 's1'], ['add', 'L', 'f', 's1'], ['next', 's2'], ['next', 's1']],
    ],
    [
      'remove drops a waiting task and empty flows and levels',
      [
        ['add', 'L', 'a', 'a1'], ['add', 'M', 'b', 'b1'], ['remove', 'L', 'a', 'a1', true], ['remove', 'L', 'a', 'a1', false], ['remove', 'X', 'a', 'a1', false],
        ['next', 'b1'], ['next', undefined], ['add', 'L', 'a', 'a2'], ['next', 'a2'],
      ],
    ],
  ])('%s', (_, ops) => play(ops));
});

describe('sharingShare', () => {
  const shares: Record<string, number> = { 'workload-low': 100 / 245, 'global-default': 20 / 245, system: 30 / 245, exempt: 1 };
  const share = (level: string): number => shares[level] ?? 1;
  test.each<[string, string[], Array<[string, number]>, number, number]>([
    // [name, levels with slices waiting, flows with small requests in flight per level, cores per worker, share]
    ['nobody else in flight: all of the time', ['workload-low'], [], 1, 1],
    ['a level with no such flow left counts as none', ['workload-low'], [['global-default', 0]], 1, 1],
    ['a small request of another flow of the same level: half', ['workload-low'], [['workload-low', 1]], 1, 0.5],
    ['another level busy: the level nominal share', ['workload-low'], [['global-default', 2]], 1, 100 / 245],
    ['another level and the same one: still the nominal share', ['workload-low'], [['global-default', 1], ['workload-low', 1]], 1, 100 / 245],
    ['two workers per core: half of it per worker', ['workload-low'], [['global-default', 1]], 0.5, 50 / 245],
    ['a small level against a bigger one', ['global-default'], [['workload-low', 3]], 1, 20 / 245],
    ['two sliced levels add their shares', ['workload-low', 'global-default'], [['system', 1]], 1, 120 / 245],
    ['an exempt or unknown level: never more than half', ['exempt'], [['global-default', 1]], 1, 0.5],
    ['against an exempt level (the controllers, an admin): half, not the nominal share', ['global-default'], [['exempt', 1]], 1, 0.5],
    ['exempt and a limited level busy: the nominal share', ['global-default'], [['exempt', 1], ['workload-low', 1]], 1, 20 / 245],
    ['a tiny share is still served', ['tiny'], [['global-default', 1]], 1, MIN_SLICE_SHARE],
  ])('without the cap for bulk work: %s', (_, waiting, unsliced, coresPerWorker, expected) => {
    const sharesWithTiny = (level: string): number => (level === 'tiny' ? 0.001 : share(level));
    expect(sharingShare(waiting, new Map(unsliced), sharesWithTiny, coresPerWorker, undefined, 1)).toBeCloseTo(expected, 10);
  });

  test.each<[string, string[], Array<[string, number]>, number]>([
    // [name, levels with slices waiting, flows with small requests in flight per level, share]
    ['another level busy: no more than OTHER_LEVEL_SHARE, whatever the nominal share', ['workload-low'], [['global-default', 1]], OTHER_LEVEL_SHARE],
    ['a nominal share under the cap is kept', ['global-default'], [['workload-low', 1]], 20 / 245],
    ['an exempt level\'s lists yield to another level too', ['exempt'], [['global-default', 1]], OTHER_LEVEL_SHARE],
    ['the same level busy: half, the cap is for other levels', ['workload-low'], [['workload-low', 1]], 0.5],
    ['nobody else: all of the time', ['workload-low'], [], 1],
  ])('with the default cap: %s', (_, waiting, unsliced, expected) => {
    expect(sharingShare(waiting, new Map(unsliced), share)).toBeCloseTo(expected, 10);
  });
});

/** A scheduler on a fake clock whose turns run when the test says; `delays` records paused turns. */
function harness(turnMs = 1, sharedShare?: number, extra: SliceSchedulerOptions = { otherLevelShare: 1, lingerMs: 0 }) {
  let clock = 0;
  const turns: Array<() => void> = [];
  const delays: number[] = [];
  const ran: string[] = [];
  // What slices leave for after their turn (the HTTP response's corked socket write); runs before the turn settles.
  const later: Array<() => void> = [];
  const s = new SliceScheduler({
    turnMs,
    ...(sharedShare === undefined ? {} : { sharedShare }),
    ...extra,
    now: () => clock,
    defer: (t) => void turns.push(t),
    delay: (t, ms) => {
      delays.push(ms);
      turns.push(() => {
        clock += ms;
        t();
      });
    },
    afterTurn: (settle) => {
      for (const run of later.splice(0)) run();
      settle();
    },
  });
  const slice = (name: string, costMs: number, then?: () => void) => () => {
    ran.push(name);
    clock += costMs;
    then?.();
  };
  const runTurn = () => {
    const t = turns.shift();
    if (!t) throw new Error('no turn scheduled');
    t();
  };
  const advance = (ms: number) => void (clock += ms);
  /** A slice costing `costMs` in its turn and `writeMs` in the write it leaves for after the turn. */
  const writingSlice = (name: string, costMs: number, writeMs: number, written?: () => void) => () => {
    ran.push(name);
    clock += costMs;
    later.push(() => {
      clock += writeMs;
      written?.();
    });
  };
  return { s, ran, turns, delays, slice, writingSlice, runTurn, advance };
}

describe('SliceScheduler', () => {
  test('a submitted slice never runs synchronously; one turn is scheduled for many submissions', () => {
    const h = harness();
    h.s.submit({ level: 'L', flow: 'a' }, h.slice('a', 0.1));
    h.s.submit({ level: 'L', flow: 'b' }, h.slice('b', 0.1));
    expect(h.ran).toEqual([]);
    expect(h.turns).toHaveLength(1);
    h.runTurn();
    expect(h.ran).toEqual(['a', 'b']);
    expect(h.turns).toHaveLength(0);
    expect(h.s.waiting).toBe(0);
  });

  test.each<[string, number, number[], string[][]]>([
    // [name, turn ms, cost of each of slices a1,b1,a2,b2,a3,b3 (submitted a1,a2,a3 then b1,b2,b3), slices run per turn]
    ['cheap slices share one turn, alternating flows', 1, [0.1, 0.1, 0.1, 0.1, 0.1, 0.1], [['a1', 'b1', 'a2', 'b2', 'a3', 'b3']]],
    ['a slice that uses the turn ends it', 1, [1, 1, 1, 1, 1, 1], [['a1'], ['b1'], ['a2'], ['b2'], ['a3'], ['b3']]],
    ['a turn goes on until its time is used', 1, [0.5, 0.5, 0.5, 0.5, 0.5, 0.5], [['a1', 'b1'], ['a2', 'b2'], ['a3', 'b3']]],
    ['a longer turn runs more', 2, [0.5, 0.5, 0.5, 0.5, 0.5, 0.5], [['a1', 'b1', 'a2', 'b2'], ['a3', 'b3']]],
  ])('%s', (_, turnMs, costs, expected) => {
    const h = harness(turnMs);
    const cost = new Map(['a1', 'b1', 'a2', 'b2', 'a3', 'b3'].map((n, i) => [n, costs[i]!]));
    for (const f of ['a', 'b']) for (const i of [1, 2, 3]) h.s.submit({ level: 'L', flow: f }, h.slice(`${f}${i}`, cost.get(`${f}${i}`)!));
    const perTurn: string[][] = [];
    while (h.turns.length > 0) {
      const before = h.ran.length;
      h.runTurn();
      perTurn.push(h.ran.slice(before));
    }
    expect(perTurn).toEqual(expected);
  });

  test('a slice submitted during a turn (its stream asking for the next chunk) waits for the rotation', () => {
    const h = harness(10);
    let n = 0;
    const again = (): void => {
      if (++n < 3) h.s.submit({ level: 'L', flow: 'flood' }, h.slice(`flood${n}`, 0.1, again));
    };
    h.s.submit({ level: 'L', flow: 'flood' }, h.slice('flood0', 0.1, again));
    h.s.submit({ level: 'L', flow: 'quiet' }, h.slice('quiet', 0.1));
    h.runTurn();
    expect(h.ran).toEqual(['flood0', 'quiet', 'flood1', 'flood2']);
  });

  test('a withdrawn slice does not run; a throwing slice does not stop the others', () => {
    const h = harness();
    const withdraw = h.s.submit({ level: 'L', flow: 'a' }, h.slice('a', 0));
    h.s.submit({ level: 'L', flow: 'b' }, () => {
      throw new Error('boom');
    });
    h.s.submit({ level: 'L', flow: 'c' }, h.slice('c', 0));
    withdraw();
    h.runTurn();
    expect(h.ran).toEqual(['c']);
  });

  test.each<[string, number | undefined, Array<'get' | 'stream'>, number[]]>([
    // [name, share, what else is in flight, the pauses before the turns after the first]
    ['alone, turns follow at once', undefined, [], []],
    ['a sliced response of another flow is no reason to pause', undefined, ['stream'], []],
    ['another flow\'s small request: a pause as long as the turn (half the time)', undefined, ['get'], [1, 1]],
    ['a quarter share: three times the turn', 0.25, ['get'], [3, 3]],
    ['a flow with a small request and a sliced response counts as sliced', undefined, ['get', 'stream'], []],
  ])('sharing: %s', (_, share, inFlight, pauses) => {
    const h = harness(1, share);
    const other = { level: 'global-default', flow: 'quiet' };
    const releases = inFlight.map((what) => (what === 'get' ? h.s.enter(other) : h.s.streaming(other)));
    expect(h.s.sharing).toBe(inFlight.includes('get') && !inFlight.includes('stream'));
    for (let i = 0; i < 3; i++) h.s.submit({ level: 'workload-low', flow: 'flood' }, h.slice(`f${i}`, 1));
    while (h.turns.length > 0) h.runTurn();
    expect(h.ran).toEqual(['f0', 'f1', 'f2']);
    expect(h.delays).toEqual(pauses);
    for (const release of releases) {
      release();
      release();
    }
    expect(h.s.sharing).toBe(false);
  });

  test.each<[string, number, string, number[], string[][]]>([
    // [name, the flood level's share, the quiet flow's level, pauses, slices run per turn]
    ['another level busy: turns shortened to the level share, one-timer pauses', 0.4, 'global-default', [1, 1], [['f0', 'f1', 'f2'], ['f3', 'f4', 'f5'], ['f6', 'f7']]],
    ['the same level busy: half, as without shares', 0.4, 'workload-low', [1], [['f0', 'f1', 'f2', 'f3'], ['f4', 'f5', 'f6', 'f7']]],
    ['a small share: one slice a turn and a longer pause', 0.05, 'global-default', [5, 5, 5, 5, 5, 5, 5], [['f0'], ['f1'], ['f2'], ['f3'], ['f4'], ['f5'], ['f6'], ['f7']]],
  ])('level shares: %s', (_, floodShare, quietLevel, pauses, perTurn) => {
    const h = harness(1);
    const leave = h.s.enter({ level: quietLevel, flow: 'quiet', share: quietLevel === 'global-default' ? 20 / 245 : floodShare });
    for (let i = 0; i < 8; i++) h.s.submit({ level: 'workload-low', flow: 'flood', share: floodShare }, h.slice(`f${i}`, 0.25));
    const ran: string[][] = [];
    while (h.turns.length > 0) {
      const before = h.ran.length;
      h.runTurn();
      ran.push(h.ran.slice(before));
    }
    expect(ran).toEqual(perTurn);
    expect(h.delays).toEqual(pauses);
    leave();
  });

  test('the writes a turn leaves for after it count in the turn: the pause keeps the share', () => {
    const h = harness(1);
    const leave = h.s.enter({ level: 'g', flow: 'quiet' });
    // Half the time against another flow: 0.5 ms of slices and 1.5 ms of their writes pause 2 ms, not 0.5 (1, the shortest timer).
    for (let i = 0; i < 2; i++) h.s.submit({ level: 'L', flow: 'flood' }, h.writingSlice(`f${i}`, 0.25, 0.75));
    h.runTurn();
    expect(h.ran).toEqual(['f0', 'f1']);
    h.s.submit({ level: 'L', flow: 'flood' }, h.writingSlice('f2', 0.25, 0.75));
    expect(h.delays).toEqual([2]);
    leave();
  });

  test('a slice submitted during the writes after a turn waits for the pause that includes them', () => {
    const h = harness(1);
    const leave = h.s.enter({ level: 'g', flow: 'quiet' });
    // The stream asks for its next chunk once the socket took this one (in the write after the turn).
    h.s.submit({ level: 'L', flow: 'flood' }, h.writingSlice('a', 0.5, 1.5, () => h.s.submit({ level: 'L', flow: 'flood' }, h.slice('b', 0.5))));
    h.runTurn();
    expect(h.ran).toEqual(['a']);
    expect(h.delays).toEqual([2]);
    h.runTurn();
    expect(h.ran).toEqual(['a', 'b']);
    leave();
  });

  test('a slice submitted after a turn while sharing waits for the rest of the pause', () => {
    const h = harness(1);
    const leave = h.s.enter({ level: 'g', flow: 'quiet' });
    h.s.submit({ level: 'L', flow: 'flood' }, h.slice('a', 2));
    h.runTurn();
    // The queue ran dry; the stream asks again right after: it waits for the 2 ms pause.
    h.s.submit({ level: 'L', flow: 'flood' }, h.slice('b', 0.5));
    expect(h.delays).toEqual([2]);
    leave();
    h.runTurn();
    // Without sharing the next turn comes at once.
    h.s.submit({ level: 'L', flow: 'flood' }, h.slice('c', 0.5));
    expect(h.delays).toEqual([2]);
    h.runTurn();
    expect(h.ran).toEqual(['a', 'b', 'c']);
  });

  test('a level of small requests still shares the worker for lingerMs after its last one ended', () => {
    const h = harness(1, undefined, { lingerMs: 50 });
    const quiet = { level: 'global-default', flow: 'quiet', share: 20 / 245 };
    const flood = { level: 'workload-low', flow: 'flood', share: 100 / 245 };
    h.s.enter(quiet)();
    expect(h.s.sharing).toBe(true);
    h.s.submit(flood, h.slice('f0', 0.1));
    expect(h.s.share).toBeCloseTo(OTHER_LEVEL_SHARE, 10);
    h.advance(49);
    expect(h.s.sharing).toBe(true);
    h.advance(1);
    expect(h.s.sharing).toBe(false);
    expect(h.s.share).toBe(1);
    // A new request of the level ends the linger; its end starts a new one.
    const leave = h.s.enter(quiet);
    h.advance(100);
    expect(h.s.sharing).toBe(true);
    leave();
    h.advance(49);
    expect(h.s.sharing).toBe(true);
  });

  test('a flow whose requests were sliced responses does not linger: a flood never slows itself', () => {
    const h = harness(1, undefined, { lingerMs: 50 });
    const flood = { level: 'workload-low', flow: 'flood', share: 100 / 245 };
    for (let i = 0; i < 3; i++) {
      const leave = h.s.enter(flood);
      // Until its response starts streaming a list request counts as a small one.
      expect(h.s.sharing).toBe(true);
      const done = h.s.streaming(flood);
      expect(h.s.sharing).toBe(false);
      done();
      leave();
      expect(h.s.sharing).toBe(false);
    }
  });

  test('a small request ended here is told to the other workers at most once per half linger per level; a flood is never told', () => {
    const h = harness(1, undefined, { lingerMs: 50 });
    const told: Array<[string, number]> = [];
    h.s.setLevelServedListener((level, share) => told.push([level, share]));
    const quiet = { level: 'global-default', flow: 'quiet', share: 20 / 245 };
    const flood = { level: 'workload-low', flow: 'flood', share: 100 / 245 };
    h.s.enter(quiet)();
    h.s.enter(quiet)();
    h.advance(24);
    h.s.enter(quiet)();
    expect(told).toEqual([['global-default', 20 / 245]]);
    h.advance(1);
    h.s.enter(quiet)();
    expect(told).toHaveLength(2);
    const leave = h.s.enter(flood);
    const done = h.s.streaming(flood);
    done();
    leave();
    expect(told.map(([level]) => level)).toEqual(['global-default', 'global-default']);
  });

  test('a level served by another worker makes slices here yield for lingerMs, with that level\'s share', () => {
    const h = harness(1, undefined, { lingerMs: 50 });
    const flood = { level: 'workload-low', flow: 'flood', share: 100 / 245 };
    h.s.submit(flood, h.slice('f0', 0.1));
    expect(h.s.share).toBe(1);
    h.s.levelServedElsewhere('global-default', 20 / 245);
    expect(h.s.sharing).toBe(true);
    // The remote level's share is under the cap: not exempt, so the flood yields to it.
    expect(h.s.share).toBeCloseTo(OTHER_LEVEL_SHARE, 10);
    h.advance(50);
    expect(h.s.sharing).toBe(false);
    // An exempt level served elsewhere (share 1) gets half, as here.
    h.s.levelServedElsewhere('exempt', 1);
    expect(h.s.share).toBe(0.5);
  });

  test('the default scheduler runs slices after the I/O and timers already due (setImmediate)', async () => {
    const s = new SliceScheduler();
    const order: string[] = [];
    s.submit({ level: 'L', flow: 'a' }, () => order.push('slice'));
    order.push('sync');
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(order).toEqual(['sync', 'slice']);
  });
});
