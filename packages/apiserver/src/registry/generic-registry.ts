import {
  newBadRequest,
  newConflict,
  newInternalError,
  newInvalid,
  invalid,
  newNotFound,
  newMethodNotSupported,
  type GroupResource,
  type KubeObject,
  type KubeList,
  type Status,
  setManagedFields,
  successStatus,
  updateManagedFields,
  type JsonObject,
} from '@cluster/apimachinery';
import type { Store, WatchOptions, WatchStream } from '@cluster/storage';
import { isStorageError, parseRevision } from '@cluster/storage';
import type { AdmissionStepObserver } from '../admission/step-metrics.js';
import { runAdmission, runMutatingAdmission, type AdmissionAttributes, type AdmissionPlugin, type AdmissionOperation, type AdmissionReport } from '../admission/admission.js';
import type { ResourceInfo } from './resource-info.js';
import type { UserInfo } from '../authn/user.js';
import type { ObjectAllocations, RegistrationOperations, Reservation } from './registration.js';
import { ServedForm } from './served-form.js';
import { convertedWatch } from './converted-watch.js';
import type { ResourceStrategy, SubresourceStrategy } from './strategy.js';
import { interpretStorageError, type ReadContext } from './storage-errors.js';
import { RegistryDeletes } from './delete.js';
import type { DeleteRequest, DeleteResult, KindSchemas, ListRequest, ListResponse, ObjectTransform, WriteOptions } from './registry-types.js';
import { carryUpdateMeta, deepCopy, fillCreateMeta, generateName, placeInNamespace } from './object-meta.js';

const MAX_GENERATE_NAME_ATTEMPTS = 8;

/** Server-wide switches every registry follows. */
export interface RegistryBehaviour {
  /**
   * --enable-garbage-collector: Orphan and Foreground deletes leave the object under the `orphan` /
   * `foregroundDeletion` finalizer for a garbage collector; off, the policy adds no finalizer (as
   * upstream's store with garbage collection disabled) and such deletes finish at once.
   */
  garbageCollection: boolean;
  /** Observes the duration of each admission phase (apiserver_admission_step_admission_duration_seconds). */
  admissionSteps?: AdmissionStepObserver;
  /** --delete-collection-workers: deletes a DeleteCollection keeps in flight (default 1, as upstream). */
  deleteCollectionWorkers?: number;
}

/**
 * The generic store of one resource, after upstream's registry/generic/registry.Store: keys,
 * system metadata, strategies, admission and two-phase deletion, over any Store implementation.
 */
export class GenericRegistry {
  readonly groupResource: GroupResource;
  private readonly keyRoot: string;
  private readonly allocations: ObjectAllocations | undefined;
  private readonly form: ServedForm;
  /** The delete paths (see RegistryDeletes). */
  private readonly deletes: RegistryDeletes;

  constructor(
    readonly info: ResourceInfo,
    readonly strategy: ResourceStrategy,
    private readonly store: Store,
    /** Admission plugins, read per request so plugins that need the registries can be added later. */
    private readonly admissionPlugins: () => readonly AdmissionPlugin[] = () => [],
    /** Strategic-merge metadata and structured merge type of the kind (from its OpenAPI schema). */
    readonly schemas: KindSchemas | undefined = undefined,
    private readonly now: () => Date = () => new Date(),
    /** Virtual create and subresource creaters of the registration, if any. */
    readonly operations: RegistrationOperations = {},
    private readonly behaviour: RegistryBehaviour = { garbageCollection: false },
  ) {
    this.groupResource = { group: info.group, resource: info.resource };
    this.form = new ServedForm(info, operations.storedAs);
    const stored = operations.storedAs ?? info;
    this.keyRoot = `/registry/${stored.group || 'core'}/${stored.resource}/`;
    this.allocations = operations.allocations?.(store);
    this.deletes = new RegistryDeletes({
      groupResource: this.groupResource,
      strategy,
      store,
      form: this.form,
      allocations: this.allocations,
      behaviour,
      now: () => this.now(),
      key: (namespace, name) => this.key(namespace, name),
      list: (namespace, req) => this.list(namespace, req),
      admitDelete: async (namespace, name, old, req) => {
        const attrs = this.attrs('DELETE', namespace, name, undefined, old, req);
        await runMutatingAdmission(this.admissionPlugins(), attrs, this.behaviour.admissionSteps);
        await runAdmission(this.admissionPlugins(), attrs, this.behaviour.admissionSteps);
      },
      interpret: (e, name) => this.interpret(e, name),
    });
  }

  /** etcd key of one object: /registry/<group|core>/<resource>/[<namespace>/]<name>. */
  key(namespace: string, name: string): string {
    return this.strategy.namespaceScoped ? `${this.keyRoot}${namespace}/${name}` : `${this.keyRoot}${name}`;
  }

  /** Prefix of a collection: all namespaces when namespace is ''. */
  prefix(namespace: string): string {
    return this.strategy.namespaceScoped && namespace ? `${this.keyRoot}${namespace}/` : this.keyRoot;
  }

  async get(namespace: string, name: string, resourceVersion?: string): Promise<KubeObject> {
    if (this.operations.computed) return this.operations.computed.get(name);
    try {
      return this.form.fromStorage(await this.store.get(this.key(namespace, name), { resourceVersion }));
    } catch (e) {
      throw this.interpret(e, name, resourceVersion);
    }
  }

  /**
   * What `get(namespace, name, '0')` answers from the watch cache, without a promise: the object,
   * null when the cache has no such object, undefined when it cannot say (then call `get`).
   */
  getCached(namespace: string, name: string): KubeObject | null | undefined {
    if (this.operations.computed || !this.store.cachedGet) return undefined;
    const found = this.store.cachedGet(this.key(namespace, name));
    return found ? this.form.fromStorage(found) : found;
  }

  /**
   * The items `list(namespace, { resourceVersion: '0' })` answers from the watch cache, without a
   * promise (shared objects, not to be changed); undefined when it cannot say (then call `list`).
   */
  listCached(namespace: string): KubeObject[] | undefined {
    if (this.operations.computed || this.form.conversion || !this.store.cachedList) return undefined;
    return this.store.cachedList(this.prefix(namespace));
  }

  async list(namespace: string, req: ListRequest): Promise<ListResponse> {
    if (this.operations.computed) {
      const items = (await this.operations.computed.list()).filter((o) => !req.predicate || req.predicate(o));
      return { kind: this.info.listKind, apiVersion: this.apiVersion(), metadata: {}, items };
    }
    try {
      const res = await this.store.getList(this.prefix(namespace), {
        resourceVersion: req.resourceVersion,
        resourceVersionMatch: req.resourceVersionMatch,
        limit: req.limit,
        continueToken: req.continueToken,
        predicate: this.form.storedPredicate(req.predicate),
        hasSelector: req.hasSelector,
        // Converted items must be parsed anyway.
        raw: req.raw && !this.form.conversion,
      });
      const metadata: KubeList['metadata'] = { resourceVersion: res.resourceVersion };
      if (res.continueToken) metadata.continue = res.continueToken;
      if (res.remainingItemCount !== undefined) metadata.remainingItemCount = res.remainingItemCount;
      const items = this.form.conversion ? res.items.map((i) => this.form.fromStorage(i)) : res.items;
      const list: ListResponse = { kind: this.info.listKind, apiVersion: this.apiVersion(), metadata, items };
      if (res.rawItems) list.rawItems = res.rawItems;
      // Converted items are new objects made per request.
      if (res.sharedItems && !this.form.conversion) list.sharedItems = true;
      return list;
    } catch (e) {
      throw this.interpret(e, '', req.resourceVersion, req.continueToken ? 'continue' : 'list');
    }
  }

  /**
   * Starts a watch of the collection (all namespaces when namespace is ''). Throws the Status
   * error for a start revision that cannot be served (410 Expired, 504 Too large resource version).
   */
  async watch(namespace: string, opts: WatchOptions): Promise<WatchStream> {
    try {
      if (!this.form.conversion) return await this.store.watch(this.prefix(namespace), opts);
      const stream = await this.store.watch(this.prefix(namespace), { ...opts, predicate: this.form.storedPredicate(opts.predicate) });
      return convertedWatch(stream, (obj) => this.form.fromStorage(obj));
    } catch (e) {
      throw this.interpret(e, '', opts.resourceVersion, 'watch');
    }
  }

  async create(namespace: string, body: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    // The body belongs to this request; only a generateName retry needs it as it came.
    let obj = body;
    placeInNamespace(namespace, this.strategy.namespaceScoped, obj);
    if (obj.metadata.resourceVersion) {
      throw newInternalError(new Error('resourceVersion should not be set on objects to be created'));
    }
    const generated = !obj.metadata.name && !!obj.metadata.generateName;
    const pristine = generated ? deepCopy(obj) : undefined;
    for (let attempt = 0; ; attempt++) {
      if (pristine && attempt > 0) obj = deepCopy(pristine);
      if (generated) obj.metadata.name = generateName(obj.metadata.generateName!);
      const reservations: Reservation[] = [];
      let prepared: KubeObject | undefined;
      try {
        prepared = await this.prepareCreate(obj, opts, 'CREATE', reservations);
        const stored = await this.store.create(this.key(namespace, prepared.metadata.name!), prepared, { dryRun: opts.dryRun, ttlSeconds: this.strategy.ttlSeconds });
        if (reservations.length > 0) await settle(reservations, true);
        return this.form.fromStorage(stored);
      } catch (e) {
        if (reservations.length > 0) await settle(reservations, false);
        if (!prepared) throw e;
        // A generated name that collides is retried with a new suffix, as upstream does.
        if (generated && isStorageError(e, 'KeyExists') && attempt < MAX_GENERATE_NAME_ATTEMPTS) continue;
        throw this.interpret(e, prepared.metadata.name ?? '');
      }
    }
  }

  /**
   * PUT: replaces the object, creating it when absent if the strategy allows. Returns the stored
   * object and whether it was created.
   */
  async update(
    namespace: string,
    name: string,
    body: KubeObject,
    opts: WriteOptions & { subresource?: string },
  ): Promise<{ object: KubeObject; created: boolean }> {
    placeInNamespace(namespace, this.strategy.namespaceScoped, body);
    if (body.metadata.name !== name) {
      throw newBadRequest(`the name of the object (${body.metadata.name ?? ''}) does not match the name on the URL (${name})`);
    }
    const createIfMissing = !opts.subresource && this.strategy.allowCreateOnUpdate;
    return this.write(namespace, name, () => deepCopy(body), opts, createIfMissing, true);
  }

  /**
   * PATCH (and apply): `transform` builds the new object from the stored one. `createIfMissing` is
   * set for server-side apply, which creates absent objects.
   */
  async patch(
    namespace: string,
    name: string,
    transform: ObjectTransform,
    opts: WriteOptions & { createIfMissing?: boolean; subresource?: string },
  ): Promise<{ object: KubeObject; created: boolean }> {
    return this.write(namespace, name, transform, opts, opts.createIfMissing ?? false, false);
  }

  /**
   * Admission of a create through a subresource that stores nothing (serviceaccounts/token):
   * `object` is the subresource's own kind (a TokenRequest), `name` the parent's. Mutating
   * plugins may change `object` in place.
   * @throws the first plugin's rejection (a StatusError).
   */
  async admitSubresourceCreate(namespace: string, name: string, subresource: string, object: KubeObject, opts: { dryRun: boolean; user?: UserInfo; report?: AdmissionReport }): Promise<void> {
    const attrs = this.attrs('CREATE', namespace, name, object, undefined, opts, subresource);
    await runMutatingAdmission(this.admissionPlugins(), attrs, this.behaviour.admissionSteps);
    await runAdmission(this.admissionPlugins(), attrs, this.behaviour.admissionSteps);
  }

  /**
   * Rewrites one stored object with `transform` (run on a fresh copy each attempt), bypassing
   * strategy, admission and field management, as upstream's REST storage writing through its store's
   * GuaranteedUpdate (pods/binding). Errors the transform throws pass through; storage errors are
   * interpreted for this resource (a failed precondition is a 409 Conflict).
   */
  async updateStored(
    namespace: string,
    name: string,
    transform: (current: KubeObject) => KubeObject,
    opts: { preconditions?: { uid?: string; resourceVersion?: string }; dryRun: boolean },
  ): Promise<KubeObject> {
    try {
      const written = await this.store.guaranteedUpdate(
        this.key(namespace, name),
        (cur) => {
          if (!cur) throw newNotFound(this.groupResource, name);
          return this.form.toStorage(transform(this.form.fromStorage(cur)));
        },
        { ignoreNotFound: false, preconditions: opts.preconditions, dryRun: opts.dryRun },
      );
      return this.form.fromStorage(written);
    } catch (e) {
      throw this.interpret(e, name);
    }
  }

  /** A single DELETE: two-phase with finalizers (SPEC 3.1); see RegistryDeletes.delete. */
  delete(namespace: string, name: string, req: DeleteRequest): Promise<DeleteResult> {
    return this.deletes.delete(namespace, name, req);
  }

  /**
   * Deletes every object of the collection the predicate selects, each as a single delete of it
   * would; see RegistryDeletes.deleteCollection.
   */
  deleteCollection(namespace: string, list: ListRequest, req: DeleteRequest): Promise<KubeList> {
    return this.deletes.deleteCollection(namespace, list, req);
  }

  /** Frees pooled values no object holds any more (see ObjectAllocations.repair); 0 without allocations. */
  async repairAllocations(now: Date = this.now()): Promise<number> {
    return (await this.allocations?.repair?.(now)) ?? 0;
  }

  /** Status answered for a completed delete when the object itself is not returned (upstream's default). */
  deletedStatus(obj: KubeObject): Status {
    const details: Status['details'] = { name: obj.metadata.name ?? '', kind: this.info.resource, uid: obj.metadata.uid ?? '' };
    if (this.info.group) details.group = this.info.group;
    return successStatus(details);
  }

  apiVersion(): string {
    return this.form.apiVersion;
  }

  private async write(
    namespace: string,
    name: string,
    transform: ObjectTransform,
    opts: WriteOptions & { subresource?: string },
    createIfMissing: boolean,
    isPut: boolean,
  ): Promise<{ object: KubeObject; created: boolean }> {
    const key = this.key(namespace, name);
    const sub = opts.subresource ? this.strategy.subresources?.[opts.subresource] : undefined;
    if (opts.subresource && !sub) throw newMethodNotSupported(this.groupResource, 'update');
    let created = false;
    // One reservation per attempt of the transform (guaranteedUpdate retries it when writers race):
    // only the last attempt's is kept.
    const reservations: Reservation[] = [];
    try {
      const object = await this.store.guaranteedUpdate(
        key,
        async (storedCurrent) => {
          const current = storedCurrent && this.form.fromStorage(storedCurrent);
          // `current` is this attempt's own read; transforms build new objects and never change it.
          const next = await transform(current);
          placeInNamespace(namespace, this.strategy.namespaceScoped, next);
          if (!next.metadata.name) next.metadata.name = name;
          if (next.metadata.name !== name) {
            throw newBadRequest(`the name of the object (${next.metadata.name}) does not match the name on the URL (${name})`);
          }
          if (!current) {
            if (!createIfMissing) throw newNotFound(this.groupResource, name);
            await opts.beforeCreate?.();
            created = true;
            delete next.metadata.resourceVersion;
            return this.prepareCreate(next, opts, 'CREATE', reservations);
          }
          created = false;
          return this.prepareUpdate(next, current, opts, isPut, sub, opts.subresource, reservations);
        },
        { ignoreNotFound: createIfMissing, dryRun: opts.dryRun, ttlSeconds: this.strategy.ttlSeconds },
      );
      if (reservations.length > 0) await settle(reservations, true);
      if (!created && !opts.dryRun && object.metadata.deletionTimestamp && !this.deletes.pendingFinalization(object)) {
        // The last finalizer is gone: phase two of SPEC 3.1 removes the object.
        const res = await this.deletes.deleteNow(key, name, { dryRun: false });
        return { object: res.object, created: false };
      }
      return { object: this.form.fromStorage(object), created };
    } catch (e) {
      if (reservations.length > 0) await settle(reservations, false);
      throw this.interpret(e, name);
    }
  }

  /** Prepares `obj` (changed in place: callers hand over an object of their own) for storing. */
  private async prepareCreate(obj: KubeObject, opts: WriteOptions, op: AdmissionOperation, reservations?: Reservation[]): Promise<KubeObject> {
    const next = obj;
    fillCreateMeta(next.metadata, this.now());
    delete next.metadata.resourceVersion;
    this.strategy.prepareForCreate(next, { user: opts.user });
    this.trackManagedFields(next, undefined, opts);
    const attrs = this.attrs(op, next.metadata.namespace ?? '', next.metadata.name ?? '', next, undefined, opts);
    // The runners return a promise only when a plugin had something to wait for (no microtask turn otherwise).
    const mutated = runMutatingAdmission(this.admissionPlugins(), attrs, this.behaviour.admissionSteps);
    if (mutated) await mutated;
    // A webhook changed the object: the strategy has the last word, as upstream prepares after admission.
    if (attrs.reinvocation?.shouldReinvoke) this.strategy.prepareForCreate(next, { user: opts.user });
    const errs = this.strategy.validate(next);
    if (errs.length) throw newInvalid({ group: this.info.group, kind: this.info.kind }, next.metadata.name ?? '', errs);
    if (this.allocations && reservations) reservations.push(await this.allocations.reserve(next, undefined, opts.dryRun));
    const validated = runAdmission(this.admissionPlugins(), attrs, this.behaviour.admissionSteps);
    if (validated) await validated;
    return this.form.toStorage(next);
  }

  private async prepareUpdate(
    requested: KubeObject,
    current: KubeObject,
    opts: WriteOptions,
    isPut: boolean,
    sub?: SubresourceStrategy,
    subresourceName?: string,
    reservations?: Reservation[],
  ): Promise<KubeObject> {
    let next = requested;
    const name = current.metadata.name ?? '';
    const rv = next.metadata.resourceVersion;
    if (!rv) {
      if (isPut && !this.strategy.allowUnconditionalUpdate) {
        throw newInvalid({ group: this.info.group, kind: this.info.kind }, name, [
          invalid('metadata.resourceVersion', '', 'must be specified for an update'),
        ]);
      }
      // An unconditional update is validated as if it named the stored version.
      next.metadata.resourceVersion = current.metadata.resourceVersion;
    } else if (rv !== current.metadata.resourceVersion) {
      parseRevisionOrBadRequest(rv);
      throw newConflict(this.groupResource, name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    carryUpdateMeta(next.metadata, current.metadata);
    if (sub) {
      next = sub.merge(next, deepCopy(current));
      this.trackManagedFields(next, current, opts, subresourceName);
    } else {
      this.strategy.prepareForUpdate(next, current, { user: opts.user });
      this.trackManagedFields(next, current, opts);
    }
    const attrs = this.attrs('UPDATE', next.metadata.namespace ?? '', name, next, current, opts, subresourceName);
    const mutated = runMutatingAdmission(this.admissionPlugins(), attrs, this.behaviour.admissionSteps);
    if (mutated) await mutated;
    // A webhook changed the object: the strategy has the last word, as upstream prepares an update
    // after admission (a webhook cannot change the status through the main resource, nor the
    // rest through `status`).
    if (attrs.reinvocation?.shouldReinvoke) {
      if (sub) attrs.object = next = sub.merge(next, deepCopy(current));
      else this.strategy.prepareForUpdate(next, current, { user: opts.user });
    }
    // Mutating admission (webhooks included) runs before validation, as upstream's.
    const errs = sub ? sub.validateUpdate(next, current) : this.strategy.validateUpdate(next, current);
    if (errs.length) throw newInvalid({ group: this.info.group, kind: this.info.kind }, name, errs);
    if (this.allocations && reservations && !sub) reservations.push(await this.allocations.reserve(next, current, opts.dryRun));
    const validated = runAdmission(this.admissionPlugins(), attrs, this.behaviour.admissionSteps);
    if (validated) await validated;
    delete next.metadata.resourceVersion;
    return this.form.toStorage(next);
  }

  /** Records the writer's ownership of what it changed (SPEC 4.8 rule 2), unless apply already did. */
  private trackManagedFields(next: KubeObject, live: KubeObject | undefined, opts: WriteOptions, subresource?: string): void {
    if (opts.apply || opts.fieldManager === undefined || !this.schemas) return;
    const entries = updateManagedFields({
      live: live as unknown as JsonObject | undefined,
      updated: next as unknown as JsonObject,
      manager: opts.fieldManager,
      schema: this.schemas.structured,
      apiVersion: this.apiVersion(),
      subresource,
      now: this.now(),
    });
    setManagedFields(next as unknown as JsonObject, entries);
  }

  private attrs(
    operation: AdmissionOperation,
    namespace: string,
    name: string,
    object: KubeObject | undefined,
    oldObject: KubeObject | undefined,
    opts: { dryRun: boolean; user?: UserInfo; report?: AdmissionReport },
    subresource = '',
  ): AdmissionAttributes {
    const attrs: AdmissionAttributes = { operation, resource: this.info, subresource, namespace, name, object, oldObject, dryRun: opts.dryRun, user: opts.user, report: opts.report, schemas: this.schemas };
    if (subresource) {
      const view = this.strategy.subresources?.[subresource]?.view;
      const info = this.info.subresources?.find((s) => s.name === subresource);
      if (view && info) attrs.view = { info, view };
    }
    return attrs;
  }

  private interpret(e: unknown, name: string, resourceVersion?: string, context: ReadContext = 'get'): unknown {
    let rv = 0;
    try {
      rv = parseRevision(resourceVersion);
    } catch {
      rv = 0;
    }
    return interpretStorageError(e, this.groupResource, name, rv, context);
  }
}

/**
 * Keeps the last reservation of a stored write and releases the earlier ones (retried attempts),
 * except what the last one reuses of them; releases all of a failed write.
 */
// Callers skip it when nothing was reserved (most kinds): even `await undefined` costs a microtask turn.
async function settle(reservations: Reservation[], stored: boolean): Promise<void> {
  const kept = stored ? reservations.pop() : undefined;
  const keep = new Set(kept?.held ?? []);
  for (const r of reservations.splice(0)) await r.release(keep);
  await kept?.commit();
}

function parseRevisionOrBadRequest(rv: string): void {
  if (!/^[0-9]+$/.test(rv)) throw newBadRequest(`invalid resource version: ${rv}`);
}

