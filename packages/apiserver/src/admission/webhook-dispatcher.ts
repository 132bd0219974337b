import { randomUUID } from 'node:crypto';
import { newBadRequest, newInternalError, StatusError, type KubeObject, type Status } from '@cluster/apimachinery';
import type { Webhook } from '../resources/admissionregistration/types.js';
import type { AdmissionAttributes } from './admission.js';
import { postReview, WebhookCallError, type CallTarget, type CredentialsFor } from './webhook-call.js';
import { exempt, matchedResource, selectorsMatch, type EquivalentResource, type EquivalentResources, type NamespaceLabels } from './webhook-match.js';
import type { WebhookEntry } from './webhook-source.js';

export { WebhookCallError } from './webhook-call.js';

/** Where a Service-backed webhook is reached: an endpoint address and port, and the TLS name. */
export interface ResolvedService {
  host: string;
  port: number;
  serverName: string;
}

/** Resolves a webhook's Service reference through the Service and its Endpoints. */
export type ServiceResolver = (namespace: string, name: string, port: number) => Promise<ResolvedService>;

/** What the webhook plugins need of the server. */
export interface WebhookDeps {
  apiDomain: string;
  namespaceLabels: NamespaceLabels;
  resolveService: ServiceResolver;
  /** Resources equivalent to a request's (matchPolicy Equivalent); absent: none. */
  equivalents?: EquivalentResources;
  /** Credentials per webhook host (--admission-control-config-file); absent: none. */
  credentials?: CredentialsFor;
  /** Observes each call (metrics); `rejected` when the webhook denied the request or failed with Fail. */
  observe?: (e: { name: string; type: 'admit' | 'validating'; operation: string; rejected: boolean; seconds: number; errorType?: 'calling_webhook_error' | 'no_error'; code?: number }) => void;
}

/** The decoded answer of a webhook that answered. */
export interface WebhookAnswer {
  allowed: boolean;
  status?: Partial<Status>;
  patch?: string;
  patchType?: string;
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

/**
 * One webhook called for one request: the resource and kind it is called for (the request's own,
 * an equivalent one under matchPolicy Equivalent, or a subresource's own kind such as Scale) and
 * the objects it is sent, converted to that kind.
 */
export interface Invocation {
  entry: WebhookEntry;
  /** The equivalent resource the webhook's rules named; undefined for the request's own. */
  equivalent: EquivalentResource | undefined;
}

const REVIEW_VERSIONS = ['v1', 'v1beta1'];
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The webhooks of `entries` that apply to the request, in order. */
export async function matchingWebhooks(entries: readonly WebhookEntry[], a: AdmissionAttributes, deps: WebhookDeps): Promise<Invocation[]> {
  if (exempt(a)) return [];
  const out: Invocation[] = [];
  for (const entry of entries) {
    const eq = matchedResource(entry, a, deps.equivalents);
    if (eq === undefined) continue;
    if (await selectorsMatch(entry, a, deps.namespaceLabels)) out.push({ entry, equivalent: eq ?? undefined });
  }
  return out;
}

/** Upstream refuses a dry-run request to a webhook that may have side effects: 400. */
export function checkDryRun(w: Webhook, a: AdmissionAttributes): void {
  if (a.dryRun && w.sideEffects !== 'None' && w.sideEffects !== 'NoneOnDryRun') {
    throw newBadRequest(`admission webhook "${w.name ?? ''}" does not support dry run`);
  }
}

function groupVersionOf(apiVersion: string | undefined, fallbackGroup: string, fallbackVersion: string): { group: string; version: string } {
  if (!apiVersion) return { group: fallbackGroup, version: fallbackVersion };
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The object as the invocation's webhook sees it: a subresource's own kind, or converted to the equivalent resource. */
export function versionedObject(inv: Invocation, a: AdmissionAttributes, obj: KubeObject | undefined): KubeObject | undefined {
  if (!obj) return undefined;
  if (a.view) {
    const info = a.view.info;
    const group = info.group ?? a.resource.group;
    return { ...a.view.view.toView(obj), apiVersion: `${group ? `${group}/` : ''}${info.version ?? a.resource.version}`, kind: info.kind };
  }
  return inv.equivalent ? inv.equivalent.to(obj) : obj;
}

/** The AdmissionReview (admission.<apiDomain>/<version>) sent for the request. */
export function admissionReview(inv: Invocation, a: AdmissionAttributes, apiDomain: string, uid: string, version = 'v1'): Record<string, unknown> {
  const requested = a.resource;
  const info = inv.equivalent?.info ?? requested;
  const object = a.operation === 'DELETE' ? undefined : versionedObject(inv, a, a.object);
  const oldObject = versionedObject(inv, a, a.oldObject);
  const kindOf = (r: typeof info, o: KubeObject | undefined) => {
    if (a.view) {
      const v = a.view.info;
      return { group: v.group ?? r.group, version: v.version ?? r.version, kind: v.kind };
    }
    // Subresources with a kind of their own (serviceaccounts/token: TokenRequest) name it in the object.
    const gv = a.subresource ? groupVersionOf(o?.apiVersion, r.group, r.version) : { group: r.group, version: r.version };
    return { group: gv.group, version: gv.version, kind: (a.subresource ? o?.kind : undefined) ?? r.kind };
  };
  const sample = object ?? oldObject;
  const kind = kindOf(info, sample);
  const requestKind = inv.equivalent ? kindOf(requested, a.object ?? a.oldObject) : kind;
  const resource = { group: info.group, version: info.version, resource: info.resource };
  const requestResource = { group: requested.group, version: requested.version, resource: requested.resource };
  const optionsKind = a.operation === 'CREATE' ? 'CreateOptions' : a.operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions';
  const request: Record<string, unknown> = {
    uid,
    kind,
    resource,
    requestKind,
    requestResource,
    name: a.name || sample?.metadata?.name || '',
    operation: a.operation,
    userInfo: a.user ? { username: a.user.username, ...(a.user.uid ? { uid: a.user.uid } : {}), groups: a.user.groups, ...(a.user.extra ? { extra: a.user.extra } : {}) } : { username: '' },
    object: object ?? null,
    oldObject: oldObject ?? null,
    dryRun: a.dryRun,
    options: { kind: optionsKind, apiVersion: `meta.${apiDomain}/v1`, ...(a.dryRun ? { dryRun: ['All'] } : {}) },
  };
  if (a.subresource) {
    request['subResource'] = a.subresource;
    request['requestSubResource'] = a.subresource;
  }
  if (a.namespace) request['namespace'] = a.namespace;
  return { apiVersion: `admission.${apiDomain}/${version}`, kind: 'AdmissionReview', request };
}

/** URL targets, worked out once per webhook (a changed configuration brings new webhook objects). */
const urlTargets = new WeakMap<Webhook, CallTarget>();

/** Where the webhook is reached, with the credentials configured for its host. */
async function targetOf(w: Webhook, deps: WebhookDeps): Promise<CallTarget> {
  const timeoutSeconds = w.timeoutSeconds ?? 10;
  const cc = w.clientConfig ?? {};
  if (cc.url !== undefined) {
    let t = urlTargets.get(w);
    if (!t) {
      t = urlTarget(cc.url, timeoutSeconds, cc.caBundle, deps);
      urlTargets.set(w, t);
    }
    return t;
  }
  const ca = cc.caBundle ? Buffer.from(cc.caBundle, 'base64') : undefined;
  const s = cc.service ?? {};
  const port = s.port ?? 443;
  let resolved: ResolvedService;
  try {
    resolved = await deps.resolveService(s.namespace ?? '', s.name ?? '', port);
  } catch (e) {
    throw new WebhookCallError(`failed to call webhook: ${(e as Error).message}`);
  }
  const url = new URL(`https://${resolved.serverName}:${port}${s.path ?? ''}`);
  url.searchParams.set('timeout', `${timeoutSeconds}s`);
  return {
    host: resolved.host,
    port: resolved.port,
    path: `${url.pathname || '/'}${url.search}`,
    serverName: resolved.serverName,
    ca,
    credentials: deps.credentials?.(`${resolved.serverName}:${port}`),
    href: url.href,
  };
}

function urlTarget(raw: string, timeoutSeconds: number, caBundle: string | undefined, deps: WebhookDeps): CallTarget {
  const url = new URL(raw);
  url.searchParams.set('timeout', `${timeoutSeconds}s`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    host,
    port: url.port ? Number(url.port) : 443,
    path: `${url.pathname || '/'}${url.search}`,
    serverName: /^[\d.]+$|:/.test(host) ? undefined : host,
    ca: caBundle ? Buffer.from(caBundle, 'base64') : undefined,
    credentials: deps.credentials?.(url.host),
    href: url.href,
  };
}

/** POSTs the review to the webhook; its timeoutSeconds bounds the whole call. */
export async function callWebhook(inv: Invocation, a: AdmissionAttributes, deps: WebhookDeps, mutating: boolean): Promise<WebhookAnswer> {
  const w = inv.entry.webhook;
  const uid = randomUUID();
  // The first AdmissionReview version the webhook lists that this server speaks, as upstream.
  const version = (w.admissionReviewVersions ?? []).find((v) => REVIEW_VERSIONS.includes(v)) ?? 'v1';
  const body = Buffer.from(JSON.stringify(admissionReview(inv, a, deps.apiDomain, uid, version)));
  const target = await targetOf(w, deps);
  const text = await postReview(target, body, (w.timeoutSeconds ?? 10) * 1000);
  const answer = parseAnswer(text, uid, `admission.${deps.apiDomain}/${version}`);
  if (!mutating) {
    // A validating webhook's patch is not read.
    delete answer.patch;
  } else if (answer.patch !== undefined && answer.patchType !== 'JSONPatch') {
    throw new WebhookCallError(`received invalid webhook response: webhook returned invalid response.patchType of ${JSON.stringify(answer.patchType ?? '')}`);
  }
  return answer;
}

function parseAnswer(text: string, uid: string, apiVersion: string): WebhookAnswer {
  let review: unknown;
  try {
    review = JSON.parse(text);
  } catch {
    throw new WebhookCallError('received invalid webhook response: the response is not JSON');
  }
  const r = review as { apiVersion?: unknown; kind?: unknown; response?: Record<string, unknown> };
  if (typeof r !== 'object' || r === null || r.kind !== 'AdmissionReview' || r.apiVersion !== apiVersion) {
    throw new WebhookCallError(`received invalid webhook response: expected webhook response of ${apiVersion}, Kind=AdmissionReview`);
  }
  const resp = r.response;
  if (typeof resp !== 'object' || resp === null) throw new WebhookCallError('webhook response was absent');
  if (resp['uid'] !== uid) throw new WebhookCallError(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(resp['uid'] ?? '')}`);
  if (typeof resp['allowed'] !== 'boolean') throw new WebhookCallError('received invalid webhook response: response.allowed is not a boolean');
  const answer: WebhookAnswer = { allowed: resp['allowed'] };
  if (typeof resp['status'] === 'object' && resp['status'] !== null) answer.status = resp['status'] as Partial<Status>;
  if (resp['patch'] !== undefined && resp['patch'] !== null) {
    // (A []byte in upstream's Go types: anything but base64 fails the decoding of the whole review.)
    if (typeof resp['patch'] !== 'string' || !BASE64.test(resp['patch'])) throw new WebhookCallError('received invalid webhook response: response.patch is not base64');
    if (resp['patch'] !== '') answer.patch = resp['patch'];
  }
  if (typeof resp['patchType'] === 'string') answer.patchType = resp['patchType'];
  if (Array.isArray(resp['warnings'])) answer.warnings = resp['warnings'].filter((w): w is string => typeof w === 'string');
  const annotations = resp['auditAnnotations'];
  if (typeof annotations === 'object' && annotations !== null && !Array.isArray(annotations)) {
    answer.auditAnnotations = {};
    for (const [k, v] of Object.entries(annotations)) if (typeof v === 'string') answer.auditAnnotations[k] = v;
  }
  return answer;
}

/** Upstream's error for a webhook that denied the request: its code (400 by default) and message. */
export function denial(name: string, status: Partial<Status> | undefined): StatusError {
  const deniedBy = `admission webhook ${JSON.stringify(name)} denied the request`;
  const message = status?.message ? `${deniedBy}: ${status.message}` : deniedBy;
  const code = typeof status?.code === 'number' && status.code >= 400 && status.code < 600 ? status.code : 400;
  const out: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code };
  if (status?.reason) out.reason = status.reason;
  if (status?.details) out.details = status.details;
  return new StatusError(out);
}

/** A failed call under failurePolicy Fail: 500 naming the webhook. */
export function callFailure(name: string, e: unknown): StatusError {
  return newInternalError(new Error(`failed calling webhook ${JSON.stringify(name)}: ${(e as Error).message}`));
}

const MAX_WARNING_LENGTH = 256;
const MAX_WARNINGS_TOTAL = 4096;
const QUALIFIED_NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/**
 * Hands a webhook's warnings to the request's `Warning` headers (one line each) and its audit
 * annotations to the request's audit event as `<webhook name>/<key>` (keys that would not make a
 * qualified name are dropped, as upstream drops them).
 */
export function recordAnswer(a: AdmissionAttributes, name: string, answer: WebhookAnswer): void {
  const report = a.report;
  if (!report) return;
  for (const w of answer.warnings ?? []) {
    // Upstream's limits: a warning is cut at 256 characters, and past 4,096 in all the rest are dropped.
    const text = w.replace(/[\r\n]+/g, ' ').slice(0, MAX_WARNING_LENGTH);
    const total = report.warnings.reduce((n, x) => n + x.length, 0);
    if (total + text.length > MAX_WARNINGS_TOTAL) break;
    report.warnings.push(text);
  }
  const audit = report.audit;
  if (audit && answer.auditAnnotations) {
    for (const [k, v] of Object.entries(answer.auditAnnotations)) {
      if (!QUALIFIED_NAME_PART.test(k)) continue;
      audit.annotations[`${name}/${k}`] = v;
    }
  }
}

/** Records an audit annotation of the request, when it is audited. */
export function annotate(a: AdmissionAttributes, key: string, value: string): void {
  const audit = a.report?.audit;
  if (audit) audit.annotations[key] = value;
}
