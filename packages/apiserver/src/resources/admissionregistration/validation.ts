import {
  child,
  duplicate,
  index,
  invalid,
  isDNS1123Subdomain,
  notSupported,
  required,
  type FieldErrorList,
} from '@cluster/apimachinery';
import { validateLabelSelector } from '../apps/workload/selector.js';
import type { RuleWithOperations, Webhook, WebhookClientConfig, WebhookConfiguration } from './types.js';

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const V1BETA1_SIDE_EFFECTS = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const REINVOCATION = ['IfNeeded', 'Never'];

/** Upstream's defaults of one webhook (SetDefaults_ValidatingWebhook / _MutatingWebhook, _Rule, _ServiceReference). */
export function defaultWebhook(w: Webhook, mutating: boolean): void {
  w.failurePolicy ??= 'Fail';
  w.matchPolicy ??= 'Equivalent';
  w.namespaceSelector ??= {};
  w.objectSelector ??= {};
  w.timeoutSeconds ??= 10;
  if (mutating) w.reinvocationPolicy ??= 'Never';
  for (const r of w.rules ?? []) r.scope ??= '*';
  if (w.clientConfig?.service) w.clientConfig.service.port ??= 443;
}

/** admissionregistration/v1beta1's defaults (a removed version): laxer than v1's. */
export function defaultWebhookV1beta1(w: Webhook, mutating: boolean): void {
  w.failurePolicy ??= 'Ignore';
  w.matchPolicy ??= 'Exact';
  w.sideEffects ??= 'Unknown';
  w.timeoutSeconds ??= 30;
  if (!w.admissionReviewVersions?.length) w.admissionReviewVersions = ['v1beta1'];
  defaultWebhook(w, mutating);
}

/**
 * What upstream's validation requires of a request's version: v1 requires unique webhook names,
 * sideEffects None or NoneOnDryRun and an AdmissionReview version it knows; v1beta1 does not, and
 * an update through v1 keeps what the stored object already had (as upstream's update validation).
 */
export interface WebhookValidationOptions {
  uniqueNames: boolean;
  noSideEffects: boolean;
  knownReviewVersion: boolean;
}

export const V1_VALIDATION: WebhookValidationOptions = { uniqueNames: true, noSideEffects: true, knownReviewVersion: true };
export const V1BETA1_VALIDATION: WebhookValidationOptions = { uniqueNames: false, noSideEffects: false, knownReviewVersion: false };

/** v1's options for an update of `old`: a requirement the stored object did not meet is not imposed. */
export function v1UpdateValidation(old: WebhookConfiguration): WebhookValidationOptions {
  const webhooks = old.webhooks ?? [];
  const names = webhooks.map((w) => w.name);
  return {
    uniqueNames: new Set(names).size === names.length,
    noSideEffects: webhooks.every((w) => w.sideEffects === undefined || SIDE_EFFECTS.includes(w.sideEffects)),
    knownReviewVersion: webhooks.every((w) => (w.admissionReviewVersions ?? []).some((v) => REVIEW_VERSIONS.includes(v))),
  };
}

function validateRule(r: RuleWithOperations, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const ops = r.operations ?? [];
  if (ops.length === 0) errs.push(required(child(path, 'operations')));
  if (ops.length > 1 && ops.includes('*')) errs.push(invalid(child(path, 'operations'), ops, "if '*' is present, must not specify other operations"));
  ops.forEach((o, i) => {
    if (!OPERATIONS.includes(o)) errs.push(notSupported(index(child(path, 'operations'), i), o, OPERATIONS.slice(1)));
  });
  for (const f of ['apiGroups', 'apiVersions'] as const) {
    const list = r[f] ?? [];
    if (list.length === 0) errs.push(required(child(path, f)));
    if (list.length > 1 && list.includes('*')) errs.push(invalid(child(path, f), list, "if '*' is present, must not specify other API groups"));
  }
  (r.apiVersions ?? []).forEach((v, i) => {
    if (v === '') errs.push(required(index(child(path, 'apiVersions'), i)));
  });
  const resources = r.resources ?? [];
  if (resources.length === 0) errs.push(required(child(path, 'resources')));
  const seen = new Set<string>();
  resources.forEach((res, i) => {
    const p = index(child(path, 'resources'), i);
    if (res === '') { errs.push(required(p)); return; }
    if (seen.has(res)) errs.push(duplicate(p, res));
    seen.add(res);
    const [main, sub, extra] = res.split('/');
    if (extra !== undefined) errs.push(invalid(p, res, 'must have at most one slash'));
    if (main === '*' && sub === undefined && resources.length > 1) errs.push(invalid(p, res, "if '*' is present, must not specify other resources without subresources"));
    if (main === '*' && sub === '*' && resources.length > 1) errs.push(invalid(p, res, "if '*/*' is present, must not specify other resources"));
  });
  if (r.scope !== undefined && !SCOPES.includes(r.scope)) errs.push(notSupported(child(path, 'scope'), r.scope, SCOPES));
  return errs;
}

function validateURL(url: string, path: string): FieldErrorList {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [invalid(path, url, 'host must be specified')];
  }
  const errs: FieldErrorList = [];
  if (u.protocol !== 'https:') errs.push(invalid(path, url, "'https' is the only allowed URL scheme"));
  if (u.hostname === '') errs.push(invalid(path, url, 'host must be specified'));
  if (u.username !== '' || u.password !== '') errs.push(invalid(path, url, 'user information is not permitted in the URL'));
  if (url.includes('#')) errs.push(invalid(path, url, 'fragments are not permitted in the URL'));
  if (url.includes('?')) errs.push(invalid(path, url, 'query parameters are not permitted in the URL'));
  return errs;
}

function validateClientConfig(cc: WebhookClientConfig | undefined, path: string): FieldErrorList {
  if (!cc || (cc.url === undefined && !cc.service)) return [required(path, 'exactly one of url or service is required')];
  if (cc.url !== undefined && cc.service) return [required(path, 'exactly one of url or service is required')];
  if (cc.url !== undefined) return validateURL(cc.url, child(path, 'url'));
  const s = cc.service!;
  const sp = child(path, 'service');
  const errs: FieldErrorList = [];
  if (!s.name) errs.push(required(child(sp, 'name'), 'service name is required'));
  if (!s.namespace) errs.push(required(child(sp, 'namespace'), 'service namespace is required'));
  if (s.port !== undefined && (!Number.isInteger(s.port) || s.port < 1 || s.port > 65535)) {
    errs.push(invalid(child(sp, 'port'), s.port, 'port is not valid: must be between 1 and 65535, inclusive'));
  }
  if (s.path !== undefined && s.path !== '') {
    if (!s.path.startsWith('/')) errs.push(invalid(child(sp, 'path'), s.path, "must start with a '/'"));
    else if (s.path !== '/' && s.path.split('/').slice(1).some((seg) => seg === '')) errs.push(invalid(child(sp, 'path'), s.path, 'segment must not be empty'));
  }
  if (cc.caBundle !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(cc.caBundle)) errs.push(invalid(child(path, 'caBundle'), '<bytes>', 'must be base64 encoded'));
  return errs;
}

function validateWebhook(w: Webhook, path: string, mutating: boolean, o: WebhookValidationOptions): FieldErrorList {
  const errs: FieldErrorList = [];
  const np = child(path, 'name');
  if (!w.name) errs.push(required(np));
  else {
    for (const m of isDNS1123Subdomain(w.name)) errs.push(invalid(np, w.name, m));
    if (w.name.split('.').length < 3) errs.push(invalid(np, w.name, 'should be a domain with at least three segments separated by dots'));
  }
  (w.rules ?? []).forEach((r, i) => errs.push(...validateRule(r, index(child(path, 'rules'), i))));
  if (w.failurePolicy !== undefined && !FAILURE_POLICIES.includes(w.failurePolicy)) errs.push(notSupported(child(path, 'failurePolicy'), w.failurePolicy, FAILURE_POLICIES));
  if (w.matchPolicy !== undefined && !MATCH_POLICIES.includes(w.matchPolicy)) errs.push(notSupported(child(path, 'matchPolicy'), w.matchPolicy, MATCH_POLICIES));
  const sideEffects = o.noSideEffects ? SIDE_EFFECTS : V1BETA1_SIDE_EFFECTS;
  if (w.sideEffects === undefined) errs.push(required(child(path, 'sideEffects'), `must specify one of ${sideEffects.join(', ')}`));
  else if (!sideEffects.includes(w.sideEffects)) errs.push(notSupported(child(path, 'sideEffects'), w.sideEffects, sideEffects));
  if (w.timeoutSeconds !== undefined && (w.timeoutSeconds < 1 || w.timeoutSeconds > 30)) {
    errs.push(invalid(child(path, 'timeoutSeconds'), w.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds'));
  }
  const versions = w.admissionReviewVersions ?? [];
  const vp = child(path, 'admissionReviewVersions');
  if (versions.length === 0) errs.push(required(vp, `must specify one of ${REVIEW_VERSIONS.join(', ')}`));
  else if (o.knownReviewVersion && !versions.some((v) => REVIEW_VERSIONS.includes(v))) errs.push(invalid(vp, versions, `must include at least one of ${REVIEW_VERSIONS.join(', ')}`));
  const seenVersions = new Set<string>();
  versions.forEach((v, i) => {
    if (seenVersions.has(v)) errs.push(invalid(index(vp, i), v, 'duplicate version'));
    seenVersions.add(v);
  });
  errs.push(...validateLabelSelector(w.namespaceSelector, child(path, 'namespaceSelector')));
  errs.push(...validateLabelSelector(w.objectSelector, child(path, 'objectSelector')));
  if (mutating && w.reinvocationPolicy !== undefined && !REINVOCATION.includes(w.reinvocationPolicy)) {
    errs.push(notSupported(child(path, 'reinvocationPolicy'), w.reinvocationPolicy, REINVOCATION));
  }
  errs.push(...validateClientConfig(w.clientConfig, child(path, 'clientConfig')));
  return errs;
}

/** Upstream's ValidateValidatingWebhookConfiguration / ValidateMutatingWebhookConfiguration (without the metadata). */
export function validateWebhookConfiguration(c: WebhookConfiguration, mutating: boolean, o: WebhookValidationOptions = V1_VALIDATION): FieldErrorList {
  const errs: FieldErrorList = [];
  const names = new Set<string>();
  (c.webhooks ?? []).forEach((w, i) => {
    const path = index('webhooks', i);
    if (o.uniqueNames && w.name && names.has(w.name)) errs.push(duplicate(child(path, 'name'), w.name));
    if (w.name) names.add(w.name);
    errs.push(...validateWebhook(w, path, mutating, o));
  });
  return errs;
}
