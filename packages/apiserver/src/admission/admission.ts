import type { KubeObject } from '@cluster/apimachinery';
import type { ResourceInfo, SubresourceInfo } from '../registry/resource-info.js';
import type { KindSchemas } from '../registry/registry-types.js';
import type { SubresourceView } from '../registry/strategy.js';
import type { AdmissionStepObserver } from './step-metrics.js';
import type { UserInfo } from '../authn/user.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  resource: ResourceInfo;
  subresource: string;
  namespace: string;
  name: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
  /** The requester; absent for the server's own writes. */
  user?: UserInfo;
  /** Where webhooks leave warnings and audit annotations for the request's answer (absent: dropped). */
  report?: AdmissionReport;
  /** The kind's schemas: an object a webhook patched is decoded against them again (unknown fields dropped). */
  schemas?: KindSchemas;
  /**
   * A subresource served as an object of its own kind (deployments/scale): webhooks see and patch
   * that kind (a Scale), while `object` stays the parent.
   */
  view?: { info: SubresourceInfo; view: SubresourceView };
  /** Set by mutating webhooks when a later round of mutating admission is needed (reinvocationPolicy). */
  reinvocation?: Reinvocation;
}

/**
 * The request's own record of what admission adds to its answer: the request state (its warnings
 * and its audit event's annotations) is passed as is, so this costs nothing per request.
 */
export interface AdmissionReport {
  warnings: string[];
  audit?: { annotations: Record<string, string> };
}

/**
 * Upstream's reinvocation context: after a webhook changed the object, the chain of mutating
 * plugins runs once more (built-in ones in full, webhooks only if their reinvocationPolicy is
 * IfNeeded and they ran before the change).
 */
export interface Reinvocation {
  /** The second round is running. */
  reinvoking: boolean;
  /** A webhook changed the object: run the mutating chain again. */
  shouldReinvoke: boolean;
  /** Plugin-private state, by plugin name. */
  state: Map<string, unknown>;
}

/**
 * An admission plugin. `admit` (mutating, optional) may change `attrs.object` in place before the
 * object is validated; `validate` throws a StatusError to reject.
 */
export interface AdmissionPlugin {
  readonly name: string;
  /** May return nothing when it has nothing to wait for (no promise, no microtask turn per request). */
  admit?(attrs: AdmissionAttributes): Promise<void> | void;
  validate(attrs: AdmissionAttributes): Promise<void> | void;
}

/**
 * Runs the mutating phase in order, as upstream runs mutating admission before validation: its
 * changes are validated like the requester's own (and, as upstream, not recorded as theirs in
 * managedFields). Not an async function: when no plugin has anything to wait for (for most kinds
 * every plugin returns at once) it returns nothing, and a caller that checks costs no promise and
 * no microtask turn; otherwise a promise of the rest. A plugin's rejection is thrown either way.
 */
export function runMutatingAdmission(plugins: readonly AdmissionPlugin[], attrs: AdmissionAttributes, observe?: AdmissionStepObserver): Promise<void> | void {
  const started = observe ? performance.now() : 0;
  try {
    // Plugins without a mutating step (most of them) cost no await.
    for (let i = 0; i < plugins.length; i++) {
      const pending = plugins[i]!.admit?.(attrs);
      if (pending) return mutateFrom(plugins, attrs, observe, started, i, pending);
    }
    // A webhook changed the object: one more round, as upstream's reinvoker runs.
    if (attrs.reinvocation?.shouldReinvoke && !attrs.reinvocation.reinvoking) return mutateFrom(plugins, attrs, observe, started, plugins.length, undefined);
  } catch (e) {
    observeStep(observe, 'admit', attrs, true, started);
    throw e;
  }
  observeStep(observe, 'admit', attrs, false, started);
}

/** The mutating phase from plugin `from` on, whose answer `pending` is awaited first. */
async function mutateFrom(
  plugins: readonly AdmissionPlugin[],
  attrs: AdmissionAttributes,
  observe: AdmissionStepObserver | undefined,
  started: number,
  from: number,
  pending: Promise<void> | undefined,
): Promise<void> {
  try {
    if (pending) await pending;
    for (let i = from + 1; i < plugins.length; i++) {
      const next = plugins[i]!.admit?.(attrs);
      if (next) await next;
    }
    const r = attrs.reinvocation;
    if (r?.shouldReinvoke && !r.reinvoking) {
      r.reinvoking = true;
      for (const p of plugins) {
        const next = p.admit?.(attrs);
        if (next) await next;
      }
    }
  } catch (e) {
    observeStep(observe, 'admit', attrs, true, started);
    throw e;
  }
  observeStep(observe, 'admit', attrs, false, started);
}

/**
 * Runs plugins in order; the first rejection wins. Like {@link runMutatingAdmission}, returns
 * nothing when no plugin had anything to wait for, else a promise of the rest.
 */
export function runAdmission(plugins: readonly AdmissionPlugin[], attrs: AdmissionAttributes, observe?: AdmissionStepObserver): Promise<void> | void {
  const started = observe ? performance.now() : 0;
  try {
    for (let i = 0; i < plugins.length; i++) {
      const pending = plugins[i]!.validate(attrs);
      if (pending) return validateFrom(plugins, attrs, observe, started, i, pending);
    }
  } catch (e) {
    observeStep(observe, 'validate', attrs, true, started);
    throw e;
  }
  observeStep(observe, 'validate', attrs, false, started);
}

/** The validating phase from plugin `from` on, whose answer `pending` is awaited first. */
async function validateFrom(
  plugins: readonly AdmissionPlugin[],
  attrs: AdmissionAttributes,
  observe: AdmissionStepObserver | undefined,
  started: number,
  from: number,
  pending: Promise<void>,
): Promise<void> {
  try {
    await pending;
    for (let i = from + 1; i < plugins.length; i++) {
      const next = plugins[i]!.validate(attrs);
      if (next) await next;
    }
  } catch (e) {
    observeStep(observe, 'validate', attrs, true, started);
    throw e;
  }
  observeStep(observe, 'validate', attrs, false, started);
}

/** Tells `observe` of one admission phase that began at `started` (performance.now()). */
function observeStep(observe: AdmissionStepObserver | undefined, step: 'admit' | 'validate', attrs: AdmissionAttributes, rejected: boolean, started: number): void {
  observe?.(step, attrs.operation, rejected, (performance.now() - started) / 1000);
}
