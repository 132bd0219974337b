import type { RequestInfo } from '../../request/request-info.js';
import type { PolicyRule } from './types.js';

/** The parts of a request a rule is matched against (upstream's authorizer.Attributes subset). */
export type RuleRequest = Pick<RequestInfo, 'isResourceRequest' | 'verb' | 'apiGroup' | 'resource' | 'subresource' | 'name' | 'path'>;

const has = (set: readonly string[] | null | undefined, v: string): boolean => !!set && set.includes(v);

/** `*` or the exact verb. */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return has(rule.verbs, '*') || has(rule.verbs, verb);
}

/** `*` or the exact API group ('' is the core group). */
export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return has(rule.apiGroups, '*') || has(rule.apiGroups, group);
}

/**
 * `*`, the exact `resource` or `resource/subresource`, or `*\/subresource` for any resource's
 * subresource of that name.
 */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

/**
 * No resourceNames: any object. Otherwise the request must name one of them, so a list, watch
 * or create (no name in the URL) is never granted by a resourceNames-only rule.
 */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** `*`, the exact path, or a prefix rule ending in `*`. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** True when `rule` grants the request (upstream's RuleAllows). */
export function ruleAllows(req: RuleRequest, rule: PolicyRule): boolean {
  if (!verbMatches(rule, req.verb)) return false;
  if (!req.isResourceRequest) return nonResourceURLMatches(rule, req.path);
  return (
    apiGroupMatches(rule, req.apiGroup) &&
    resourceMatches(rule, req.resource, req.subresource) &&
    resourceNameMatches(rule, req.name)
  );
}
