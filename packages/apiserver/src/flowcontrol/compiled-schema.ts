import type { FlowSchema, NonResourcePolicyRule, PolicyRulesWithSubjects, ResourcePolicyRule } from '@cluster/apimachinery';
import type { UserInfo } from '../authn/user.js';
import type { ClassifiedRequest } from './classify.js';

const ALL = '*';
const SA_PREFIX = 'system:serviceaccount:';

/** A string list as a set, or `undefined` for "anything" (it holds '*'). */
type Matcher = ReadonlySet<string> | undefined;
const compileList = (list: readonly string[] | undefined): Matcher => (list?.includes(ALL) ? undefined : new Set(list ?? []));
const hit = (m: Matcher, v: string) => m === undefined || m.has(v);

interface CompiledResourceRule {
  verbs: Matcher;
  groups: Matcher;
  resources: Matcher;
  namespaces: Matcher;
  clusterScope: boolean;
}

interface CompiledNonResourceRule {
  verbs: Matcher;
  exact: ReadonlySet<string>;
  prefixes: readonly string[];
  any: boolean;
}

interface CompiledRule {
  anyUser: boolean;
  users: ReadonlySet<string>;
  anyGroup: boolean;
  groups: ReadonlySet<string>;
  /** Service-account namespaces whose every account matches. */
  saNamespaces: ReadonlySet<string>;
  /** `namespace:name` of matching service accounts. */
  saNames: ReadonlySet<string>;
  resourceRules: CompiledResourceRule[];
  nonResourceRules: CompiledNonResourceRule[];
}

function compileResourceRule(r: ResourcePolicyRule): CompiledResourceRule {
  return { verbs: compileList(r.verbs), groups: compileList(r.apiGroups), resources: compileList(r.resources), namespaces: compileList(r.namespaces), clusterScope: r.clusterScope === true };
}

function compileNonResourceRule(r: NonResourcePolicyRule): CompiledNonResourceRule {
  const urls = r.nonResourceURLs ?? [];
  return {
    verbs: compileList(r.verbs),
    any: urls.includes(ALL),
    exact: new Set(urls),
    prefixes: urls.filter((u) => u.endsWith('*')).map((u) => u.slice(0, -1)),
  };
}

function compileRule(rule: PolicyRulesWithSubjects): CompiledRule {
  const users = new Set<string>();
  const groups = new Set<string>();
  const saNamespaces = new Set<string>();
  const saNames = new Set<string>();
  for (const s of rule.subjects ?? []) {
    if (s.kind === 'User' && s.user?.name) users.add(s.user.name);
    else if (s.kind === 'Group' && s.group?.name) groups.add(s.group.name);
    else if (s.kind === 'ServiceAccount' && s.serviceAccount) {
      const { namespace = '', name = '' } = s.serviceAccount;
      if (name === ALL) saNamespaces.add(namespace);
      else saNames.add(`${namespace}:${name}`);
    }
  }
  return {
    anyUser: users.has(ALL),
    users,
    anyGroup: groups.has(ALL),
    groups,
    saNamespaces,
    saNames,
    resourceRules: (rule.resourceRules ?? []).map(compileResourceRule),
    nonResourceRules: (rule.nonResourceRules ?? []).map(compileNonResourceRule),
  };
}

function subjectHit(r: CompiledRule, user: UserInfo): boolean {
  if (r.anyUser || r.anyGroup || r.users.has(user.username)) return true;
  if (r.groups.size > 0) for (const g of user.groups) if (r.groups.has(g)) return true;
  if ((r.saNames.size > 0 || r.saNamespaces.size > 0) && user.username.startsWith(SA_PREFIX)) {
    const rest = user.username.slice(SA_PREFIX.length);
    if (r.saNames.has(rest)) return true;
    const colon = rest.indexOf(':');
    if (colon >= 0 && r.saNamespaces.has(rest.slice(0, colon))) return true;
  }
  return false;
}

function requestHit(r: CompiledRule, req: ClassifiedRequest): boolean {
  if (req.isResourceRequest) {
    const resource = req.subresource ? `${req.resource}/${req.subresource}` : req.resource;
    for (const rr of r.resourceRules) {
      if (!hit(rr.verbs, req.verb) || !hit(rr.groups, req.apiGroup) || !hit(rr.resources, resource)) continue;
      if (req.namespace === '' ? rr.clusterScope : hit(rr.namespaces, req.namespace)) return true;
    }
    return false;
  }
  for (const nr of r.nonResourceRules) {
    if (!hit(nr.verbs, req.verb)) continue;
    if (nr.any || nr.exact.has(req.path)) return true;
    for (const p of nr.prefixes) if (req.path.startsWith(p)) return true;
  }
  return false;
}

/**
 * A flow schema's rules compiled once per configuration into sets, so matching a request costs a
 * few set lookups per rule (the same decisions as classify.ts's matchesRule, which the tests
 * check against each other). Pure.
 */
export function compileFlowSchema(fs: FlowSchema): (user: UserInfo, req: ClassifiedRequest) => boolean {
  const rules = (fs.spec?.rules ?? []).map(compileRule);
  return (user, req) => {
    for (const r of rules) if (subjectHit(r, user) && requestHit(r, req)) return true;
    return false;
  };
}
