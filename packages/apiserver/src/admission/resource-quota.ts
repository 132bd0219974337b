import { StatusError, newForbidden, newInternalError, type KubeObject, type QuotaEvaluator, type QuotaRegistry, type ResourceQuotaObject } from '@cluster/apimachinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';
import { checkRequest, QuotaRefusal, type QuotaRequest } from './quota/check-request.js';

/** How the plugin reads and charges a namespace's quotas. */
export interface QuotaAccess {
  /** The namespace's quotas as this replica last saw them (the watch cache: no etcd read). */
  cached(namespace: string): Promise<readonly ResourceQuotaObject[]>;
  /** What `cached` would answer, without a promise, when a cache can say at once; else undefined. */
  cachedNow?(namespace: string): readonly ResourceQuotaObject[] | undefined;
  /** The namespace's quotas as of now (a most-recent read: every write before it is seen). */
  current(namespace: string): Promise<readonly ResourceQuotaObject[]>;
  /**
   * Writes the quota's `status` through its status subresource with the quota's resourceVersion
   * as precondition; throws (409 Conflict) when it changed since it was read.
   */
  updateStatus(rq: ResourceQuotaObject): Promise<void>;
}

export interface ResourceQuotaOptions {
  now?: () => Date;
  /** How long a request waits for its verdict (upstream: 10 s, then 500 resource quota evaluation timed out). */
  timeoutMs?: number;
  /** Re-reads after a conflicting write before giving up with the conflict (upstream: 3). */
  retries?: number;
}

interface Waiter {
  req: QuotaRequest;
  ev: QuotaEvaluator;
  attrs: AdmissionAttributes;
  /** undefined: no verdict yet (upstream's "default deny"); null: admitted; an Error: refused. */
  verdict: Error | null | undefined;
  done: (verdict: Error | null) => void;
}

/**
 * Upstream's ResourceQuota admission (k8s.io/apiserver admission/plugin/resourcequota). On create
 * (and on update where the evaluator charges updates: services, claims) of a namespaced object
 * that is not a subresource, the namespace's quotas that constrain it are checked and charged:
 * the new `status.used` is written to each quota with its resourceVersion as precondition before
 * the object is stored, so replicas racing for the last unit conflict and re-read, and only one
 * gets it. Requests of one namespace are checked in batches (one quota write per batch, as
 * upstream's per-namespace work queue). Dry-run requests are checked but charge nothing. A
 * namespace without quotas costs one look at the watch cache.
 */
export function resourceQuotaAdmission(access: QuotaAccess, registry: QuotaRegistry, opts: ResourceQuotaOptions = {}): AdmissionPlugin {
  const now = opts.now ?? (() => new Date());
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const retries = opts.retries ?? 8;
  const pending = new Map<string, Waiter[]>();
  const draining = new Set<string>();

  const forbidden = (a: AdmissionAttributes, message: string) => newForbidden({ group: a.resource.group, resource: a.resource.resource }, a.name, message);

  /** Checks `waiters` against `quotas`, writes what changed, and re-reads and re-checks on conflict. */
  async function checkQuotas(namespace: string, quotas: readonly ResourceQuotaObject[], waiters: Waiter[], remaining: number): Promise<void> {
    let running = quotas;
    let changed = false;
    for (const w of waiters) {
      let next: readonly ResourceQuotaObject[];
      try {
        next = checkRequest(running, w.req, w.ev, now());
      } catch (e) {
        w.verdict = e instanceof QuotaRefusal ? forbidden(w.attrs, e.message) : newInternalError(e);
        continue;
      }
      if (w.attrs.dryRun || next === running) {
        w.verdict = null;
        continue;
      }
      changed = true;
      running = next;
    }
    if (!changed) return;
    const failed = new Set<string>();
    let lastErr: unknown;
    for (const [i, rq] of running.entries()) {
      if (rq === quotas[i]) continue;
      try {
        await access.updateStatus(rq);
      } catch (e) {
        failed.add(rq.metadata.name ?? '');
        lastErr = e;
      }
    }
    const undecided = waiters.filter((w) => w.verdict === undefined);
    if (failed.size === 0) {
      for (const w of undecided) w.verdict = null;
      return;
    }
    const giveUp = (e: unknown) => {
      for (const w of undecided) w.verdict = e instanceof StatusError ? e : newInternalError(e);
    };
    if (remaining <= 0) return giveUp(lastErr);
    let fresh: readonly ResourceQuotaObject[];
    try {
      fresh = await access.current(namespace);
    } catch {
      return giveUp(lastErr);
    }
    // Only the quotas whose write failed are checked again: the others took their charge.
    await checkQuotas(namespace, fresh.filter((q) => failed.has(q.metadata.name ?? '')), undecided, remaining - 1);
  }

  async function drain(namespace: string): Promise<void> {
    draining.add(namespace);
    try {
      for (let batch = pending.get(namespace); batch && batch.length > 0; batch = pending.get(namespace)) {
        pending.delete(namespace);
        try {
          const quotas = await access.current(namespace);
          if (quotas.length > 0) await checkQuotas(namespace, quotas, batch, retries);
          for (const w of batch) w.done(w.verdict ?? null);
        } catch (e) {
          for (const w of batch) w.done(e instanceof StatusError ? e : newInternalError(e));
        }
      }
    } finally {
      draining.delete(namespace);
    }
  }

  return {
    name: 'ResourceQuota',
    // Not an async function: a namespace the cache shows without quotas is decided at once.
    validate(a) {
      if (a.subresource || !a.namespace || !a.object) return;
      if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
      const ev = registry.evaluatorFor(a.resource.group, a.resource.resource);
      if (!ev || !ev.handles(a.operation)) return;
      // The cheap path: no quota in the namespace as far as this replica knows.
      if (access.cachedNow?.(a.namespace)?.length === 0) return;
      return charge(a, a.object, ev);
    },
  };

  async function charge(a: AdmissionAttributes, object: KubeObject, ev: QuotaEvaluator): Promise<void> {
    if ((await access.cached(a.namespace)).length === 0) return;
    const req: QuotaRequest = { operation: a.operation, namespace: a.namespace, object };
    if (a.oldObject) req.oldObject = a.oldObject;
    const verdict = await new Promise<Error | null>((resolve) => {
      const timer = setTimeout(() => resolve(newInternalError(new Error('resource quota evaluation timed out'))), timeoutMs);
      const done = (v: Error | null) => {
        clearTimeout(timer);
        resolve(v);
      };
      const list = pending.get(a.namespace) ?? [];
      list.push({ req, ev, attrs: a, verdict: undefined, done });
      pending.set(a.namespace, list);
      if (!draining.has(a.namespace)) void drain(a.namespace);
    });
    if (verdict) throw verdict;
  }
}
