import type { KubeObject } from '@cluster/apimachinery';
import { ApiError, type ApiClient } from '../client/api-client.js';

export interface LeaseRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: string;
  renewTime: string;
  leaseTransitions: number;
}

interface Lease extends KubeObject {
  spec?: Partial<LeaseRecord>;
}

/** MicroTime: RFC 3339 with microseconds, as Lease times are serialized. */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * A coordination Lease as a lock (client-go's LeaseLock): read the record, create it, or update
 * it under optimistic concurrency so that two candidates never both win.
 */
export class LeaseLock {
  private readonly path: string;
  private readonly collection: string;

  constructor(
    private readonly client: ApiClient,
    apiDomain: string,
    readonly namespace: string,
    readonly name: string,
  ) {
    this.collection = `/apis/coordination.${apiDomain}/v1/namespaces/${namespace}/leases`;
    this.path = `${this.collection}/${name}`;
  }

  /** The current record and the lease's resourceVersion, or undefined when there is no lease. */
  async get(): Promise<{ record: LeaseRecord; resourceVersion: string } | undefined> {
    try {
      const lease = await this.client.get<Lease>(this.path);
      const s = lease.spec ?? {};
      return {
        record: {
          holderIdentity: s.holderIdentity ?? '',
          leaseDurationSeconds: s.leaseDurationSeconds ?? 0,
          acquireTime: s.acquireTime ?? '',
          renewTime: s.renewTime ?? '',
          leaseTransitions: s.leaseTransitions ?? 0,
        },
        resourceVersion: lease.metadata.resourceVersion ?? '',
      };
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return undefined;
      throw e;
    }
  }

  async create(record: LeaseRecord): Promise<void> {
    await this.client.create<Lease>(this.collection, this.lease(record));
  }

  /** Writes the record only if the lease is still at resourceVersion (409 otherwise). */
  async update(record: LeaseRecord, resourceVersion: string): Promise<void> {
    const lease = this.lease(record);
    lease.metadata.resourceVersion = resourceVersion;
    await this.client.update<Lease>(this.path, lease);
  }

  private lease(record: LeaseRecord): Lease {
    return {
      apiVersion: this.collection.split('/').slice(2, 4).join('/'),
      kind: 'Lease',
      metadata: { name: this.name, namespace: this.namespace },
      spec: record,
    };
  }
}
