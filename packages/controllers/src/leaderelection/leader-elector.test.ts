import pino from 'pino';
import { ApiError } from '../client/api-client.js';
import { LeaderElector, type ElectionLock } from './leader-elector.js';
import type { LeaseRecord } from './lease-lock.js';

/** A lease in memory with etcd's optimistic concurrency; `holdUpdates` parks updates until released. */
class MemoryLease implements ElectionLock {
  record: LeaseRecord | undefined;
  rv = 0;
  private parked: (() => void)[] = [];
  holdUpdates = false;

  async get() {
    return this.record ? { record: { ...this.record }, resourceVersion: String(this.rv) } : undefined;
  }
  async create(record: LeaseRecord) {
    if (this.record) throw new ApiError(409, { reason: 'AlreadyExists' });
    this.record = { ...record };
    this.rv++;
  }
  async update(record: LeaseRecord, resourceVersion: string) {
    if (this.holdUpdates) await new Promise<void>((r) => this.parked.push(r));
    if (resourceVersion !== String(this.rv)) throw new ApiError(409, { reason: 'Conflict' });
    this.record = { ...record };
    this.rv++;
  }
  releaseParked() {
    this.holdUpdates = false;
    for (const p of this.parked.splice(0)) p();
  }
}

const quiet = pino({ level: 'silent' });
const settle = () => new Promise((r) => setTimeout(r, 5));

function elector(lock: ElectionLock, identity: string, retryPeriodMs = 10) {
  const events: string[] = [];
  const e = new LeaderElector({
    lock,
    identity,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs,
    logger: quiet,
    onStartedLeading: () => events.push('started'),
    onStoppedLeading: () => events.push('stopped'),
  });
  return { e, events };
}

async function until(probe: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !probe(); i++) await settle();
  if (!probe()) throw new Error(`timed out waiting for ${what}`);
}

test('a first candidate creates the lease and leads; stop releases it for the next at once', async () => {
  const lease = new MemoryLease();
  const a = elector(lease, 'a');
  a.e.start();
  await until(() => a.e.isLeader, 'a leading');
  expect(lease.record?.holderIdentity).toBe('a');
  await a.e.stop();
  expect(lease.record?.holderIdentity).toBe('');
  expect(a.events).toEqual(['started', 'stopped']);
  const b = elector(lease, 'b');
  b.e.start();
  await until(() => b.e.isLeader, 'b leading');
  expect(lease.record?.leaseTransitions).toBe(1);
  await b.e.stop();
});

test('a candidate does not take a lease another holds and renews', async () => {
  const lease = new MemoryLease();
  const a = elector(lease, 'a');
  a.e.start();
  await until(() => a.e.isLeader, 'a leading');
  const b = elector(lease, 'b');
  b.e.start();
  for (let i = 0; i < 10; i++) await settle();
  expect(b.e.isLeader).toBe(false);
  expect(lease.record?.holderIdentity).toBe('a');
  await b.e.stop();
  await a.e.stop();
});

test('stop during a renewal in flight still releases the lease (the renewal does not win after it)', async () => {
  const lease = new MemoryLease();
  const a = elector(lease, 'a', 20);
  a.e.start();
  await until(() => a.e.isLeader, 'a leading');
  // The next renewal reads the lease, then its write waits: stop() comes in between.
  lease.holdUpdates = true;
  const rvBefore = lease.rv;
  await until(() => (lease as unknown as { parked: unknown[] }).parked.length > 0, 'a renewal in flight');
  const stopping = a.e.stop();
  await settle();
  lease.releaseParked();
  await stopping;
  expect(lease.rv).toBeGreaterThan(rvBefore);
  expect(lease.record?.holderIdentity).toBe('');
  expect(a.e.isLeader).toBe(false);
});

test('a release that meets a concurrent write retries on the fresh lease', async () => {
  const lease = new MemoryLease();
  const a = elector(lease, 'a', 60_000);
  a.e.start();
  await until(() => a.e.isLeader, 'a leading');
  const update = lease.update.bind(lease);
  let conflicts = 1;
  lease.update = async (record, rv) => {
    if (conflicts-- > 0) {
      // Another write of our own holder record (an observer's touch) lands first.
      lease.rv++;
    }
    return update(record, rv);
  };
  await a.e.stop();
  expect(lease.record?.holderIdentity).toBe('');
});

test('a release whose request fails in transport is retried on a new request', async () => {
  const lease = new MemoryLease();
  const a = elector(lease, 'a', 60_000);
  a.e.start();
  await until(() => a.e.isLeader, 'a leading');
  const update = lease.update.bind(lease);
  let failures = 2;
  lease.update = async (record, rv) => {
    // A kept-alive connection closed by a stopping worker under the request.
    if (failures-- > 0) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    return update(record, rv);
  };
  await a.e.stop();
  expect(lease.record?.holderIdentity).toBe('');
});
