import type { KubeObject } from '../meta/types.js';
import { addUsage, countOf, type ResourceList, type Usage } from './resource-list.js';

/** One requirement of a quota's scopeSelector (or a `spec.scopes` entry, read as `Exists`). */
export interface ScopeRequirement {
  scopeName?: string;
  operator?: string;
  values?: string[];
}

/** The parts of a ResourceQuota the quota system reads. */
export interface ResourceQuotaObject extends KubeObject {
  spec?: { hard?: ResourceList; scopes?: string[]; scopeSelector?: { matchExpressions?: ScopeRequirement[] } | null };
  status?: { hard?: ResourceList; used?: ResourceList };
}

export type QuotaOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/**
 * How the usage of one resource is measured (upstream's quota.Evaluator, pkg/quota/v1). Pure:
 * listing the objects is the caller's business (admission sees one object, the controller lists).
 */
export interface QuotaEvaluator {
  readonly group: string;
  readonly resource: string;
  /** Whether an admission operation on this resource can change usage. */
  handles(operation: QuotaOperation): boolean;
  /** The names of `names` this evaluator measures. */
  matchingResources(names: readonly string[]): string[];
  /** Whether `obj` falls in the scope; throws an Error for a selector it cannot read. */
  matchesScope(requirement: ScopeRequirement, obj: KubeObject): boolean;
  /** A reason `obj` may not be admitted under a quota limiting `required`, or undefined. */
  constraints(required: readonly string[], obj: KubeObject): string | undefined;
  /** What `obj` uses (`now` decides whether a pod past its deletion grace still counts). */
  usage(obj: KubeObject, now: Date): Usage;
}

/** The name an object count is limited by: `count/<resource>[.<group>]`. */
export function objectCountName(group: string, resource: string): string {
  return group ? `count/${resource}.${group}` : `count/${resource}`;
}

/** Intersection of `a` and `b`, deduplicated and sorted (quota.Intersection). */
export function intersection(a: readonly string[], b: readonly string[]): string[] {
  const other = new Set(b);
  return [...new Set(a.filter((x) => other.has(x)))].sort();
}

/** `spec.scopes` (each as `Exists`) followed by the scopeSelector's expressions. */
export function scopeRequirements(rq: ResourceQuotaObject): ScopeRequirement[] {
  const out: ScopeRequirement[] = (rq.spec?.scopes ?? []).map((scopeName) => ({ scopeName, operator: 'Exists' }));
  return [...out, ...(rq.spec?.scopeSelector?.matchExpressions ?? [])];
}

/**
 * Whether the quota constrains `obj`: it limits at least one resource the evaluator measures
 * (in `status.hard`) and `obj` is in every one of its scopes (generic.Matches).
 */
export function quotaMatches(ev: QuotaEvaluator, rq: ResourceQuotaObject, obj: KubeObject): boolean {
  if (ev.matchingResources(Object.keys(rq.status?.hard ?? {})).length === 0) return false;
  return scopeRequirements(rq).every((r) => ev.matchesScope(r, obj));
}

/**
 * The usage of `items` that fall in every scope, each of `resources` reported (zero when
 * nothing uses it), as generic.CalculateUsageStats. Unmasked: callers keep what they track.
 */
export function usageOfItems(ev: QuotaEvaluator, items: readonly KubeObject[], rq: ResourceQuotaObject, resources: readonly string[], now: Date): Usage {
  let used: Usage = new Map(resources.map((r) => [r, countOf(0)]));
  const requirements = scopeRequirements(rq);
  for (const item of items) {
    if (requirements.every((r) => ev.matchesScope(r, item))) used = addUsage(used, ev.usage(item, now));
  }
  return used;
}

/**
 * Upstream's object count evaluator: one `count/<resource>.<group>` (and the legacy short name,
 * if any) per object, charged on create only, and never in a scoped quota.
 */
export function objectCountEvaluator(group: string, resource: string, alias?: string): QuotaEvaluator {
  const names = [objectCountName(group, resource), ...(alias ? [alias] : [])];
  return {
    group,
    resource,
    handles: (op) => op === 'CREATE',
    matchingResources: (input) => intersection(input, names),
    matchesScope: () => false,
    constraints: () => undefined,
    usage: () => new Map(names.map((n) => [n, countOf(1)])),
  };
}
