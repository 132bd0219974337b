import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { ApiError } from '../client/api-client.js';
import type { LeaseLock, LeaseRecord } from './lease-lock.js';
import { microTime } from './lease-lock.js';

/** What the elector needs of a lock (a LeaseLock; tests give their own). */
export type ElectionLock = Pick<LeaseLock, 'get' | 'create' | 'update'>;

export interface LeaderElectionConfig {
  lock: ElectionLock;
  identity: string;
  /** How long a lease is valid after its last renewal (about 15 s). */
  leaseDurationMs: number;
  /** The leader gives up if it could not renew within this time (less than the lease duration). */
  renewDeadlineMs: number;
  /** How often candidates try to acquire and the leader renews. */
  retryPeriodMs: number;
  logger: Logger;
  now?: () => Date;
  /** Called when this candidate becomes leader; the signal aborts when leadership ends. */
  onStartedLeading(signal: AbortSignal): void;
  onStoppedLeading?(): void;
}

const RELEASE_ATTEMPTS = 5;
const RELEASE_RETRY_MS = 100;

const isConflict = (err: unknown): boolean => err instanceof ApiError && err.code === 409;

/**
 * Lease-based leader election after client-go's leaderelection: acquire an expired or released
 * lease, renew it every retry period, stop leading at once when a renewal fails past the renew
 * deadline, and release it on stop so another replica can take over without waiting.
 */
export class LeaderElector {
  private timer: NodeJS.Timeout | undefined;
  /** The attempt under way, if any: stop() waits for it so a renewal cannot follow the release. */
  private attempt: Promise<void> | undefined;
  private leading: AbortController | undefined;
  private lastRenew = 0;
  private observed: { record: LeaseRecord; resourceVersion: string; at: number } | undefined;
  private stopped = false;
  private readonly now: () => Date;

  constructor(private readonly cfg: LeaderElectionConfig) {
    this.now = cfg.now ?? (() => new Date());
  }

  get isLeader(): boolean {
    return this.leading !== undefined;
  }

  start(): void {
    const tick = async () => {
      if (this.stopped) return;
      this.attempt = this.tryAcquireOrRenew().catch((err) => this.cfg.logger.debug({ err }, 'leader election attempt failed'));
      await this.attempt;
      this.attempt = undefined;
      if (this.leading && Date.now() - this.lastRenew > this.cfg.renewDeadlineMs) this.stopLeading('renew deadline passed');
      if (!this.stopped) this.timer = setTimeout(tick, this.cfg.retryPeriodMs);
    };
    void tick();
  }

  /**
   * Stops campaigning; a leader releases its lease (holder cleared) before resolving. An attempt
   * in flight is awaited first: its renewal landing after the release would hold the lease again
   * for a whole duration. The release itself is retried (see release()).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.attempt;
    if (this.leading) {
      try {
        await this.release();
      } catch (err) {
        // The others then take over only once the lease expires.
        this.cfg.logger.warn({ err }, 'could not release the leader lease');
      }
    }
    this.stopLeading('stopped');
  }

  /**
   * Clears the holder. Retried on a conflict (a write landed between our read and ours) and on a
   * transport error: while a replica stops, its other workers close their listeners, and a kept-alive
   * connection of the loopback client can be closed under the request (a fresh one reaches a worker
   * still serving). Bounded: the caller's shutdown step has a deadline of its own.
   */
  private async release(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const current = await this.cfg.lock.get();
        if (!current || current.record.holderIdentity !== this.cfg.identity) return;
        const released: LeaseRecord = { ...current.record, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(this.now()) };
        await this.cfg.lock.update(released, current.resourceVersion);
        return;
      } catch (err) {
        if (attempt >= RELEASE_ATTEMPTS) throw err;
        if (!isConflict(err)) await new Promise((r) => setTimeout(r, RELEASE_RETRY_MS * attempt));
      }
    }
  }

  private async tryAcquireOrRenew(): Promise<void> {
    const { lock, identity } = this.cfg;
    const nowDate = this.now();
    const now = microTime(nowDate);
    const durationSeconds = Math.ceil(this.cfg.leaseDurationMs / 1000);
    const current = await lock.get();
    if (!current) {
      const record = { holderIdentity: identity, leaseDurationSeconds: durationSeconds, acquireTime: now, renewTime: now, leaseTransitions: 0 };
      await lock.create(record);
      this.becameLeader();
      return;
    }
    if (!this.observed || this.observed.resourceVersion !== current.resourceVersion) {
      this.observed = { ...current, at: Date.now() };
    }
    const held = current.record.holderIdentity;
    const expired = Date.now() - this.observed.at > current.record.leaseDurationSeconds * 1000;
    if (held && held !== identity && !expired) {
      if (this.leading) this.stopLeading('lease taken by another candidate');
      return;
    }
    const record: LeaseRecord =
      held === identity
        ? { ...current.record, renewTime: now, leaseDurationSeconds: durationSeconds }
        : {
            holderIdentity: identity,
            leaseDurationSeconds: durationSeconds,
            acquireTime: now,
            renewTime: now,
            leaseTransitions: current.record.leaseTransitions + 1,
          };
    await lock.update(record, current.resourceVersion);
    this.becameLeader();
  }

  private becameLeader(): void {
    this.lastRenew = Date.now();
    // Our own write changed the resourceVersion; the next get() records the new observation.
    this.observed = undefined;
    if (!this.leading) {
      this.leading = new AbortController();
      // Every controller's informers and loops listen on this one signal (each removes its
      // listener when done): a dozen is the design, not a leak, so Node's warning at 11 is off.
      setMaxListeners(0, this.leading.signal);
      this.cfg.logger.info({ identity: this.cfg.identity }, 'became leader');
      this.cfg.onStartedLeading(this.leading.signal);
    }
  }

  private stopLeading(why: string): void {
    if (!this.leading) return;
    this.cfg.logger.info({ identity: this.cfg.identity, why }, 'stopped leading');
    this.leading.abort();
    this.leading = undefined;
    this.cfg.onStoppedLeading?.();
  }
}
