import { labelSelectorFromLabelSelectorObject } from '@cluster/apimachinery';
import type { PolicyRule, RoleObject } from './types.js';

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * The rules an aggregated ClusterRole should hold (upstream's aggregation controller): for each
 * selector in order, the rules of the matching ClusterRoles (by name, itself excluded), each rule
 * once. Undefined for a role without an aggregationRule. Pure.
 */
export function aggregatedRules(target: RoleObject, all: readonly RoleObject[]): PolicyRule[] | undefined {
  const selectors = target.aggregationRule?.clusterRoleSelectors;
  if (!target.aggregationRule || !selectors) return undefined;
  const rules: PolicyRule[] = [];
  const sorted = [...all].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  for (const sel of selectors) {
    let selector;
    try {
      selector = labelSelectorFromLabelSelectorObject(sel);
    } catch {
      continue; // validation rejects these; an old stored one selects nothing
    }
    for (const role of sorted) {
      if (role.metadata.name === target.metadata.name || !selector.matches(role.metadata.labels ?? {})) continue;
      for (const r of role.rules ?? []) if (!rules.some((x) => same(x, r))) rules.push(r);
    }
  }
  return rules;
}

/** The aggregated roles whose stored rules differ from what aggregation gives, with the rules to store. */
export function aggregationUpdates(all: readonly RoleObject[]): Array<{ role: RoleObject; rules: PolicyRule[] }> {
  const out: Array<{ role: RoleObject; rules: PolicyRule[] }> = [];
  for (const role of all) {
    const rules = aggregatedRules(role, all);
    if (rules && !same(rules, role.rules ?? [])) out.push({ role, rules });
  }
  return out;
}
