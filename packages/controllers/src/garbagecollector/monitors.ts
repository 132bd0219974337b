import type { Logger } from 'pino';
import type { KubeObject } from '@cluster/apimachinery';
import type { ApiClient } from '../client/api-client.js';
import { Informer, type InformerEventType } from '../client/informer.js';
import { discoverDeletableResources, kindKey, resourceKey, type GcResource } from './discover.js';

/** Accept headers of client-go's metadata client: the collector never holds whole objects. */
export const METADATA_ACCEPT = {
  list: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
  watch: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
  get: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
};

/** Keeps only the metadata the collector reads, so each held object stays small. */
export function gcFields(obj: KubeObject): KubeObject {
  const m = obj.metadata;
  const metadata: KubeObject['metadata'] = { name: m.name, uid: m.uid, resourceVersion: m.resourceVersion };
  if (m.namespace) metadata.namespace = m.namespace;
  if (m.ownerReferences?.length) metadata.ownerReferences = m.ownerReferences;
  if (m.deletionTimestamp) metadata.deletionTimestamp = m.deletionTimestamp;
  if (m.finalizers?.length) metadata.finalizers = m.finalizers;
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata };
}

/** What an informer holds of an object the collector cares about: the graph keeps the rest. */
export function heldFields(obj: KubeObject): KubeObject {
  const m = obj.metadata;
  const metadata: KubeObject['metadata'] = { name: m.name, uid: m.uid, resourceVersion: m.resourceVersion };
  if (m.namespace) metadata.namespace = m.namespace;
  return { metadata } as KubeObject;
}

interface Monitor {
  resource: GcResource;
  informer: Informer;
  abort: AbortController;
  done: Promise<void>;
}

export interface MonitorHooks {
  /** Every change an informer sees (reduced to the collector's fields), with the identity held before. */
  onEvent(resource: GcResource, type: InformerEventType, obj: KubeObject, previous: KubeObject | undefined): void;
  /** A resource is no longer served: its objects are forgotten. */
  onDropped(resource: GcResource): void;
  /** Discovery failed, wholly or for some group versions. */
  onSyncError(): void;
  /** Whether an informer keeps an entry for the object (the rest are seen on the watch only). */
  holds(obj: KubeObject): boolean;
  /** An informer listed again after a gap in its watch (not the first list): removals may have been missed. */
  onRelisted(resource: GcResource): void;
}

/**
 * The collector's informers (upstream's GraphBuilder monitors): one metadata-only list + watch per
 * deletable resource the server serves, started and stopped as discovery changes (custom
 * resources come and go with their definitions). `resourceOfKind` maps an owner reference's
 * group and kind to what is served now.
 */
export class Monitors {
  private readonly monitors = new Map<string, Monitor>();
  private kinds = new Map<string, GcResource>();

  constructor(
    private readonly client: ApiClient,
    private readonly logger: Logger,
    private readonly hooks: MonitorHooks,
  ) {}

  resourceOfKind(group: string, kind: string): GcResource | undefined {
    return this.kinds.get(kindKey(group, kind));
  }

  resource(group: string, resource: string): GcResource | undefined {
    return this.monitors.get(resourceKey({ group, resource }))?.resource;
  }

  /** The first lists of every informer running now. */
  synced(): Promise<void>[] {
    return [...this.monitors.values()].map((m) => m.informer.synced);
  }

  get count(): number {
    return this.monitors.size;
  }

  /**
   * Reads discovery and makes the informers match it, under `signal`. On a discovery failure the
   * running informers are kept (a group that failed keeps its informers) and the error is counted.
   */
  async sync(signal: AbortSignal): Promise<void> {
    let found;
    try {
      found = await discoverDeletableResources(this.client);
    } catch (err) {
      this.logger.warn({ err }, 'garbage collector: discovery failed; keeping the current informers');
      this.hooks.onSyncError();
      return;
    }
    if (signal.aborted) return;
    if (found.failed.length > 0) {
      this.logger.warn({ groupVersions: found.failed }, 'garbage collector: discovery failed for some group versions');
      this.hooks.onSyncError();
    }
    const failedGroups = new Set(found.failed.map((gv) => gv.split('/')[0]));
    const wanted = new Map(found.resources.map((r) => [resourceKey(r), r]));
    for (const [key, m] of this.monitors) {
      const now = wanted.get(key);
      if (now && now.groupVersionPath === m.resource.groupVersionPath) continue;
      if (!now && failedGroups.has(m.resource.group)) continue;
      m.abort.abort();
      this.monitors.delete(key);
      this.hooks.onDropped(m.resource);
      this.logger.info({ resource: key }, 'garbage collector: stopped watching');
    }
    for (const [key, r] of wanted) {
      if (this.monitors.has(key)) continue;
      const abort = new AbortController();
      const stop = () => abort.abort();
      signal.addEventListener('abort', stop, { once: true });
      const path = `${r.groupVersionPath}/${r.resource}`;
      const informer = new Informer(this.client, path, {
        logger: this.logger,
        accept: METADATA_ACCEPT,
        transform: gcFields,
        store: (o) => (this.hooks.holds(o) ? heldFields(o) : undefined),
        relisted: (first) => {
          if (!first) this.hooks.onRelisted(r);
        },
      });
      informer.onChange((type, obj, previous) => this.hooks.onEvent(r, type, obj, previous));
      const done = informer.run(abort.signal).finally(() => signal.removeEventListener('abort', stop));
      this.monitors.set(key, { resource: r, informer, abort, done });
    }
    const kinds = new Map<string, GcResource>();
    for (const m of this.monitors.values()) kinds.set(kindKey(m.resource.group, m.resource.kind), m.resource);
    this.kinds = kinds;
  }

  /** Stops every informer and waits for them. */
  async stop(): Promise<void> {
    for (const m of this.monitors.values()) m.abort.abort();
    await Promise.all([...this.monitors.values()].map((m) => m.done));
    this.monitors.clear();
  }
}
