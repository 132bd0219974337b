import type { PolicyRule } from './types.js';

/**
 * Splits a rule into single-verb, single-resource (and single-name) rules, so each can be checked
 * for cover on its own (upstream's BreakdownRule).
 */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs ?? []) {
        const names = rule.resourceNames ?? [];
        if (names.length) {
          for (const n of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [n] });
        } else {
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs ?? []) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

const has = (set: readonly string[] | null | undefined, v: string): boolean => !!set && set.includes(v);
const hasAll = (set: readonly string[] | null | undefined, wanted: readonly string[] | null | undefined): boolean =>
  (wanted ?? []).every((w) => has(set, w));

function resourcesCover(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (has(owner, '*') || hasAll(owner, wanted)) return true;
  return (wanted ?? []).every((r) => {
    if (has(owner, r)) return true;
    const slash = r.indexOf('/');
    return slash >= 0 && has(owner, `*/${r.slice(slash + 1)}`);
  });
}

function urlCovers(owner: string, wanted: string): boolean {
  return owner === wanted || (owner.endsWith('*') && wanted.startsWith(owner.replace(/\*+$/, '')));
}

/** True when `owner` grants everything `sub` (a broken-down rule) grants (upstream's ruleCovers). */
export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourcesCover(owner.resources, sub.resources);
  const urls = (sub.nonResourceURLs ?? []).every((u) => (owner.nonResourceURLs ?? []).some((o) => urlCovers(o, u)));
  const ownerNames = owner.resourceNames ?? [];
  const names = (sub.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames);
  return verbs && groups && resources && names && urls;
}

/**
 * Whether `ownerRules` together grant everything `requested` grants, and the broken-down rules
 * they miss (upstream's Covers, used for escalation prevention and default-role reconciling).
 */
export function covers(ownerRules: readonly PolicyRule[], requested: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const r of requested) {
    for (const sub of breakdownRule(r)) {
      if (!ownerRules.some((o) => ruleCovers(o, sub))) missing.push(sub);
    }
  }
  return { covered: missing.length === 0, missing };
}

/**
 * Merges broken-down rules that differ only in verb back into one rule per group/resource/name
 * (upstream's CompactRules), so an error lists `Verbs:["get" "list"]` once per resource.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple =
      (r.resourceNames?.length ?? 0) <= 1 && !(r.nonResourceURLs?.length) && r.apiGroups?.length === 1 && r.resources?.length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const k = JSON.stringify([r.apiGroups, r.resources, r.resourceNames ?? []]);
    const existing = simple.get(k);
    if (existing) existing.verbs = [...existing.verbs, ...r.verbs];
    else simple.set(k, { ...r, verbs: [...r.verbs] });
  }
  return [...out, ...simple.values()];
}

/** Go's %q of a []string: `["a" "b"]`. */
export function goQuotedList(xs: readonly string[]): string {
  return `[${xs.map((x) => JSON.stringify(x)).join(' ')}]`;
}

/** A rule as upstream's CompactString writes it: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.apiGroups?.length) parts.push(`APIGroups:${goQuotedList(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${goQuotedList(rule.resources)}`);
  if (rule.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goQuotedList(rule.nonResourceURLs)}`);
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${goQuotedList(rule.resourceNames)}`);
  if (rule.verbs?.length) parts.push(`Verbs:${goQuotedList(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}
