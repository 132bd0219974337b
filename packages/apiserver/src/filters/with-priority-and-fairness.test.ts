import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import type { Context, Next } from 'koa';
import { SliceScheduler } from '../flowcontrol/slice-scheduler.js';
import type { FlowSchema, PriorityLevelConfiguration } from '@cluster/apimachinery';
import { FlowControl } from '../flowcontrol/flow-control.js';
import type { RequestState } from './state.js';
import { withPriorityAndFairness } from './with-priority-and-fairness.js';

// A level of one seat with a queue of two for bob: a second request of his waits while the first
// holds the seat. Watches hold it while their initial events are written (upstream), then give it back.
const level: PriorityLevelConfiguration = {
  metadata: { name: 'one', uid: 'pl-one' },
  spec: { type: 'Limited', limited: { assuredConcurrencyShares: 5, limitResponse: { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 2 } } } },
};
const schema: FlowSchema = {
  metadata: { name: 'bobs', uid: 'fs-bobs' },
  spec: {
    priorityLevelConfiguration: { name: 'one' },
    matchingPrecedence: 100,
    distinguisherMethod: { type: 'ByUser' },
    rules: [{ subjects: [{ kind: 'User', user: { name: 'bob' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] }],
  },
};

function setup(slices = new SliceScheduler()) {
  const control = new FlowControl({ apiDomain: 'k8s.io', serverConcurrencyLimit: 2, queueWaitLimitMs: 5_000 });
  control.setConfig([schema], [level]);
  return withPriorityAndFairness({ control, slices });
}

function ctxFor(verb: string) {
  const headers: Record<string, string> = {};
  const res = Object.assign(new EventEmitter(), { writableFinished: false, destroyed: false });
  return {
    method: 'GET',
    path: '/api/v1/namespaces/default/configmaps',
    URL: new URL('https://x/api/v1/namespaces/default/configmaps'),
    res,
    headers,
    set: (k: string, v: string) => void (headers[k] = v),
    state: {
      requestInfo: { verb, isResourceRequest: true, path: '', apiGroup: '', resource: 'configmaps', subresource: '', namespace: 'default' },
      user: { username: 'bob', groups: ['system:authenticated'] },
      warnings: [],
    },
  } as unknown as Context & { state: RequestState; headers: Record<string, string> };
}

/** A handler that runs until the test ends it; `started` tells whether it was reached. */
function held(): { started: boolean; end: () => void; next: Next } {
  let end!: () => void;
  const ended = new Promise<void>((r) => (end = r));
  const h: { started: boolean; end: () => void; next: Next } = {
    started: false,
    end,
    next: () => {
      h.started = true;
      return ended;
    },
  };
  return h;
}

const tick = () => new Promise((r) => setTimeout(r, 10));

describe('withPriorityAndFairness: watches', () => {
  test('a watch holds its seat until its initial events are written, then gives it back while it goes on', async () => {
    const filter = setup();
    const wctx = ctxFor('watch');
    const watch = held();
    const running = filter(wctx, watch.next);
    await tick();
    expect(watch.started).toBe(true);
    expect(typeof wctx.state.watchInitialized).toBe('function');
    // 5 shares of 10: level one and the mandatory catch-all (5) are the limited levels.
    expect(wctx.state.flow).toEqual({ level: 'one', flow: 'bobs\nbob', share: 0.5, key: 'one\nbobs\nbob' });
    expect(wctx.headers['X-Kubernetes-PF-PriorityLevel-UID']).toBe('pl-one');
    // While the initial events are being written, another request of the level waits.
    const get = held();
    const waiting = filter(ctxFor('get'), get.next);
    await tick();
    expect(get.started).toBe(false);
    wctx.state.watchInitialized!();
    await tick();
    expect(get.started).toBe(true);
    get.end();
    await waiting;
    // Calling it again, or the watch ending, gives nothing back twice: the seat is free once.
    wctx.state.watchInitialized!();
    watch.end();
    await running;
    const a = held();
    const b = held();
    const pa = filter(ctxFor('get'), a.next);
    const pb = filter(ctxFor('get'), b.next);
    await tick();
    expect([a.started, b.started]).toEqual([true, false]);
    a.end();
    await pa;
    await tick();
    expect(b.started).toBe(true);
    b.end();
    await pb;
  });

  test('a watch that ends (or fails) before its initial events were written gives its seat back', async () => {
    const filter = setup();
    const failing = filter(ctxFor('watch'), () => Promise.reject(new Error('watch failed')));
    await expect(failing).rejects.toThrow('watch failed');
    const get = held();
    const p = filter(ctxFor('get'), get.next);
    await tick();
    expect(get.started).toBe(true);
    get.end();
    await p;
  });
});

describe('withPriorityAndFairness: responses written after the handler', () => {
  test('a streamed body keeps its seat (and counts as in flight) until the response closes', async () => {
    // No linger after the last request: this is about what counts as in flight.
    const slices = new SliceScheduler({ lingerMs: 0 });
    const filter = setup(slices);
    const lctx = ctxFor('list');
    await filter(lctx, async () => {
      lctx.body = Readable.from(['{}']);
    });
    // The handler returned; the list is still being written.
    expect(slices.sharing).toBe(true);
    const get = held();
    const waiting = filter(ctxFor('get'), get.next);
    await tick();
    expect(get.started).toBe(false);
    (lctx.res as unknown as EventEmitter).emit('close');
    await tick();
    expect(get.started).toBe(true);
    get.end();
    await waiting;
    expect(slices.sharing).toBe(false);
  });

  test('requests of one flow share one frozen owner; another user of a ByUser schema has its own', async () => {
    const filter = setup();
    const a = ctxFor('get');
    const b = ctxFor('get');
    const c = ctxFor('get');
    (c.state as { user: unknown }).user = { username: 'bob2', groups: ['system:authenticated'] };
    // bob2 matches no rule of bobs: the mandatory catch-all classifies him (a flow of its own).
    for (const ctx of [a, b, c]) await filter(ctx, () => Promise.resolve());
    expect(b.state.flow).toBe(a.state.flow);
    expect(Object.isFrozen(a.state.flow)).toBe(true);
    expect(c.state.flow).not.toBe(a.state.flow);
    expect(c.state.flow!.key).toBe(`${c.state.flow!.level}\n${c.state.flow!.flow}`);
  });
});
