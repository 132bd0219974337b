import { randomUUID } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { newBadRequest, newInternalError, StatusError, type KubeObject, type Status } from '@cluster/apimachinery';
import type { Webhook } from '../resources/admissionregistration/types.js';
import type { AdmissionAttributes } from './admission.js';
import { exempt, webhookMatches, type NamespaceLabels } from './webhook-match.js';
import type { WebhookEntry } from './webhook-source.js';

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
  /** Observes each call (metrics); `rejected` when the webhook denied the request or failed with Fail. */
  observe?: (e: { name: string; type: 'admit' | 'validating'; operation: string; rejected: boolean; seconds: number; errorType?: 'calling_webhook_error' | 'no_error' }) => void;
}

/** The decoded answer of a webhook that answered. */
export interface WebhookAnswer {
  allowed: boolean;
  status?: Partial<Status>;
  patch?: string;
  patchType?: string;
  warnings?: string[];
}

/** A call that failed (unreachable, timed out, answered garbage): subject to the failure policy. */
export class WebhookCallError extends Error {}

const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;
const REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** The webhooks of `entries` that apply to the request, in order. */
export async function matchingWebhooks(entries: readonly WebhookEntry[], a: AdmissionAttributes, deps: WebhookDeps): Promise<WebhookEntry[]> {
  if (exempt(a)) return [];
  const out: WebhookEntry[] = [];
  for (const e of entries) if (await webhookMatches(e, a, deps.namespaceLabels)) out.push(e);
  return out;
}

/** Upstream refuses a dry-run request to a webhook that may have side effects: 400. */
export function checkDryRun(w: Webhook, a: AdmissionAttributes): void {
  if (a.dryRun && w.sideEffects !== 'None' && w.sideEffects !== 'NoneOnDryRun') {
    throw newBadRequest(`admission webhook "${w.name ?? ''}" does not support dry run`);
  }
}

function groupVersionOf(o: KubeObject | undefined, fallbackGroup: string, fallbackVersion: string): { group: string; version: string } {
  const av = o?.apiVersion;
  if (!av) return { group: fallbackGroup, version: fallbackVersion };
  const slash = av.indexOf('/');
  return slash < 0 ? { group: '', version: av } : { group: av.slice(0, slash), version: av.slice(slash + 1) };
}

/** The AdmissionReview (admission.<apiDomain>/v1) sent for the request. */
export function admissionReview(a: AdmissionAttributes, apiDomain: string, uid: string, version = 'v1'): Record<string, unknown> {
  const info = a.resource;
  const obj = a.object ?? a.oldObject;
  const gv = a.subresource ? groupVersionOf(a.object, info.group, info.version) : { group: info.group, version: info.version };
  const kind = { group: gv.group, version: gv.version, kind: (a.subresource ? a.object?.kind : undefined) ?? info.kind };
  const resource = { group: info.group, version: info.version, resource: info.resource };
  const optionsKind = a.operation === 'CREATE' ? 'CreateOptions' : a.operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions';
  const request: Record<string, unknown> = {
    uid,
    kind,
    resource,
    requestKind: kind,
    requestResource: resource,
    name: a.name || obj?.metadata?.name || '',
    operation: a.operation,
    userInfo: a.user ? { username: a.user.username, ...(a.user.uid ? { uid: a.user.uid } : {}), groups: a.user.groups, ...(a.user.extra ? { extra: a.user.extra } : {}) } : { username: '' },
    object: a.operation === 'DELETE' ? null : (a.object ?? null),
    oldObject: a.oldObject ?? null,
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

/** POSTs the review to the webhook; its timeoutSeconds bounds the whole call. */
export async function callWebhook(w: Webhook, a: AdmissionAttributes, deps: WebhookDeps): Promise<WebhookAnswer> {
  const uid = randomUUID();
  // The first AdmissionReview version the webhook lists that this server speaks, as upstream.
  const version = (w.admissionReviewVersions ?? []).find((v) => REVIEW_VERSIONS.includes(v)) ?? 'v1';
  const body = Buffer.from(JSON.stringify(admissionReview(a, deps.apiDomain, uid, version)));
  const timeoutSeconds = w.timeoutSeconds ?? 10;
  const cc = w.clientConfig ?? {};
  let url: URL;
  let serverName: string | undefined;
  let host: string;
  let port: number;
  if (cc.url !== undefined) {
    url = new URL(cc.url);
    host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    port = url.port ? Number(url.port) : 443;
  } else {
    const s = cc.service ?? {};
    let resolved: ResolvedService;
    try {
      resolved = await deps.resolveService(s.namespace ?? '', s.name ?? '', s.port ?? 443);
    } catch (e) {
      throw new WebhookCallError(`failed to call webhook: ${(e as Error).message}`);
    }
    ({ host, port, serverName } = resolved);
    url = new URL(`https://${serverName}:${s.port ?? 443}${s.path ?? ''}`);
  }
  url.searchParams.set('timeout', `${timeoutSeconds}s`);
  const ca = cc.caBundle ? Buffer.from(cc.caBundle, 'base64') : undefined;
  const path = `${url.pathname || '/'}${url.search}`;
  const text = await new Promise<string>((resolve, reject) => {
    const fail = (reason: string) => reject(new WebhookCallError(`failed to call webhook: Post "${url.href}": ${reason}`));
    const req = httpsRequest(
      {
        host,
        port,
        path,
        method: 'POST',
        servername: serverName ?? (/^[\d.]+$|:/.test(host) ? undefined : host),
        ca,
        agent: false,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': String(body.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy();
            fail('response too large');
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => {
          const payload = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) {
            reject(new WebhookCallError(`the server responded with the status code ${res.statusCode ?? 0} but did not return more information`));
            return;
          }
          resolve(payload);
        });
        res.on('error', (e) => fail(e.message));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      fail('context deadline exceeded');
    }, timeoutSeconds * 1000);
    req.on('error', (e) => fail(e.message));
    req.on('close', () => clearTimeout(timer));
    req.end(body);
  });
  return parseAnswer(text, uid, `admission.${deps.apiDomain}/${version}`);
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
    if (typeof resp['patch'] !== 'string') throw new WebhookCallError('received invalid webhook response: response.patch is not base64');
    answer.patch = resp['patch'];
  }
  if (typeof resp['patchType'] === 'string') answer.patchType = resp['patchType'];
  if (Array.isArray(resp['warnings'])) answer.warnings = resp['warnings'].filter((w): w is string => typeof w === 'string');
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

/**
 * Adds a webhook's warnings to the request's `Warning` headers (one line each). The sink travels
 * with the admission attributes rather than in an AsyncLocalStorage: on Node 20 one
 * AsyncLocalStorage.run turns on promise hooks for the whole process, a cost every promise of
 * every request then pays.
 */
export function recordWarnings(a: AdmissionAttributes, warnings: readonly string[] | undefined): void {
  if (!warnings?.length || !a.warnings) return;
  a.warnings.push(...warnings.map((w) => w.replace(/[\r\n]+/g, ' ')));
}
