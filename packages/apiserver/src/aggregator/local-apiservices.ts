import { isDeepStrictEqual } from 'node:util';
import { isAlreadyExists, isConflict, isNotFound, type KubeObject } from '@cluster/apimachinery';
import type { RegistrySet } from '../registry/registry-set.js';
import { apiRegistrationGroup } from '../resources/apiregistration/register.js';
import { availableCondition, type ApiService, type ApiServiceCondition } from '../resources/apiregistration/types.js';
import { automanagedLabel, localApiService, type ServedGroupVersion } from './priorities.js';

/** Upstream's message for a local APIService's Available condition. */
export const LOCAL_MESSAGE = 'Local APIServices are always available';

/** The writes that make the stored APIServices match the served group versions. */
export interface LocalApiServicePlan {
  create: ApiService[];
  /** Automanaged APIServices whose spec drifted: the stored object with the desired spec. */
  update: ApiService[];
  /** Automanaged APIServices of group versions no longer served. */
  delete: ApiService[];
}

/**
 * Upstream's autoregister decisions: every served group version has a local APIService; one
 * this server manages (the automanaged label) gets its spec back if changed, and is deleted when
 * its group version is no longer served (a CRD version removed). Built-in ones (`onstart`) are
 * corrected and removed only in the pass at start-up (`atStart`), so replicas of different
 * versions during an upgrade do not undo each other's. An APIService without the label (someone
 * registered that group version themselves) is left alone. Pure.
 */
export function planLocalApiServices(served: readonly ServedGroupVersion[], existing: readonly ApiService[], apiDomain: string, atStart = true): LocalApiServicePlan {
  const label = automanagedLabel(apiDomain);
  const desired = new Map(served.map((gv) => [`${gv.version}.${gv.group}`, localApiService(gv, apiDomain)]));
  const byName = new Map(existing.map((s) => [s.metadata.name ?? '', s]));
  const plan: LocalApiServicePlan = { create: [], update: [], delete: [] };
  for (const [name, want] of desired) {
    const have = byName.get(name);
    if (!have) {
      plan.create.push(want);
      continue;
    }
    const managed = have.metadata.labels?.[label];
    if (!managed || (managed === 'onstart' && !atStart)) continue;
    if (isDeepStrictEqual(have.spec, want.spec) && managed === want.metadata.labels![label]) continue;
    plan.update.push({ ...have, metadata: { ...have.metadata, labels: { ...have.metadata.labels, ...want.metadata.labels } }, spec: want.spec });
  }
  for (const have of existing) {
    const managed = have.metadata.labels?.[label];
    if (managed && (managed !== 'onstart' || atStart) && !desired.has(have.metadata.name ?? '')) plan.delete.push(have);
  }
  return plan;
}

/**
 * The Available condition a local APIService (no service) should carry, or undefined when its
 * current one is right. `now` is the transition time of a new condition. Pure.
 */
export function localAvailableCondition(svc: ApiService, now: string): ApiServiceCondition | undefined {
  if (svc.spec?.service) return undefined;
  const c = availableCondition(svc);
  if (c?.status === 'True' && c.reason === 'Local' && c.message === LOCAL_MESSAGE) return undefined;
  return { type: 'Available', status: 'True', lastTransitionTime: c?.status === 'True' ? (c.lastTransitionTime ?? now) : now, reason: 'Local', message: LOCAL_MESSAGE };
}

export interface LocalApiServicesOptions {
  registries: () => RegistrySet;
  apiDomain: string;
  /** The group versions this server serves now. */
  served: () => readonly ServedGroupVersion[];
  log?: (msg: string, err?: unknown) => void;
  now?: () => Date;
}

/**
 * Keeps the local APIServices of this replica's group versions (upstream's autoregister and
 * crdregistration controllers, with the Local status its availability controller writes). Every
 * write is conditional, so replicas running it side by side converge. `sync` never throws.
 */
export async function syncLocalApiServices(opts: LocalApiServicesOptions, atStart = true): Promise<void> {
  const reg = opts.registries().byResource(apiRegistrationGroup(opts.apiDomain), 'apiservices');
  if (!reg) return;
  const log = opts.log ?? (() => {});
  const write = { dryRun: false, fieldManager: 'cluster-apiserver' };
  const benign = (e: unknown) => isConflict(e) || isAlreadyExists(e) || isNotFound(e);
  try {
    const existing = (await reg.list('', { hasSelector: false })).items as ApiService[];
    const plan = planLocalApiServices(opts.served(), existing, opts.apiDomain, atStart);
    for (const svc of plan.create) await reg.create('', svc as KubeObject, write).catch((e) => (benign(e) ? undefined : Promise.reject(e)));
    for (const svc of plan.update) await reg.update('', svc.metadata.name!, svc as KubeObject, write).catch((e) => (benign(e) ? undefined : Promise.reject(e)));
    for (const svc of plan.delete) {
      await reg.delete('', svc.metadata.name!, { dryRun: false, preconditions: { resourceVersion: svc.metadata.resourceVersion } }).catch((e) => (benign(e) ? undefined : Promise.reject(e)));
    }
    const now = (opts.now ?? (() => new Date()))().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const current = plan.create.length || plan.update.length ? ((await reg.list('', { hasSelector: false })).items as ApiService[]) : existing;
    for (const svc of current) {
      const condition = localAvailableCondition(svc, now);
      if (!condition) continue;
      const status = { conditions: [...(svc.status?.conditions ?? []).filter((c) => c.type !== 'Available'), condition] };
      await reg
        .update('', svc.metadata.name!, { ...svc, status } as KubeObject, { ...write, subresource: 'status' })
        .catch((e) => (benign(e) ? undefined : Promise.reject(e)));
    }
  } catch (err) {
    log('local APIServices: sync failed', err);
  }
}

/**
 * Runs {@link syncLocalApiServices} now, whenever `onServedChange` reports a change (CRDs coming
 * and going) and every `intervalMs` (an APIService deleted by hand comes back), one pass at a
 * time. Resolves `firstPass` after the first pass; `stop` ends the loop.
 */
export function startLocalApiServices(
  opts: LocalApiServicesOptions & { onServedChange: (listener: () => void) => () => void; intervalMs?: number },
): { firstPass: Promise<void>; stop(): void } {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let passes = 0;
  const run = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await syncLocalApiServices(opts, passes++ === 0);
      } while (again && !stopped);
      running = undefined;
    })();
    return running;
  };
  const unsubscribe = opts.onServedChange(() => void run());
  const timer = setInterval(() => void run(), opts.intervalMs ?? 60_000);
  timer.unref();
  return {
    firstPass: run(),
    stop: () => {
      stopped = true;
      unsubscribe();
      clearInterval(timer);
    },
  };
}
