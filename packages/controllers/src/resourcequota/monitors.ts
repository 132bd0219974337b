import type { Logger } from 'pino';
import type { KubeList, KubeObject, Status } from '@cluster/apimachinery';
import { ApiError, type ApiClient, type WatchEvent } from '../client/api-client.js';
import { replenishment } from './reconcile.js';

/** A served resource: its collection path (all namespaces) and whether it is namespaced. */
export interface ServedResource {
  group: string;
  resource: string;
  /** e.g. `/api/v1/pods` or `/apis/apps/v1/replicasets`. */
  path: string;
}

/** Accept headers of the metadata-only view (client-go's metadata client). */
export const METADATA_ONLY = {
  list: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
  watch: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
};

/** Whether quota reads more of these objects than their metadata (pods, services, claims). */
export function needsWholeObjects(group: string, resource: string): boolean {
  return group === '' && (resource === 'pods' || resource === 'services' || resource === 'persistentvolumeclaims');
}

/** Called when objects of a resource in a namespace changed in a way that may give usage back; namespace '' means any. */
export type ReplenishFn = (group: string, resource: string, namespace: string) => void;

/**
 * Watches of the resources some quota counts (upstream's quota monitors), kept as event streams
 * rather than informers: nothing but a few bytes per pod or service is held, so a cluster of many
 * objects costs the controller no copy of them. Each stream lists one item for a start revision,
 * then watches from it; when it had to start over (history compacted, an error), every quota
 * counting the resource is recomputed, since deletions may have been missed.
 */
export class QuotaMonitors {
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly client: ApiClient,
    private readonly logger: Logger,
    private readonly replenish: ReplenishFn,
    private readonly now: () => Date,
  ) {}

  /** Starts streams for `wanted` resources not yet watched and stops those no longer wanted. */
  sync(wanted: readonly ServedResource[], signal: AbortSignal): void {
    const keys = new Set(wanted.map((r) => `${r.group}/${r.resource}`));
    for (const [key, ctl] of this.running) {
      if (!keys.has(key)) {
        ctl.abort();
        this.running.delete(key);
      }
    }
    for (const r of wanted) {
      const key = `${r.group}/${r.resource}`;
      if (this.running.has(key) || signal.aborted) continue;
      const ctl = new AbortController();
      signal.addEventListener('abort', () => ctl.abort(), { once: true });
      this.running.set(key, ctl);
      void this.run(r, ctl.signal);
    }
  }

  get watched(): string[] {
    return [...this.running.keys()];
  }

  private async run(r: ServedResource, signal: AbortSignal): Promise<void> {
    const remembered = new Map<string, string>();
    let retryMs = 500;
    let first = true;
    while (!signal.aborted) {
      try {
        const sep = r.path.includes('?') ? '&' : '?';
        // Only pods and services are looked into; every other kind streams its metadata only.
        const whole = needsWholeObjects(r.group, r.resource);
        const list = await this.client.list<KubeObject>(`${r.path}${sep}limit=1`, whole ? undefined : METADATA_ONLY.list);
        let rv = (list as KubeList).metadata.resourceVersion ?? '';
        // Starting over may have missed deletions: recompute every quota counting this resource.
        if (!first) this.replenish(r.group, r.resource, '');
        first = false;
        remembered.clear();
        for (;;) {
          const url = `${r.path}${sep}watch=1&allowWatchBookmarks=true&timeoutSeconds=300&resourceVersion=${encodeURIComponent(rv)}`;
          await this.client.watch(url, (e) => (rv = this.apply(r, e, remembered) ?? rv), signal, whole ? undefined : METADATA_ONLY.watch);
          if (signal.aborted) return;
        }
      } catch (err) {
        if (signal.aborted) return;
        if (!(err instanceof ApiError && err.code === 410)) {
          this.logger.warn({ err, resource: `${r.resource}.${r.group}` }, 'quota monitor watch failed; retrying');
          await sleep(retryMs, signal);
          retryMs = Math.min(retryMs * 2, 30_000);
        }
      }
    }
  }

  /** Handles one event; returns its resourceVersion. Throws ApiError for an ERROR event. */
  private apply(r: ServedResource, e: WatchEvent, remembered: Map<string, string>): string | undefined {
    if (e.type === 'ERROR') {
      const status = e.object as unknown as Partial<Status>;
      throw new ApiError(status.code ?? 500, status);
    }
    const rv = e.object.metadata?.resourceVersion;
    if (e.type === 'BOOKMARK') return rv;
    const uid = e.object.metadata.uid ?? `${e.object.metadata.namespace ?? ''}/${e.object.metadata.name ?? ''}`;
    const { replenish, remember } = replenishment(r.resource, e.type, e.object, remembered.get(uid), this.now());
    if (remember === undefined) remembered.delete(uid);
    else remembered.set(uid, remember);
    if (replenish) this.replenish(r.group, r.resource, e.object.metadata.namespace ?? '');
    return rv;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
