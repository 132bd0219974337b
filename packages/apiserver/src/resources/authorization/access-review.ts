import { invalid, type FieldErrorList, type KubeObject } from '@cluster/apimachinery';
import type { UserInfo } from '../../authn/user.js';
import { checkedRequestInfo, type Decision, type PolicyRule, type RulesResult } from '../../authz/authorizer.js';
import type { RequestInfo } from '../../request/request-info.js';

export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

export interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

export interface AccessReviewSpec {
  resourceAttributes?: ResourceAttributes | null;
  nonResourceAttributes?: NonResourceAttributes | null;
  user?: string;
  groups?: string[] | null;
  extra?: Record<string, string[]> | null;
  uid?: string;
}

export interface AccessReview extends KubeObject {
  spec?: AccessReviewSpec;
}

/** Which review is validated: the rules differ a little per kind, as upstream's validation. */
export type AccessReviewKind = 'SubjectAccessReview' | 'SelfSubjectAccessReview' | 'LocalSubjectAccessReview';

/** Metadata fields a review may carry: none but those a serializer always writes (and, for LSAR, namespace). */
function metadataErrors(review: AccessReview, kind: AccessReviewKind): FieldErrorList {
  const allowed = new Set(['managedFields', 'creationTimestamp']);
  if (kind === 'LocalSubjectAccessReview') allowed.add('namespace');
  const meta = review.metadata as unknown as Record<string, unknown>;
  const extra = Object.entries(meta ?? {}).filter(([k, v]) => !allowed.has(k) && v !== undefined && v !== null && v !== '');
  const timestamp = meta?.['creationTimestamp'];
  if (extra.length === 0 && (timestamp === undefined || timestamp === null)) return [];
  const detail = kind === 'LocalSubjectAccessReview' ? 'must be empty except for namespace' : 'must be empty';
  return [invalid('metadata', review.metadata, detail)];
}

/** Upstream's ValidateSubjectAccessReview / ValidateSelfSubjectAccessReview / ValidateLocalSubjectAccessReview. Pure. */
export function validateAccessReview(review: AccessReview, kind: AccessReviewKind): FieldErrorList {
  const spec = review.spec ?? {};
  const errs: FieldErrorList = [];
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    errs.push(invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes'));
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    errs.push(invalid('spec.resourceAttributes', spec.nonResourceAttributes ?? null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  if (kind !== 'SelfSubjectAccessReview' && !spec.user && (spec.groups ?? []).length === 0) {
    errs.push(invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
  }
  errs.push(...metadataErrors(review, kind));
  if (kind === 'LocalSubjectAccessReview') {
    const ns = review.metadata.namespace ?? '';
    if (spec.resourceAttributes && (spec.resourceAttributes.namespace ?? '') !== ns) {
      errs.push(invalid('spec.resourceAttributes.namespace', spec.resourceAttributes.namespace ?? '', 'must match metadata.namespace'));
    }
    if (spec.nonResourceAttributes) {
      errs.push(invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'disallowed on this kind of request'));
    }
  }
  return errs;
}

/** The user a SubjectAccessReview names (no groups are added: the review says who exactly). */
export function reviewedUser(spec: AccessReviewSpec): UserInfo {
  const user: UserInfo = { username: spec.user ?? '', groups: [...(spec.groups ?? [])] };
  if (spec.uid) user.uid = spec.uid;
  if (spec.extra && Object.keys(spec.extra).length > 0) user.extra = spec.extra;
  return user;
}

/** What the authorizer is asked for a validated spec; an empty version means every version, as upstream. */
export function reviewedRequest(spec: AccessReviewSpec): RequestInfo {
  const r = spec.resourceAttributes;
  if (r) {
    return checkedRequestInfo({
      verb: r.verb ?? '',
      apiGroup: r.group ?? '',
      apiVersion: r.version || '*',
      resource: r.resource ?? '',
      subresource: r.subresource ?? '',
      namespace: r.namespace ?? '',
      name: r.name ?? '',
    });
  }
  const n = spec.nonResourceAttributes ?? {};
  return checkedRequestInfo({ verb: n.verb ?? '', path: n.path ?? '' });
}

/** SubjectAccessReviewStatus of a decision: `allowed` always, `denied` only for an explicit deny. */
export function accessReviewStatus(decision: Decision, reason: string): Record<string, unknown> {
  const status: Record<string, unknown> = { allowed: decision === 'allow' };
  if (decision === 'deny') status['denied'] = true;
  if (reason) status['reason'] = reason;
  return status;
}

/**
 * SubjectRulesReviewStatus of the rules an authorizer lists: a rule naming resources becomes a
 * resource rule, one naming URLs a non-resource rule (a rule with both gives one of each), as
 * upstream's RBAC rule resolver splits them.
 */
export function rulesReviewStatus(result: RulesResult): Record<string, unknown> {
  const resourceRules: Record<string, string[]>[] = [];
  const nonResourceRules: Record<string, string[]>[] = [];
  for (const rule of result.rules) {
    if ((rule.resources ?? []).length > 0) resourceRules.push(resourceRule(rule));
    if ((rule.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: [...rule.verbs], nonResourceURLs: [...rule.nonResourceURLs!] });
  }
  const status: Record<string, unknown> = { resourceRules, nonResourceRules, incomplete: result.incomplete };
  if (result.evaluationError) status['evaluationError'] = result.evaluationError;
  return status;
}

function resourceRule(rule: PolicyRule): Record<string, string[]> {
  const out: Record<string, string[]> = { verbs: [...rule.verbs] };
  if (rule.apiGroups?.length) out['apiGroups'] = [...rule.apiGroups];
  if (rule.resources?.length) out['resources'] = [...rule.resources];
  if (rule.resourceNames?.length) out['resourceNames'] = [...rule.resourceNames];
  return out;
}
