import { randomInt } from 'node:crypto';
import { index, newInternalError, newInvalid, type FieldError, type KubeObject } from '@cluster/apimachinery';
import { isStorageError, type Store } from '@cluster/storage';
import type { ObjectAllocations, Reservation } from '../../../registry/registration.js';
import { formatIPv4, offsetOf, usableOffsets, type IPv4Range, type PortRange } from './ip-range.js';
import { needsClusterIP, needsHealthCheckNodePort, needsNodePorts, type Service } from './types.js';

/** Where the allocations live: one etcd key per handed-out value, outside any served resource. */
export const SERVICE_IPS_PREFIX = '/registry/ranges/serviceips/';
export const NODE_PORTS_PREFIX = '/registry/ranges/servicenodeports/';

/** Where the Services themselves are stored (the owners a repair looks up). */
const SERVICES_PREFIX = '/registry/core/services/';

/** A claim younger than this may belong to a create still in flight (bounded by the request timeout). */
export const REPAIR_GRACE_MS = 2 * 60_000;

/** Attempts at a random value before giving up (the pool is re-read every few failed creates). */
const MAX_RANDOM_ATTEMPTS = 64;

/** Random probes per attempt before listing the free values (the pool is then dense). */
const RANDOM_PROBES = 16;

/**
 * Why one key per value rather than upstream's single bitmap object: each value is claimed with
 * an etcd create (compare create_revision == 0), so two replicas racing for the same IP cannot both
 * win it, without every allocation in the cluster contending on one key (upstream's newer
 * IPAddress-object allocator makes the same choice). The record names its owner (metadata.uid is
 * the Service's uid), and a release deletes the key only under that uid precondition, so a late
 * release never frees a value that has since gone to another service.
 *
 * The Service write and the claims are separate etcd transactions, compensated as upstream's
 * service REST does: the generic registry claims first, stores the Service, and releases the
 * claims if the store fails (see Reservation). A replica dying between the two can leave a claim
 * without a Service; it never causes a value to be handed out twice, and `repair` (run
 * periodically by the replicas) frees it once it is older than any write in flight.
 */
interface Claim {
  key: string;
  field: string;
}

interface AllocationRecord extends KubeObject {
  owner: { namespace: string; name: string };
}

export interface ServiceAllocatorOptions {
  ipRange: IPv4Range;
  nodePorts: PortRange;
}

export function serviceAllocations(opts: ServiceAllocatorOptions): (store: Store) => ObjectAllocations {
  return (store) => new ServiceAllocator(store, opts);
}

class ServiceAllocator implements ObjectAllocations {
  constructor(
    private readonly store: Store,
    private readonly opts: ServiceAllocatorOptions,
  ) {}

  async reserve(obj: KubeObject, old: KubeObject | undefined, dryRun: boolean): Promise<Reservation> {
    const svc = obj as Service;
    const prev = old as Service | undefined;
    const claimed: Claim[] = [];
    const errs: FieldError[] = [];
    try {
      await this.reserveClusterIP(svc, prev, dryRun, claimed, errs);
      await this.reserveNodePorts(svc, prev, dryRun, claimed, errs);
      await this.reserveHealthCheckNodePort(svc, prev, dryRun, claimed, errs);
    } catch (e) {
      await this.releaseClaims(claimed, svc);
      throw e;
    }
    if (errs.length) {
      await this.releaseClaims(claimed, svc);
      throw newInvalid({ group: '', kind: 'Service' }, svc.metadata.name ?? '', errs);
    }
    return {
      held: claimed.map((c) => c.key),
      commit: async () => {
        if (!prev || dryRun) return;
        const kept = new Set(this.keysOf(svc));
        await this.releaseKeys(this.keysOf(prev).filter((k) => !kept.has(k)), prev);
      },
      release: (keep) => this.releaseClaims(claimed, svc, keep),
    };
  }

  async releaseAll(obj: KubeObject): Promise<void> {
    await this.releaseKeys(this.keysOf(obj as Service), obj);
  }

  async repair(now: Date): Promise<number> {
    let freed = 0;
    for (const prefix of [SERVICE_IPS_PREFIX, NODE_PORTS_PREFIX]) {
      const claims = (await this.store.getList(prefix)).items as AllocationRecord[];
      for (const claim of claims) {
        const created = Date.parse(claim.metadata.creationTimestamp ?? '');
        if (Number.isFinite(created) && now.getTime() - created < REPAIR_GRACE_MS) continue;
        const key = prefix + (claim.metadata.name ?? '');
        if (await this.ownerHolds(claim, key)) continue;
        try {
          // Only this exact claim: one re-made meanwhile has another revision.
          await this.store.delete(key, { preconditions: { uid: claim.metadata.uid ?? '', resourceVersion: claim.metadata.resourceVersion } });
          freed++;
        } catch {
          // Changed or gone meanwhile: the next repair looks again.
        }
      }
    }
    return freed;
  }

  /** Whether the Service named by the claim exists with its uid and still holds the value. */
  private async ownerHolds(claim: AllocationRecord, key: string): Promise<boolean> {
    let owner: Service;
    try {
      owner = (await this.store.get(`${SERVICES_PREFIX}${claim.owner?.namespace ?? ''}/${claim.owner?.name ?? ''}`)) as Service;
    } catch (e) {
      if (isStorageError(e, 'KeyNotFound')) return false;
      throw e;
    }
    return owner.metadata.uid === claim.metadata.uid && this.keysOf(owner).includes(key);
  }

  /** Keys of every value `svc` holds. */
  private keysOf(svc: Service): string[] {
    const keys: string[] = [];
    const ip = svc.spec?.clusterIP;
    if (ip && needsClusterIP(svc)) keys.push(SERVICE_IPS_PREFIX + ip);
    for (const p of svc.spec?.ports ?? []) if (p.nodePort) keys.push(NODE_PORTS_PREFIX + String(p.nodePort));
    if (svc.spec?.healthCheckNodePort && needsHealthCheckNodePort(svc)) keys.push(NODE_PORTS_PREFIX + String(svc.spec.healthCheckNodePort));
    return [...new Set(keys)];
  }

  private async reserveClusterIP(svc: Service, prev: Service | undefined, dryRun: boolean, claimed: Claim[], errs: FieldError[]): Promise<void> {
    if (!needsClusterIP(svc)) return;
    const spec = svc.spec!;
    const requested = spec.clusterIP ?? '';
    if (requested !== '' && prev && needsClusterIP(prev) && prev.spec?.clusterIP === requested) return;
    const field = index('spec.clusterIPs', 0);
    const range = this.opts.ipRange;
    if (requested !== '') {
      if (offsetOf(range, requested) === undefined) {
        errs.push(
          invalidIPs(requested, `failed to allocate IP ${requested}: the provided IP (${requested}) is not in the valid range. The range of valid IPs is ${range.cidr}`),
        );
        return;
      }
      if (!(await this.claim(SERVICE_IPS_PREFIX + requested, svc, dryRun, claimed, field))) {
        errs.push(invalidIPs(requested, `failed to allocate IP ${requested}: provided IP is already allocated`));
      }
      return;
    }
    // The first IP belongs to the `kubernetes` Service, which asks for it by value.
    const { first, last } = usableOffsets(range);
    const ip = await this.claimRandom(SERVICE_IPS_PREFIX, first + 1, last, (off) => formatIPv4(range.base + off), svc, dryRun, claimed, field);
    if (ip === undefined) throw newInternalError(new Error('failed to allocate a serviceIP: range is full'));
    spec.clusterIP = ip;
    spec.clusterIPs = [ip];
  }

  private async reserveNodePorts(svc: Service, prev: Service | undefined, dryRun: boolean, claimed: Claim[], errs: FieldError[]): Promise<void> {
    if (!needsNodePorts(svc)) return;
    const held = new Set(prev && needsNodePorts(prev) ? (prev.spec?.ports ?? []).map((p) => p.nodePort).filter(Boolean) : []);
    const range = this.opts.nodePorts;
    const mine = new Set<number>();
    const ports = svc.spec?.ports ?? [];
    for (const [i, p] of ports.entries()) {
      const field = `spec.ports[${i}].nodePort`;
      if (p.nodePort) {
        // The same node port on two ports of one service (TCP and UDP) is one value.
        if (held.has(p.nodePort) || mine.has(p.nodePort)) continue;
        if (p.nodePort < range.base || p.nodePort >= range.base + range.size) {
          errs.push({
            type: 'FieldValueInvalid',
            field,
            badValue: p.nodePort,
            detail: `provided port is not in the valid range. The range of valid ports is ${range.text}`,
          });
          continue;
        }
        if (await this.claim(NODE_PORTS_PREFIX + String(p.nodePort), svc, dryRun, claimed, field)) mine.add(p.nodePort);
        else errs.push({ type: 'FieldValueInvalid', field, badValue: p.nodePort, detail: 'provided port is already allocated' });
      }
    }
    for (const p of ports) {
      if (p.nodePort) continue;
      const port = await this.claimRandom(NODE_PORTS_PREFIX, range.base, range.base + range.size - 1, String, svc, dryRun, claimed, 'spec.ports');
      if (port === undefined) throw newInternalError(new Error('failed to allocate a nodePort: range is full'));
      p.nodePort = Number(port);
      mine.add(p.nodePort);
    }
  }

  /** LoadBalancer + externalTrafficPolicy Local: the health-check port comes from the node port range too. */
  private async reserveHealthCheckNodePort(svc: Service, prev: Service | undefined, dryRun: boolean, claimed: Claim[], errs: FieldError[]): Promise<void> {
    if (!needsHealthCheckNodePort(svc)) return;
    const spec = svc.spec!;
    const range = this.opts.nodePorts;
    const requested = spec.healthCheckNodePort;
    const field = 'spec.healthCheckNodePort';
    if (requested) {
      if (prev && needsHealthCheckNodePort(prev) && prev.spec?.healthCheckNodePort === requested) return;
      if ((spec.ports ?? []).some((p) => p.nodePort === requested)) return;
      if (requested < range.base || requested >= range.base + range.size) {
        errs.push({ type: 'FieldValueInvalid', field, badValue: requested, detail: `provided port is not in the valid range. The range of valid ports is ${range.text}` });
      } else if (!(await this.claim(NODE_PORTS_PREFIX + String(requested), svc, dryRun, claimed, field))) {
        errs.push({ type: 'FieldValueInvalid', field, badValue: requested, detail: 'provided port is already allocated' });
      }
      return;
    }
    const port = await this.claimRandom(NODE_PORTS_PREFIX, range.base, range.base + range.size - 1, String, svc, dryRun, claimed, field);
    if (port === undefined) throw newInternalError(new Error('failed to allocate a nodePort: range is full'));
    spec.healthCheckNodePort = Number(port);
  }

  /**
   * Claims one value by creating its key; false when another object holds it. A claim this object
   * already holds (an earlier attempt of the same write, retried after a conflict) is taken over.
   * A dry run only looks.
   */
  private async claim(key: string, svc: Service, dryRun: boolean, claimed: Claim[], field: string): Promise<boolean> {
    if (dryRun) {
      try {
        return (await this.store.get(key)).metadata.uid === svc.metadata.uid;
      } catch (e) {
        if (isStorageError(e, 'KeyNotFound')) return true;
        throw e;
      }
    }
    const record: AllocationRecord = {
      apiVersion: 'v1',
      kind: 'ServiceAllocation',
      metadata: { name: key.slice(key.lastIndexOf('/') + 1), uid: svc.metadata.uid ?? '', creationTimestamp: new Date().toISOString() },
      owner: { namespace: svc.metadata.namespace ?? '', name: svc.metadata.name ?? '' },
    };
    try {
      await this.store.create(key, record);
      claimed.push({ key, field });
      return true;
    } catch (e) {
      if (!isStorageError(e, 'KeyExists')) throw e;
    }
    const holder = await this.store.get(key).catch(() => undefined);
    if (!holder || !svc.metadata.uid || holder.metadata.uid !== svc.metadata.uid) return false;
    claimed.push({ key, field });
    return true;
  }

  /**
   * Claims a random free value in [lo, hi]. Random probes against the pool as last read find a
   * free value quickly while the pool is sparse; once probes keep hitting taken values the free
   * ones are listed and picked from. A pick another writer took meanwhile fails its create, and
   * the pool is read again every few attempts.
   */
  private async claimRandom(
    prefix: string,
    lo: number,
    hi: number,
    format: (n: number) => string,
    svc: Service,
    dryRun: boolean,
    claimed: Claim[],
    field: string,
  ): Promise<string | undefined> {
    let taken = new Set<string>();
    let free: string[] | undefined;
    for (let attempt = 0; attempt < MAX_RANDOM_ATTEMPTS; attempt++) {
      if (attempt % 4 === 0) {
        taken = new Set((await this.store.getList(prefix)).items.map((i) => i.metadata.name ?? ''));
        for (const c of claimed) taken.add(c.key.slice(prefix.length));
        free = undefined;
      }
      let pick: string | undefined;
      for (let probe = 0; probe < RANDOM_PROBES && !free; probe++) {
        const candidate = format(lo + randomInt(hi - lo + 1));
        if (!taken.has(candidate)) {
          pick = candidate;
          break;
        }
      }
      if (pick === undefined) {
        free ??= freeValues(lo, hi, format, taken);
        if (free.length === 0) return undefined;
        pick = free.splice(randomInt(free.length), 1)[0]!;
      }
      taken.add(pick);
      if (await this.claim(prefix + pick, svc, dryRun, claimed, field)) return pick;
    }
    throw newInternalError(new Error(`failed to allocate a value under ${prefix}: too many concurrent allocations, try again`));
  }

  private async releaseClaims(claims: Claim[], owner: KubeObject, keep?: ReadonlySet<string>): Promise<void> {
    await this.releaseKeys(
      claims.splice(0).map((c) => c.key).filter((k) => !keep?.has(k)),
      owner,
    );
  }

  /** Deletes each key if `owner` (by uid) still holds it; a value someone else holds is left alone. */
  private async releaseKeys(keys: string[], owner: KubeObject): Promise<void> {
    for (const key of keys) {
      try {
        await this.store.delete(key, { preconditions: owner.metadata.uid ? { uid: owner.metadata.uid } : undefined });
      } catch {
        // Gone already, or held by another object: nothing of ours to free.
      }
    }
  }
}

function freeValues(lo: number, hi: number, format: (n: number) => string, taken: ReadonlySet<string>): string[] {
  const free: string[] = [];
  for (let n = lo; n <= hi; n++) {
    const v = format(n);
    if (!taken.has(v)) free.push(v);
  }
  return free;
}

function invalidIPs(ip: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field: 'spec.clusterIPs', badValue: [ip], detail };
}
