import type { Logger } from 'pino';
import { FINALIZER_ORPHAN_DEPENDENTS, type KubeObject } from '@cluster/apimachinery';
import { ApiError, type ApiClient } from '../client/api-client.js';
import type { GcResource } from './discover.js';
import { nodeOf, type DependencyGraph, type GcNode, type OwnerRef } from './graph.js';
import { METADATA_ACCEPT, type Monitors } from './monitors.js';
import {
  ownerStateFromLookup,
  planDeletingOwner,
  planDependent,
  resolveOwnerRef,
  unblockedOwnerRefs,
  withoutFinalizer,
  withoutOwnerRefs,
  type OwnerState,
} from './reconcile.js';

/** An owner kind the server does not serve (yet): the dependent is looked at again later. */
export class UnresolvableOwnerError extends Error {}

const WRITE_ATTEMPTS = 5;
const ABSENT_CACHE_SIZE = 1_000;

/** The API path of one object of `r`. */
export function objectPath(r: GcResource, namespace: string, name: string): string {
  return `${r.groupVersionPath}${r.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : ''}/${r.resource}/${encodeURIComponent(name)}`;
}

const isCode = (e: unknown, ...codes: number[]) => e instanceof ApiError && codes.includes(e.code);

/**
 * The collector's writes (upstream's attemptToDeleteItem and attemptToOrphan workers): each
 * decision re-reads the object from the server first, asks the server about owners the graph does
 * not hold (a 404 or another uid confirms an absent owner; confirmed absences are remembered by
 * uid and namespace), and writes with the read resourceVersion or uid as precondition, so a stale
 * graph never deletes a live object. Throws to have the key retried.
 */
export class Collector {
  /** Owners confirmed absent, `uid|namespace`, in insertion order (bounded). */
  private readonly absent = new Set<string>();

  constructor(
    private readonly client: ApiClient,
    private readonly graph: DependencyGraph,
    private readonly monitors: Monitors,
    private readonly logger: Logger,
    private readonly enqueueDelete: (uid: string) => void,
  ) {}

  async attemptToDelete(uid: string): Promise<void> {
    const node = this.graph.get(uid);
    if (!node || (node.beingDeleted && !node.deletingDependents)) return;
    const res = this.monitors.resource(node.identity.group, node.identity.resource);
    if (!res) return;
    const latest = await this.read(res, node);
    if (!latest) return;
    const fresh = nodeOf(res, latest);
    if (fresh.deletingDependents) {
      const plan = planDeletingOwner(uid, this.graph.dependentsOf(uid));
      if (plan.op === 'remove-finalizer') await this.removeFinalizer(res, latest, plan.finalizer);
      else plan.attemptToDelete.forEach(this.enqueueDelete);
      return;
    }
    if (fresh.beingDeleted || fresh.owners.length === 0) return;
    const states = await this.classify(fresh);
    if (!states) return;
    const dependents = this.graph.dependentsOf(uid);
    const plan = planDependent({
      owners: fresh.owners,
      finalizers: latest.metadata.finalizers ?? [],
      states,
      hasDependents: dependents.length > 0,
      dependentDeletingDependents: dependents.some((d) => d.deletingDependents),
    });
    const path = objectPath(res, fresh.identity.namespace, fresh.identity.name);
    if (plan.op === 'none') return;
    if (plan.op === 'remove-owner-refs') {
      this.logger.info({ path, owners: plan.uids }, 'garbage collector: removing references to absent or deleting owners');
      await this.rewriteOwnerRefs(res, fresh, (refs) => withoutOwnerRefs(refs, plan.uids));
      return;
    }
    if (plan.unblock) await this.rewriteOwnerRefs(res, fresh, unblockedOwnerRefs);
    this.logger.info({ path, policy: plan.policy }, 'garbage collector: deleting an object whose owners are gone');
    try {
      await this.client.delete(path, { preconditions: { uid }, propagationPolicy: plan.policy });
    } catch (e) {
      if (!isCode(e, 404)) throw e;
    }
  }

  async attemptToOrphan(uid: string): Promise<void> {
    const node = this.graph.get(uid);
    if (!node) return;
    const res = this.monitors.resource(node.identity.group, node.identity.resource);
    if (!res) return;
    const latest = await this.read(res, node);
    if (!latest || !nodeOf(res, latest).orphaning) return;
    for (const dep of this.graph.dependentsOf(uid)) {
      const depRes = this.monitors.resource(dep.identity.group, dep.identity.resource);
      if (depRes) await this.rewriteOwnerRefs(depRes, dep, (refs) => withoutOwnerRefs(refs, [uid]));
    }
    this.logger.info({ path: objectPath(res, node.identity.namespace, node.identity.name) }, 'garbage collector: dependents orphaned');
    await this.removeFinalizer(res, latest, FINALIZER_ORPHAN_DEPENDENTS);
  }

  /** The states of a dependent's owners; undefined when the dependent must be left alone. */
  private async classify(dependent: GcNode): Promise<Map<string, OwnerState> | undefined> {
    const states = new Map<string, OwnerState>();
    const ns = dependent.identity.namespace;
    for (const ref of dependent.owners) {
      const r = resolveOwnerRef(ref, ns, (g, k) => this.monitors.resourceOfKind(g, k), (u) => this.graph.get(u));
      if (r.kind === 'invalid') {
        this.logger.warn({ dependent: dependent.identity, owner: ref }, 'garbage collector: a cluster-scoped object names a namespaced owner; left alone');
        return undefined;
      }
      if (r.kind === 'unresolvable') throw new UnresolvableOwnerError(`owner kind ${ref.apiVersion}/${ref.kind} is not served`);
      if (r.kind === 'known') {
        states.set(ref.uid, r.state);
        continue;
      }
      const cacheKey = `${ref.uid}|${r.namespace}`;
      if (this.absent.has(cacheKey)) {
        states.set(ref.uid, 'dangling');
        continue;
      }
      let found: KubeObject | undefined;
      try {
        found = await this.client.get(objectPath(r.resource, r.namespace, ref.name), METADATA_ACCEPT.get);
      } catch (e) {
        if (!isCode(e, 404)) throw e;
      }
      const state = ownerStateFromLookup(ref, found && { uid: found.metadata.uid ?? '', deletingDependents: nodeOf(r.resource, found).deletingDependents });
      if (state === 'dangling') this.rememberAbsent(cacheKey);
      states.set(ref.uid, state);
    }
    return states;
  }

  private rememberAbsent(key: string): void {
    this.absent.add(key);
    if (this.absent.size > ABSENT_CACHE_SIZE) this.absent.delete(this.absent.values().next().value as string);
  }

  /** The object as the server holds it now (metadata only); undefined when gone or replaced. */
  private async read(res: GcResource, node: GcNode): Promise<KubeObject | undefined> {
    try {
      const obj = await this.client.get(objectPath(res, node.identity.namespace, node.identity.name), METADATA_ACCEPT.get);
      return obj.metadata.uid === node.identity.uid ? obj : undefined;
    } catch (e) {
      if (isCode(e, 404)) return undefined;
      throw e;
    }
  }

  /** Rewrites an object's owner references with `change` (undefined: nothing to do), re-reading on conflicts. */
  private async rewriteOwnerRefs(res: GcResource, node: GcNode, change: (refs: readonly OwnerRef[]) => OwnerRef[] | undefined): Promise<void> {
    const path = objectPath(res, node.identity.namespace, node.identity.name);
    for (let attempt = 1; ; attempt++) {
      const latest = await this.read(res, node);
      if (!latest) return;
      const next = change((latest.metadata.ownerReferences ?? []) as OwnerRef[]);
      if (!next) return;
      try {
        const metadata = { uid: node.identity.uid, resourceVersion: latest.metadata.resourceVersion, ownerReferences: next.length > 0 ? next : null };
        await this.client.mergePatch(path, { metadata });
        return;
      } catch (e) {
        if (isCode(e, 404)) return;
        if (!isCode(e, 409) || attempt >= WRITE_ATTEMPTS) throw e;
      }
    }
  }

  /** Removes one finalizer, re-reading on conflicts; the server deletes the object when none is left. */
  private async removeFinalizer(res: GcResource, read: KubeObject, finalizer: string): Promise<void> {
    const node = nodeOf(res, read);
    const path = objectPath(res, node.identity.namespace, node.identity.name);
    let latest: KubeObject | undefined = read;
    for (let attempt = 1; latest; attempt++) {
      const next = withoutFinalizer(latest.metadata.finalizers ?? [], finalizer);
      if (!next) return;
      try {
        const metadata = { uid: node.identity.uid, resourceVersion: latest.metadata.resourceVersion, finalizers: next.length > 0 ? next : null };
        await this.client.mergePatch(path, { metadata });
        this.logger.info({ path, finalizer }, 'garbage collector: finalizer removed');
        return;
      } catch (e) {
        if (isCode(e, 404)) return;
        if (!isCode(e, 409) || attempt >= WRITE_ATTEMPTS) throw e;
      }
      latest = await this.read(res, node);
    }
  }
}
