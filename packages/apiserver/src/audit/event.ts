import type { UserInfo } from '../authn/user.js';
import type { RequestInfo } from '../request/request-info.js';
import type { AuditLevel, AuditStage } from './policy.js';

/** audit/v1 Event, as written to the log (one JSON object a line). */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: string;
  level: AuditLevel;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: Record<string, unknown>;
  impersonatedUser?: Record<string, unknown>;
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: Record<string, string>;
  responseStatus?: { metadata: Record<string, never>; code: number; status?: string; reason?: string; message?: string };
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** metav1.MicroTime: RFC 3339 with microseconds. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function userOut(u: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: u.username };
  if (u.uid) out['uid'] = u.uid;
  if (u.groups.length > 0) out['groups'] = [...u.groups];
  if (u.extra && Object.keys(u.extra).length > 0) out['extra'] = u.extra;
  return out;
}

/** The objectRef of a resource request (none for non-resource requests). Pure. */
export function objectRefOf(info: RequestInfo): Record<string, string> | undefined {
  if (!info.isResourceRequest) return undefined;
  const ref: Record<string, string> = { resource: info.resource };
  if (info.namespace) ref['namespace'] = info.namespace;
  if (info.name) ref['name'] = info.name;
  ref['apiGroup'] = info.apiGroup;
  ref['apiVersion'] = info.apiVersion;
  if (info.subresource) ref['subresource'] = info.subresource;
  return ref;
}
