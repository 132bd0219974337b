import type { KubeObject } from '@cluster/apimachinery';
import { covers } from '../covers.js';
import type { BindingObject, RoleObject, Subject } from '../types.js';

/** What to write for one default object. `recreate` = delete then create (a binding's roleRef changed). */
export type ReconcilePlan<T> = { op: 'none' } | { op: 'create' | 'update' | 'recreate'; object: T };

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** `base` with the keys of `defaults` it lacks; existing values win (upstream's merge of labels and annotations). */
function mergeMissing(defaults: Record<string, string> | undefined, base: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!defaults || !Object.keys(defaults).length) return base;
  return { ...defaults, ...(base ?? {}) };
}

/** True when the object opted out of reconciling (autoupdate annotation "false", as upstream). */
function isProtected(obj: KubeObject, autoupdateKey: string): boolean {
  return obj.metadata.annotations?.[autoupdateKey] === 'false';
}

function mergeMeta(next: KubeObject, expected: KubeObject): void {
  const labels = mergeMissing(expected.metadata.labels, next.metadata.labels);
  const annotations = mergeMissing(expected.metadata.annotations, next.metadata.annotations);
  if (labels) next.metadata.labels = labels;
  if (annotations) next.metadata.annotations = annotations;
}

/**
 * Reconciles one default (Cluster)Role (upstream's computeReconciledRole in union mode): creates
 * it when missing; otherwise adds the labels, annotations, rules and aggregation selectors it
 * lacks, never removing anything; leaves it alone when its autoupdate annotation is "false".
 */
export function reconcileRole(existing: RoleObject | undefined, expected: RoleObject, autoupdateKey: string): ReconcilePlan<RoleObject> {
  if (!existing) return { op: 'create', object: structuredClone(expected) };
  if (isProtected(existing, autoupdateKey)) return { op: 'none' };
  const next = structuredClone(existing);
  mergeMeta(next, expected);
  const { missing } = covers(existing.rules ?? [], expected.rules ?? []);
  if (missing.length) next.rules = [...(existing.rules ?? []), ...missing];
  const wanted = expected.aggregationRule?.clusterRoleSelectors ?? [];
  if (wanted.length) {
    const have = next.aggregationRule?.clusterRoleSelectors ?? [];
    const add = wanted.filter((w) => !have.some((h) => same(h, w)));
    if (add.length) next.aggregationRule = { clusterRoleSelectors: [...have, ...add] };
  }
  return same(next, existing) ? { op: 'none' } : { op: 'update', object: next };
}

const subjectEq = (a: Subject, b: Subject): boolean =>
  a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '') && (a.apiGroup ?? '') === (b.apiGroup ?? '');

/**
 * Reconciles one default (Cluster)RoleBinding: creates it when missing; otherwise adds missing
 * labels, annotations and subjects; a different roleRef (immutable) means recreate. Leaves it
 * alone when its autoupdate annotation is "false".
 */
export function reconcileBinding(existing: BindingObject | undefined, expected: BindingObject, autoupdateKey: string): ReconcilePlan<BindingObject> {
  if (!existing) return { op: 'create', object: structuredClone(expected) };
  if (isProtected(existing, autoupdateKey)) return { op: 'none' };
  const next = structuredClone(existing);
  mergeMeta(next, expected);
  const have = existing.subjects ?? [];
  const add = (expected.subjects ?? []).filter((s) => !have.some((h) => subjectEq(h, s)));
  if (add.length) next.subjects = [...have, ...add];
  if (!same(existing.roleRef, expected.roleRef)) {
    next.roleRef = structuredClone(expected.roleRef);
    return { op: 'recreate', object: next };
  }
  return same(next, existing) ? { op: 'none' } : { op: 'update', object: next };
}
