import { Registry } from 'prom-client';
import type { FlowSchema, PriorityLevelConfiguration } from '@cluster/apimachinery';
import { FlowControl, RejectedRequest, type Ticket } from './flow-control.js';
import { FlowControlMetrics } from './metrics.js';
import type { ClassifiedRequest } from './classify.js';

const req: ClassifiedRequest = { isResourceRequest: true, path: '', verb: 'get', apiGroup: '', resource: 'configmaps', subresource: '', namespace: 'default' };
const bob = { username: 'bob', groups: ['system:authenticated'] };
const level = (name: string, shares: number, queuing?: { queues: number; handSize: number; queueLengthLimit: number }): PriorityLevelConfiguration => ({
  metadata: { name, uid: `pl-${name}` },
  spec: { type: 'Limited', limited: { assuredConcurrencyShares: shares, limitResponse: queuing ? { type: 'Queue', queuing } : { type: 'Reject' } } },
});
const schema = (name: string, pl: string, precedence: number): FlowSchema => ({
  metadata: { name, uid: `fs-${name}` },
  spec: {
    priorityLevelConfiguration: { name: pl },
    matchingPrecedence: precedence,
    distinguisherMethod: { type: 'ByUser' },
    rules: [{ subjects: [{ kind: 'User', user: { name: 'bob' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] }],
  },
});

/** One seat for `tiny` (5 shares beside catch-all's 5 and exempt, of 2 seats), one queue of one. */
function setup(waitMs = 50) {
  const registry = new Registry();
  const fc = new FlowControl({ apiDomain: 'k8s.io', serverConcurrencyLimit: 2, queueWaitLimitMs: waitMs, metrics: new FlowControlMetrics(registry) });
  fc.setConfig([schema('bobs', 'tiny', 100)], [level('tiny', 5, { queues: 1, handSize: 1, queueLengthLimit: 1 })]);
  return { fc, registry, c: fc.classify(bob, req)! };
}
const reason = async (p: unknown) => {
  try {
    await p;
    return 'admitted';
  } catch (e) {
    return e instanceof RejectedRequest ? e.reason : String(e);
  }
};
const admitSync = (fc: FlowControl, c: NonNullable<ReturnType<FlowControl['classify']>>, onCancel?: (cancel: () => void) => () => void) => {
  try {
    return fc.admit(c, 1, onCancel);
  } catch (e) {
    return Promise.reject(e);
  }
};

describe('FlowControl', () => {
  test('configuration: the schema, its level and its seats; mandatory objects apply when missing', () => {
    const { fc, c } = setup();
    expect(c).toMatchObject({ flowSchema: 'bobs', flowSchemaUid: 'fs-bobs', distinguisher: 'bob', level: { name: 'tiny', uid: 'pl-tiny', nominalSeats: 1 } });
    expect(fc.classify({ username: 'alice', groups: ['system:authenticated'] }, req)?.flowSchema).toBe('catch-all');
    expect(fc.classify({ username: 'root', groups: ['system:masters'] }, req)?.level.exempt).toBe(true);
  });

  test('a dangling schema is skipped', () => {
    const { fc } = setup();
    fc.setConfig([schema('bobs', 'gone', 100)], []);
    expect(fc.classify(bob, req)?.flowSchema).toBe('catch-all');
  });

  test('free seats give a ticket at once; a queued request waits for done()', async () => {
    const { fc, c } = setup();
    const first = fc.admit(c, 1);
    expect(first).not.toBeInstanceOf(Promise);
    const second = fc.admit(c, 1);
    expect(second).toBeInstanceOf(Promise);
    (first as Ticket).done();
    const t = await second;
    t.done();
    expect(fc.dumpPriorityLevels()).toMatch(/^tiny, 0, true, false, 0, 0, 2, 0, 0, 0$/m);
  });

  test('a full queue rejects at once; a wait past the limit times out; a cancelled wait leaves', async () => {
    const { fc, c, registry } = setup(50);
    const held = fc.admit(c, 1) as Ticket;
    const waiting = admitSync(fc, c);
    expect(await reason(admitSync(fc, c))).toBe('queue-full');
    expect(await reason(waiting)).toBe('time-out');
    let cancel: (() => void) | undefined;
    let unregistered = false;
    const cancelled = admitSync(fc, c, (fn) => {
      cancel = fn;
      return () => (unregistered = true);
    });
    cancel!();
    expect(await reason(cancelled)).toBe('cancelled');
    expect(unregistered).toBe(true);
    held.done();
    expect(fc.dumpPriorityLevels()).toMatch(/^tiny, 0, true, false, 0, 0, 1, 1, 1, 1$/m);
    const text = await registry.metrics();
    expect(text).toContain('apiserver_flowcontrol_rejected_requests_total{priority_level="tiny",flow_schema="bobs",reason="queue-full"} 1');
    expect(text).toContain('apiserver_flowcontrol_rejected_requests_total{priority_level="tiny",flow_schema="bobs",reason="time-out"} 1');
    expect(text).toContain('apiserver_flowcontrol_rejected_requests_total{priority_level="tiny",flow_schema="bobs",reason="cancelled"} 1');
    expect(text).toContain('apiserver_flowcontrol_current_inqueue_requests{priority_level="tiny",flow_schema="bobs"} 0');
    expect(text).toContain('apiserver_flowcontrol_current_executing_requests{priority_level="tiny",flow_schema="bobs"} 0');
    expect(text).toContain('apiserver_flowcontrol_nominal_limit_seats{priority_level="tiny"} 1');
    expect(text).toMatch(/apiserver_flowcontrol_request_wait_duration_seconds_count\{priority_level="tiny",flow_schema="bobs",execute="false"\} 2/);
  });

  test('a level without queues rejects over its seats', async () => {
    const { fc } = setup();
    fc.setConfig([schema('bobs', 'strict', 100)], [level('strict', 5)]);
    const c = fc.classify(bob, req)!;
    const held = fc.admit(c, 1) as Ticket;
    expect(await reason(admitSync(fc, c))).toBe('concurrency-limit');
    held.done();
    expect(fc.admit(c, 1)).not.toBeInstanceOf(Promise);
  });

  test('a configuration change keeps waiting requests and gives them new seats', async () => {
    const { fc, c } = setup(5_000);
    const held = fc.admit(c, 1) as Ticket;
    const waiting = fc.admit(c, 1) as Promise<Ticket>;
    // More shares: two seats, so the waiting request runs.
    fc.setConfig([schema('bobs', 'tiny', 100)], [level('tiny', 50, { queues: 1, handSize: 1, queueLengthLimit: 1 })]);
    const t = await waiting;
    t.done();
    held.done();
  });
});
