import { newConflict, type GroupResource, type KubeList, type KubeObject } from '@cluster/apimachinery';
import { parseRevision, type Store } from '@cluster/storage';
import type { ObjectAllocations } from './registration.js';
import type { ServedForm } from './served-form.js';
import type { ResourceStrategy } from './strategy.js';
import { garbageCollectionFinalizers } from './gc-finalizers.js';
import { deleteListedObject, forEachBounded, KeyedSerializer, type ListedObjectDeleter } from './delete-collection.js';
import type { DeleteRequest, DeleteResult, ListRequest, ListResponse } from './registry-types.js';
import { formatTime } from './object-meta.js';

/** What the delete paths need of their registry (see GenericRegistry). */
export interface DeleteContext {
  readonly groupResource: GroupResource;
  readonly strategy: ResourceStrategy;
  readonly store: Store;
  readonly form: ServedForm;
  readonly allocations: ObjectAllocations | undefined;
  /** The server-wide switches deletes follow (see RegistryBehaviour). */
  readonly behaviour: { readonly garbageCollection: boolean; readonly deleteCollectionWorkers?: number | undefined };
  now(): Date;
  key(namespace: string, name: string): string;
  list(namespace: string, req: ListRequest): Promise<ListResponse>;
  /** Delete admission (mutating, then validating) of `old`, the object in its served form. */
  admitDelete(namespace: string, name: string, old: KubeObject, req: DeleteRequest): Promise<void>;
  /** The Status error of a storage error for this resource. */
  interpret(e: unknown, name: string): unknown;
}

/**
 * The delete paths of a GenericRegistry: a single DELETE (two-phase with finalizers, SPEC 3.1),
 * DeleteCollection, and the removal of an object whose last finalizer is gone.
 * <- k8s.io/apiserver pkg/registry/generic/registry/store.go Delete, DeleteCollection
 */
export class RegistryDeletes {
  private readonly collectionDeletes = new KeyedSerializer();

  constructor(private readonly r: DeleteContext) {}

  /** The kind orphans dependents when a delete names no policy (upstream's DefaultGarbageCollectionPolicy). */
  private get defaultOrphan(): boolean {
    return this.r.strategy.defaultGarbageCollectionPolicy === 'OrphanDependents';
  }

  async delete(namespace: string, name: string, req: DeleteRequest): Promise<DeleteResult> {
    const r = this.r;
    const key = r.key(namespace, name);
    try {
      const current = await r.store.get(key);
      // Preconditions are checked by the store against the state each write acts on.
      await r.admitDelete(namespace, name, r.form.fromStorage(current), req);
      // Orphan and Foreground deletes leave the object to a garbage collector under a finalizer.
      const gc = r.behaviour.garbageCollection;
      const gcFinalizers = gc ? garbageCollectionFinalizers(current.metadata.finalizers, req.propagationPolicy, this.defaultOrphan) : undefined;
      const withGcFinalizers = gcFinalizers ? { ...current, metadata: { ...current.metadata, finalizers: gcFinalizers } } : current;
      // (A changed list is written first even when nothing is left pending: a stale `orphan` goes.)
      if (this.pendingFinalization(withGcFinalizers) || gcFinalizers) {
        // Phase one of SPEC 3.1: mark for deletion and keep the object until its finalizers are gone.
        const marked = await r.store.guaranteedUpdate(
          key,
          (cur) => {
            if (!cur) throw newConflict(r.groupResource, name, 'the object was deleted concurrently');
            // A fresh read for this attempt: changing it in place is safe.
            const next = cur;
            const finalizers = gc ? garbageCollectionFinalizers(next.metadata.finalizers, req.propagationPolicy, this.defaultOrphan) : undefined;
            if (finalizers) {
              if (finalizers.length > 0) next.metadata.finalizers = finalizers;
              else delete next.metadata.finalizers;
            }
            if (!next.metadata.deletionTimestamp && this.pendingFinalization(next)) {
              next.metadata.deletionTimestamp = formatTime(r.now());
              next.metadata.deletionGracePeriodSeconds = 0;
            }
            r.strategy.prepareForDelete?.(next);
            return next;
          },
          { ignoreNotFound: false, preconditions: req.preconditions, dryRun: req.dryRun },
        );
        if (!this.pendingFinalization(marked)) return this.deleteNow(key, name, req);
        return { object: r.form.fromStorage(marked), deleted: false };
      }
      return await this.deleteNow(key, name, req);
    } catch (e) {
      throw r.interpret(e, name);
    }
  }

  /**
   * Deletes every object of the collection the predicate selects, each as a single delete of it
   * would (the caller's preconditions dropped, as upstream), `deleteCollectionWorkers` at a time.
   * Answers the list of what each delete returned; objects gone meanwhile are left out.
   */
  async deleteCollection(namespace: string, list: ListRequest, req: DeleteRequest): Promise<KubeList> {
    // The same selection asked again while it runs waits for it (see KeyedSerializer).
    const selection = list.predicate ? list.predicate.selectorKey : '';
    const key = selection === undefined ? undefined : `${namespace}\u0000${selection}`;
    return this.collectionDeletes.run(key, () => this.deleteListed(namespace, list, req));
  }

  private async deleteListed(namespace: string, list: ListRequest, req: DeleteRequest): Promise<KubeList> {
    const items = await this.r.list(namespace, { ...list, limit: undefined, continueToken: undefined });
    const one: DeleteRequest = { ...req, preconditions: undefined };
    const deleter = this.listedObjectDeleter(one);
    const results = await forEachBounded(items.items, this.r.behaviour.deleteCollectionWorkers ?? 1, (item) => deleteListedObject(deleter, item));
    const deleted = results.filter((r): r is DeleteResult => r !== undefined).map((r) => r.object);
    return { kind: items.kind, apiVersion: items.apiVersion, metadata: items.metadata, items: deleted };
  }

  /** The steps of deleting one listed object (see deleteListedObject); the listed objects are never changed. */
  private listedObjectDeleter(req: DeleteRequest): ListedObjectDeleter {
    const r = this.r;
    const store = r.store;
    // Served and stored forms are the same objects without conversion: the listed state is the stored one.
    const guarded = store.deleteIfUnchanged && !r.form.conversion && !req.dryRun;
    const gc = r.behaviour.garbageCollection;
    return {
      admit: (listed) => r.admitDelete(listed.metadata.namespace ?? '', listed.metadata.name ?? '', listed, req),
      removedAtOnce: (listed) =>
        !!guarded &&
        !!listed.metadata.resourceVersion &&
        !this.pendingFinalization(listed) &&
        !(gc && garbageCollectionFinalizers(listed.metadata.finalizers, req.propagationPolicy, this.defaultOrphan)),
      deleteIfUnchanged: async (listed) => {
        const name = listed.metadata.name ?? '';
        try {
          return await store.deleteIfUnchanged!(r.key(listed.metadata.namespace ?? '', name), parseRevision(listed.metadata.resourceVersion));
        } catch (e) {
          throw r.interpret(e, name);
        }
      },
      deleted: async (listed) => {
        await r.allocations?.releaseAll(listed);
        return { object: r.form.fromStorage(listed), deleted: true };
      },
      deleteFully: (listed) => this.delete(listed.metadata.namespace ?? '', listed.metadata.name ?? '', req),
    };
  }

  /** Removes the object, unless finalizers appeared on it meanwhile (checked on the state deleted). */
  async deleteNow(key: string, name: string, req: DeleteRequest): Promise<DeleteResult> {
    const r = this.r;
    const object = await r.store.delete(key, {
      preconditions: req.preconditions,
      dryRun: req.dryRun,
      validateDeletion: (cur) => {
        if (this.pendingFinalization(cur)) {
          throw newConflict(r.groupResource, name, 'finalizers were added concurrently; delete the object again');
        }
      },
    });
    if (!req.dryRun) await r.allocations?.releaseAll(object);
    return { object: r.form.fromStorage(object), deleted: true };
  }

  /** Whether `obj` waits for finalizers (its own, or the strategy's, e.g. a namespace's spec.finalizers). */
  pendingFinalization(obj: KubeObject): boolean {
    return (obj.metadata.finalizers?.length ?? 0) > 0 || (this.r.strategy.pendingFinalization?.(obj) ?? false);
  }
}
