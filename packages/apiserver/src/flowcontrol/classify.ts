import type { FlowSchema, FlowSubject, NonResourcePolicyRule, PolicyRulesWithSubjects, ResourcePolicyRule } from '@cluster/apimachinery';
import type { UserInfo } from '../authn/user.js';
import type { RequestInfo } from '../request/request-info.js';

const ALL = '*';
const SA_PREFIX = 'system:serviceaccount:';

/** The facts of a request that classification reads. */
export type ClassifiedRequest = Pick<RequestInfo, 'isResourceRequest' | 'path' | 'verb' | 'apiGroup' | 'namespace' | 'resource' | 'subresource'>;

/** Upstream's subject match: a user by name, a group by membership, a service account by its user name. */
export function matchesSubject(s: FlowSubject, user: UserInfo): boolean {
  switch (s.kind) {
    case 'User': {
      const name = s.user?.name;
      return name === ALL || name === user.username;
    }
    case 'Group': {
      const name = s.group?.name ?? '';
      return name === ALL || user.groups.includes(name);
    }
    case 'ServiceAccount': {
      const sa = s.serviceAccount;
      if (!sa || !user.username.startsWith(SA_PREFIX)) return false;
      const rest = user.username.slice(SA_PREFIX.length);
      const colon = rest.indexOf(':');
      if (colon < 0) return false;
      return rest.slice(0, colon) === sa.namespace && (sa.name === ALL || rest.slice(colon + 1) === sa.name);
    }
    default:
      return false;
  }
}

const listMatches = (list: readonly string[] | undefined, value: string) => {
  if (!list) return false;
  for (const v of list) if (v === ALL || v === value) return true;
  return false;
};

/** A resource rule: verb, group, resource (or `resource/subresource`), and namespace or cluster scope. */
export function matchesResourceRule(r: ResourcePolicyRule, req: ClassifiedRequest): boolean {
  if (!listMatches(r.verbs, req.verb) || !listMatches(r.apiGroups, req.apiGroup)) return false;
  const resource = req.subresource ? `${req.resource}/${req.subresource}` : req.resource;
  if (!listMatches(r.resources, resource)) return false;
  if (req.namespace === '') return r.clusterScope === true;
  return listMatches(r.namespaces, req.namespace);
}

/** A non-resource rule: verb, and a URL equal to the path or a `/prefix/*` covering it. */
export function matchesNonResourceRule(r: NonResourcePolicyRule, req: ClassifiedRequest): boolean {
  if (!listMatches(r.verbs, req.verb)) return false;
  for (const url of r.nonResourceURLs ?? []) {
    if (url === ALL || url === req.path) return true;
    if (url.endsWith('*') && req.path.startsWith(url.slice(0, -1))) return true;
  }
  return false;
}

/** One rule of a flow schema: one of its subjects, and one of its rules of the request's kind. */
export function matchesRule(rule: PolicyRulesWithSubjects, user: UserInfo, req: ClassifiedRequest): boolean {
  let subject = false;
  for (const s of rule.subjects ?? []) if (matchesSubject(s, user)) { subject = true; break; }
  if (!subject) return false;
  if (req.isResourceRequest) {
    for (const r of rule.resourceRules ?? []) if (matchesResourceRule(r, req)) return true;
  } else {
    for (const r of rule.nonResourceRules ?? []) if (matchesNonResourceRule(r, req)) return true;
  }
  return false;
}

export function matchesFlowSchema(fs: FlowSchema, user: UserInfo, req: ClassifiedRequest): boolean {
  for (const rule of fs.spec?.rules ?? []) if (matchesRule(rule, user, req)) return true;
  return false;
}

/** Flow schemas in upstream's matching order: matchingPrecedence ascending, then name. Pure. */
export function sortFlowSchemas<T extends FlowSchema>(schemas: readonly T[]): T[] {
  return [...schemas].sort((a, b) => {
    const d = (a.spec?.matchingPrecedence ?? 0) - (b.spec?.matchingPrecedence ?? 0);
    if (d !== 0) return d;
    const an = a.metadata.name ?? '';
    const bn = b.metadata.name ?? '';
    return an < bn ? -1 : an > bn ? 1 : 0;
  });
}

/** The flow a request belongs to within its schema: its user (ByUser), namespace (ByNamespace) or none. */
export function flowDistinguisher(fs: FlowSchema, user: UserInfo, req: ClassifiedRequest): string {
  switch (fs.spec?.distinguisherMethod?.type) {
    case 'ByUser':
      return user.username;
    case 'ByNamespace':
      return req.namespace;
    default:
      return '';
  }
}

/** The first schema (in matching order) that matches and is `usable` (its priority level exists). */
export function classify<T extends FlowSchema>(sorted: readonly T[], user: UserInfo, req: ClassifiedRequest, usable: (fs: T) => boolean): T | undefined {
  for (const fs of sorted) if (usable(fs) && matchesFlowSchema(fs, user, req)) return fs;
  return undefined;
}
