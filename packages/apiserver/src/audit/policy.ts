import { parse as parseYaml } from 'yaml';

/** How much of a request the audit log records (audit/v1 Level). */
export type AuditLevel = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

export const LEVELS: readonly AuditLevel[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
export const STAGES: readonly AuditStage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

export interface GroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

export interface PolicyRule {
  level: AuditLevel;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: AuditStage[];
}

export interface AuditPolicy {
  rules: PolicyRule[];
  omitStages?: AuditStage[];
}

/** The request attributes a policy rule is matched against. */
export interface AuditAttributes {
  username: string;
  groups: readonly string[];
  verb: string;
  isResourceRequest: boolean;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
}

/**
 * Parses and checks an audit/v1 Policy (YAML or JSON), as upstream's policy loader: kind Policy
 * in `audit.<apiDomain>/v1`, at least one rule, each with a known level and stages, and no rule
 * mixing resource and non-resource matchers. Pure.
 * @throws Error naming the first problem, for a start-up message.
 */
export function parseAuditPolicy(text: string, apiDomain: string): AuditPolicy {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new Error(`audit policy: ${(e as Error).message.split('\n')[0]}`);
  }
  const p = (doc ?? {}) as { apiVersion?: string; kind?: string; rules?: unknown; omitStages?: unknown };
  const group = `audit.${apiDomain}`;
  if (p.kind !== 'Policy' || !(p.apiVersion === `${group}/v1`)) {
    throw new Error(`audit policy: expected kind Policy in ${group}/v1, got ${String(p.kind)} in ${String(p.apiVersion)}`);
  }
  if (!Array.isArray(p.rules) || p.rules.length === 0) throw new Error('audit policy: at least one rule is required');
  const stages = (v: unknown, where: string): AuditStage[] | undefined => {
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) throw new Error(`audit policy: ${where}.omitStages must be a list`);
    for (const s of v) if (!STAGES.includes(s as AuditStage)) throw new Error(`audit policy: ${where}.omitStages: unknown stage ${JSON.stringify(s)}`);
    return v as AuditStage[];
  };
  const rules = (p.rules as Record<string, unknown>[]).map((r, i): PolicyRule => {
    const where = `rules[${i}]`;
    if (!LEVELS.includes(r['level'] as AuditLevel)) throw new Error(`audit policy: ${where}.level: unknown level ${JSON.stringify(r['level'])}`);
    const hasResources = Array.isArray(r['resources']) || Array.isArray(r['namespaces']);
    const hasUrls = Array.isArray(r['nonResourceURLs']);
    if (hasResources && hasUrls) throw new Error(`audit policy: ${where}: rules cannot apply to both regular resources and non-resource URLs`);
    for (const u of (r['nonResourceURLs'] as string[] | undefined) ?? []) {
      if (u.includes('*') && !u.endsWith('*')) throw new Error(`audit policy: ${where}.nonResourceURLs: ${JSON.stringify(u)}: * only allowed at the end`);
    }
    return { ...(r as unknown as PolicyRule), omitStages: stages(r['omitStages'], where) };
  });
  return { rules, omitStages: stages(p.omitStages, 'policy') };
}

const inList = (list: readonly string[] | undefined, v: string) => !list || list.length === 0 || list.includes(v);

function resourceMatches(gr: GroupResources, a: AuditAttributes): boolean {
  if ((gr.group ?? '') !== a.apiGroup && gr.group !== '*') return false;
  if (gr.resources && gr.resources.length > 0) {
    const full = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    const ok = gr.resources.some(
      (r) => r === '*' || r === full || (a.subresource !== '' && (r === `*/${a.subresource}` || r === `${a.resource}/*`)),
    );
    if (!ok) return false;
  }
  return inList(gr.resourceNames, a.name);
}

function urlMatches(patterns: readonly string[], path: string): boolean {
  return patterns.some((p) => p === '*' || p === path || (p.endsWith('*') && path.startsWith(p.slice(0, -1))));
}

/** Whether a rule applies to a request (upstream's policy rule evaluator). Pure. */
export function ruleMatches(rule: PolicyRule, a: AuditAttributes): boolean {
  if (!inList(rule.users, a.username)) return false;
  if (rule.userGroups && rule.userGroups.length > 0 && !rule.userGroups.some((g) => a.groups.includes(g))) return false;
  if (!inList(rule.verbs, a.verb)) return false;
  if (a.isResourceRequest) {
    if (rule.nonResourceURLs && rule.nonResourceURLs.length > 0) return false;
    if (!inList(rule.namespaces, a.namespace)) return false;
    if (rule.resources && rule.resources.length > 0 && !rule.resources.some((gr) => resourceMatches(gr, a))) return false;
    return true;
  }
  if ((rule.resources && rule.resources.length > 0) || (rule.namespaces && rule.namespaces.length > 0)) return false;
  return !rule.nonResourceURLs || rule.nonResourceURLs.length === 0 || urlMatches(rule.nonResourceURLs, a.path);
}

/**
 * The level and omitted stages for a request: the first matching rule's, with the policy's own
 * omitted stages added; no matching rule is level None. Pure.
 */
export function auditLevelFor(policy: AuditPolicy, a: AuditAttributes): { level: AuditLevel; omitStages: Set<AuditStage> } {
  const rule = policy.rules.find((r) => ruleMatches(r, a));
  return { level: rule?.level ?? 'None', omitStages: new Set([...(policy.omitStages ?? []), ...(rule?.omitStages ?? [])]) };
}
