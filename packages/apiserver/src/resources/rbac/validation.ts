import {
  child,
  index,
  invalid,
  isDNS1123Subdomain,
  labelSelectorFromLabelSelectorObject,
  nameIsPathSegment,
  notSupported,
  required,
  validateLabels,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldErrorList,
} from '@cluster/apimachinery';
import type { BindingObject, PolicyRule, RoleObject, Subject } from '../../authz/rbac/types.js';

/** RBAC names are path segments (upstream's ValidateRBACName). */
export const rbacMeta = (namespaced: boolean) => ({ namespaced, nameValidator: 'pathSegment' as const });

/** A rule needs verbs; resource rules need apiGroups and resources; URLs only in cluster roles, never mixed. */
export function validatePolicyRule(rule: PolicyRule, namespaced: boolean, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (!rule.verbs?.length) errs.push(required(child(path, 'verbs'), 'verbs must contain at least one value'));
  if (rule.nonResourceURLs?.length) {
    if (namespaced) errs.push(invalid(child(path, 'nonResourceURLs'), rule.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    if (rule.apiGroups?.length || rule.resources?.length || rule.resourceNames?.length) {
      errs.push(invalid(child(path, 'nonResourceURLs'), rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (!rule.apiGroups?.length) errs.push(required(child(path, 'apiGroups'), 'resource rules must supply at least one api group'));
  if (!rule.resources?.length) errs.push(required(child(path, 'resources'), 'resource rules must supply at least one resource'));
  return errs;
}

/** Role (namespaced) or ClusterRole: metadata, rules, and for cluster roles the aggregation rule. */
export function validateRole(role: RoleObject, namespaced: boolean): FieldErrorList {
  const errs = validateObjectMeta(role.metadata, rbacMeta(namespaced));
  (role.rules ?? []).forEach((r, i) => errs.push(...validatePolicyRule(r, namespaced, index('rules', i))));
  if (!namespaced) errs.push(...validateAggregationRule(role));
  return errs;
}

export function validateRoleUpdate(role: RoleObject, old: RoleObject, namespaced: boolean): FieldErrorList {
  const errs = validateObjectMetaUpdate(role.metadata, old.metadata, rbacMeta(namespaced));
  (role.rules ?? []).forEach((r, i) => errs.push(...validatePolicyRule(r, namespaced, index('rules', i))));
  if (!namespaced) errs.push(...validateAggregationRule(role));
  return errs;
}

function validateAggregationRule(role: RoleObject): FieldErrorList {
  const errs: FieldErrorList = [];
  const agg = role.aggregationRule;
  if (!agg) return errs;
  const path = 'aggregationRule.clusterRoleSelectors';
  const selectors = agg.clusterRoleSelectors ?? [];
  if (!selectors.length) errs.push(required(path, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
  selectors.forEach((sel, i) => {
    errs.push(...validateLabels(sel.matchLabels ?? undefined, child(index(path, i), 'matchLabels')));
    try {
      labelSelectorFromLabelSelectorObject(sel);
    } catch (e) {
      errs.push(invalid(index(path, i), sel, `invalid label selector: ${(e as Error).message}`));
    }
  });
  return errs;
}

/**
 * RoleBinding (namespaced: roleRef Role or ClusterRole) or ClusterRoleBinding (ClusterRole only);
 * subjects User/Group (apiGroup = the RBAC group) or ServiceAccount (apiGroup '', namespace
 * required in a cluster role binding).
 */
export function validateBinding(b: BindingObject, namespaced: boolean, group: string): FieldErrorList {
  const errs = validateObjectMeta(b.metadata, rbacMeta(namespaced));
  errs.push(...validateBindingBody(b, namespaced, group));
  return errs;
}

export function validateBindingUpdate(b: BindingObject, old: BindingObject, namespaced: boolean, group: string): FieldErrorList {
  const errs = validateObjectMetaUpdate(b.metadata, old.metadata, rbacMeta(namespaced));
  errs.push(...validateBindingBody(b, namespaced, group));
  const a = b.roleRef ?? {};
  const o = old.roleRef ?? {};
  if (a.apiGroup !== o.apiGroup || a.kind !== o.kind || a.name !== o.name) {
    errs.push(invalid('roleRef', b.roleRef, 'cannot change roleRef'));
  }
  return errs;
}

function validateBindingBody(b: BindingObject, namespaced: boolean, group: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const ref = b.roleRef ?? { apiGroup: '', kind: '', name: '' };
  if (ref.apiGroup !== group) errs.push(notSupported('roleRef.apiGroup', ref.apiGroup ?? '', [group]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(ref.kind)) errs.push(notSupported('roleRef.kind', ref.kind ?? '', kinds));
  if (!ref.name) errs.push(required('roleRef.name'));
  else for (const msg of nameIsPathSegment(ref.name, false)) errs.push(invalid('roleRef.name', ref.name, msg));
  (b.subjects ?? []).forEach((s, i) => errs.push(...validateSubject(s, namespaced, group, index('subjects', i))));
  return errs;
}

/** One subject (upstream's ValidateRoleBindingSubject). */
export function validateSubject(s: Subject, namespaced: boolean, group: string, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (!s.name) errs.push(required(child(path, 'name')));
  switch (s.kind) {
    case 'ServiceAccount':
      if (s.name) for (const msg of isDNS1123Subdomain(s.name)) errs.push(invalid(child(path, 'name'), s.name, msg));
      if (s.apiGroup) errs.push(notSupported(child(path, 'apiGroup'), s.apiGroup, ['']));
      if (!namespaced && !s.namespace) errs.push(required(child(path, 'namespace')));
      break;
    case 'User':
    case 'Group':
      if (s.apiGroup !== group) errs.push(notSupported(child(path, 'apiGroup'), s.apiGroup ?? '', [group]));
      break;
    default:
      errs.push(notSupported(child(path, 'kind'), s.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

/**
 * v1 defaulting (upstream's SetDefaults_*): roleRef.apiGroup and User/Group subjects' apiGroup
 * default to the RBAC group. Mutates `b`.
 */
export function defaultBinding(b: BindingObject, group: string): void {
  if (b.roleRef && !b.roleRef.apiGroup) b.roleRef.apiGroup = group;
  for (const s of b.subjects ?? []) {
    if (!s.apiGroup && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = group;
  }
}
