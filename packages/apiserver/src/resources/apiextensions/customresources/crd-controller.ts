import { desiredCrdStatus, namesAccepted, type CustomResourceDefinition, type KubeObject } from '@cluster/apimachinery';
import type { GenericRegistry } from '../../../registry/generic-registry.js';
import type { RegistrySet } from '../../../registry/registry-set.js';
import type { ApiCatalog } from '../../../server/api-catalog.js';
import { runInformer } from '../../../authz/rbac/informer.js';
import { formatTime } from '../../../registry/object-meta.js';
import { crdCleanupFinalizer } from '../customresourcedefinitions/strategy.js';
import { customResourceServing } from './registrations.js';

/** What the controller needs of the server around it. */
export interface CrdControllerDeps {
  registries: RegistrySet;
  catalog: ApiCatalog;
  apiDomain: string;
  /** Starts the watch cache of a resource prefix (`/registry/<group>/<resource>/`) ahead of its first read. */
  startCache?: (prefix: string) => void;
  /** Stops the watch cache of a resource prefix whose resource is no longer served. */
  releaseCache?: (prefix: string) => Promise<void>;
  log?: (msg: string, err?: unknown) => void;
  /** Wait before retrying a cleanup that left objects behind (ms). */
  retryMs?: number;
}

/**
 * Serves custom resources on this replica, driven by a watch on CRDs (so every replica follows
 * every change, whoever wrote it): adds, changes and removes their registrations, discovery and
 * OpenAPI documents and watch caches; writes the CRD conditions (NamesAccepted, Established,
 * Terminating); and on deletion deletes every object of the CRD before dropping its cleanup
 * finalizer. Writes are idempotent and compare-and-swap, so replicas doing the same are harmless.
 */
export class CrdController {
  private readonly crds = new Map<string, CustomResourceDefinition>();
  /** What each served CRD was last served from, to rebuild documents only on real changes. */
  private readonly served = new Map<string, { fingerprint: string; prefix: string }>();
  private readonly cleaning = new Set<string>();
  private abort = new AbortController();

  constructor(private readonly deps: CrdControllerDeps) {}

  private get crdRegistry(): GenericRegistry {
    return this.deps.registries.byResource(`apiextensions.${this.deps.apiDomain}`, 'customresourcedefinitions')!;
  }

  /** Starts the list-then-watch; resolves once the CRDs stored at start are served. */
  async start(): Promise<void> {
    const { synced } = runInformer(
      () => this.crdRegistry,
      {
        replace: (objs) => {
          this.crds.clear();
          for (const o of objs) this.crds.set(o.metadata.name ?? '', o as CustomResourceDefinition);
          this.sync();
        },
        upsert: (obj) => {
          this.crds.set(obj.metadata.name ?? '', obj as CustomResourceDefinition);
          this.sync();
        },
        remove: (obj) => {
          this.crds.delete(obj.metadata.name ?? '');
          this.sync();
        },
      },
      this.abort.signal,
      { log: this.deps.log },
    );
    await synced;
  }

  stop(): void {
    this.abort.abort();
  }

  /** Brings serving in line with the known CRDs, then starts the writes their status needs. */
  private sync(): void {
    const all = [...this.crds.values()];
    const wanted = new Map<string, CustomResourceDefinition>();
    for (const crd of all) if (namesAccepted(crd, all)) wanted.set(crd.metadata.name ?? '', crd);
    let changed = false;
    for (const [name, entry] of this.served) {
      if (wanted.has(name)) continue;
      this.served.delete(name);
      this.deps.registries.replaceOwned(name, []);
      void this.deps.releaseCache?.(entry.prefix);
      changed = true;
    }
    const updates: [string, CustomResourceDefinition][] = [];
    for (const [name, crd] of wanted) {
      const fingerprint = JSON.stringify([crd.spec, crd.status?.acceptedNames ?? null, !!crd.metadata.deletionTimestamp]);
      if (this.served.get(name)?.fingerprint === fingerprint) continue;
      const prefix = `/registry/${crd.spec.group}/${crd.spec.names?.plural}/`;
      const old = this.served.get(name);
      if (old && old.prefix !== prefix) void this.deps.releaseCache?.(old.prefix);
      this.served.set(name, { fingerprint, prefix });
      updates.push([name, crd]);
      changed = true;
    }
    if (changed) {
      const servings = [...wanted.entries()].map(([name, crd]) => ({ name, ...customResourceServing(crd) }));
      // Documents first: registries built next read their kinds' schemas from the catalog.
      this.deps.catalog.setCustomResources(
        servings.flatMap((s) => s.registrations),
        Object.assign({}, ...servings.map((s) => s.definitions)),
      );
      for (const s of servings) {
        if (!updates.some(([n]) => n === s.name)) continue;
        this.deps.registries.replaceOwned(s.name, s.registrations);
        this.deps.startCache?.(this.served.get(s.name)!.prefix);
      }
    }
    for (const crd of all) void this.reconcileStatus(crd, all);
  }

  private async reconcileStatus(crd: CustomResourceDefinition, all: CustomResourceDefinition[]): Promise<void> {
    const name = crd.metadata.name ?? '';
    const deleting = !!crd.metadata.deletionTimestamp;
    const cleanup = deleting
      ? { type: 'Terminating', status: 'True' as const, reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' }
      : undefined;
    const next = desiredCrdStatus(crd, all, formatTime(new Date()), cleanup);
    try {
      if (next) {
        await this.crdRegistry.patch('', name, (cur) => ({ ...(cur as KubeObject), status: next }) as KubeObject, {
          dryRun: false,
          subresource: 'status',
        });
      }
      if (deleting && crd.metadata.finalizers?.includes(crdCleanupFinalizer(this.deps.apiDomain))) await this.cleanup(crd);
    } catch (e) {
      // A conflict or a vanished CRD: the watch brings the newer state and another round.
      const code = (e as { status?: { code?: number } }).status?.code;
      if (code !== 409 && code !== 404) this.deps.log?.(`CRD ${name}: status update failed`, e);
    }
  }

  /** Deletes every object of a CRD being deleted, then drops its cleanup finalizer. */
  private async cleanup(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata.name ?? '';
    if (this.cleaning.has(name)) return;
    this.cleaning.add(name);
    try {
      const registry = this.deps.registries.byResource(crd.spec.group ?? '', crd.spec.names?.plural ?? '');
      if (registry?.info.customResource) {
        await registry.deleteCollection('', { hasSelector: false }, { dryRun: false });
        const left = await registry.list('', { hasSelector: false, limit: 1 });
        if (left.items.length > 0) {
          // Objects held by their own finalizers: look again shortly.
          setTimeout(() => this.crds.has(name) && void this.cleanup(this.crds.get(name)!), this.deps.retryMs ?? 2000).unref();
          return;
        }
      }
      const finalizer = crdCleanupFinalizer(this.deps.apiDomain);
      await this.crdRegistry.patch(
        '',
        name,
        (cur) => {
          const next = structuredClone(cur as KubeObject);
          next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== finalizer);
          return next;
        },
        { dryRun: false },
      );
    } finally {
      this.cleaning.delete(name);
    }
  }
}
