import type { Etcd3 } from 'etcd3';

/** Longest time one etcd lease is handed to new writes (upstream's leaseReuseDurationSeconds). */
const MAX_REUSE_SECONDS = 60;
/** Share of the TTL a lease may be reused for (upstream's leaseReuseDurationPercent). */
const REUSE_SHARE = 0.05;

/**
 * etcd leases for keys written with a TTL (events), after upstream's etcd3 lease manager: one
 * lease is granted per TTL and reused by every write within a short window, so a burst of events
 * costs one LeaseGrant, not one each. A key then lives between its TTL and its TTL plus the reuse
 * window.
 */
export class LeaseManager {
  private readonly current = new Map<number, { id: Promise<string>; reuseUntil: number }>();

  constructor(
    private readonly client: Etcd3,
    private readonly now: () => number = Date.now,
  ) {}

  /** The lease ID to attach to a write that should expire `ttlSeconds` from now. Throws what etcd throws. */
  async leaseFor(ttlSeconds: number): Promise<string> {
    const reuse = Math.min(MAX_REUSE_SECONDS, ttlSeconds * REUSE_SHARE);
    const now = this.now();
    const held = this.current.get(ttlSeconds);
    if (held && now < held.reuseUntil) return held.id;
    const id = this.client.leaseClient.leaseGrant({ TTL: Math.ceil(ttlSeconds + reuse) }).then((r) => String(r.ID));
    this.current.set(ttlSeconds, { id, reuseUntil: now + reuse * 1000 });
    // A failed grant is not reused.
    id.catch(() => this.current.delete(ttlSeconds));
    return id;
  }
}
