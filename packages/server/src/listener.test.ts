import { ResponseEndBatcher } from './listener.js';

/** A response stand-in that records the ends that took effect. */
function fakeResponse(log: string[], name: string) {
  const res = {
    end(...args: unknown[]): unknown {
      log.push(`${name}:${args.join(',')}`);
      return res;
    },
  };
  return res;
}

function batcherWithManualTurns() {
  const turns: Array<() => void> = [];
  const batcher = new ResponseEndBatcher((run) => void turns.push(run));
  const endTurn = () => {
    for (const run of turns.splice(0)) run();
  };
  return { batcher, turns, endTurn };
}

describe('ResponseEndBatcher', () => {
  test('ends called during a turn take effect together at its end, in call order', () => {
    const log: string[] = [];
    const { batcher, turns, endTurn } = batcherWithManualTurns();
    const a = fakeResponse(log, 'a');
    const b = fakeResponse(log, 'b');
    const original = a.end;
    batcher.hold(a);
    batcher.hold(b);
    expect(b.end('body-b')).toBe(b);
    a.end('body-a', 'utf8');
    expect(log).toEqual([]);
    expect(turns).toHaveLength(1);
    endTurn();
    expect(log).toEqual(['b:body-b', 'a:body-a,utf8']);
    // The wrapper is gone once the response has ended.
    expect(a.end).toBe(original);
  });

  test('a response still running at the end of a turn ends with the turn its end comes in', () => {
    const log: string[] = [];
    const { batcher, turns, endTurn } = batcherWithManualTurns();
    const slow = fakeResponse(log, 'slow');
    const fast = fakeResponse(log, 'fast');
    batcher.hold(slow);
    batcher.hold(fast);
    fast.end('x');
    endTurn();
    expect(log).toEqual(['fast:x']);
    expect(turns).toHaveLength(0);
    slow.end('later');
    expect(log).toEqual(['fast:x']);
    expect(turns).toHaveLength(1);
    endTurn();
    expect(log).toEqual(['fast:x', 'slow:later']);
  });

  test('several ends of one response keep their order', () => {
    const log: string[] = [];
    const { batcher, endTurn } = batcherWithManualTurns();
    const r = fakeResponse(log, 'r');
    batcher.hold(r);
    r.end('first');
    r.end('second');
    endTurn();
    expect(log).toEqual(['r:first', 'r:second']);
  });

  test('no turn is scheduled for responses that do not end', () => {
    const { batcher, turns } = batcherWithManualTurns();
    batcher.hold(fakeResponse([], 'idle'));
    expect(turns).toHaveLength(0);
  });
});
