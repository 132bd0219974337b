import type { UserInfo } from './user.js';

/**
 * One thing a caller asks to act as (SPEC 5.5), with what the caller must be allowed to
 * `impersonate` for it: a resource in a group, narrowed by name (and namespace for accounts).
 */
export interface ImpersonationRequest {
  header: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

/** What the Impersonate-* headers ask for, before any check. */
export interface ImpersonationHeaders {
  user?: string;
  groups: string[];
  uid?: string;
  extra: Record<string, string[]>;
}

const USER = 'impersonate-user';
const GROUP = 'impersonate-group';
const UID = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';

const SA_PREFIX = 'system:serviceaccount:';
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Reads the Impersonate-* headers (names lower-cased, one entry per header line, as Node's
 * `headersDistinct` gives them). Extra names are lower-cased, then percent-decoded (a name that
 * does not decode is kept as sent, as upstream). Returns undefined when no such header is present.
 */
export function parseImpersonationHeaders(headers: Readonly<Record<string, readonly string[] | undefined>>): ImpersonationHeaders | undefined {
  let found = false;
  const parsed: ImpersonationHeaders = { groups: [], extra: {} };
  for (const [rawName, values] of Object.entries(headers)) {
    if (!values) continue;
    const name = rawName.toLowerCase();
    if (name === USER) {
      parsed.user = values[0];
    } else if (name === GROUP) {
      parsed.groups.push(...values);
    } else if (name === UID) {
      parsed.uid = values[0];
    } else if (name.startsWith(EXTRA_PREFIX)) {
      const key = decodeExtraKey(name.slice(EXTRA_PREFIX.length));
      (parsed.extra[key] ??= []).push(...values);
    } else {
      continue;
    }
    found = true;
  }
  return found ? parsed : undefined;
}

function decodeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** Namespace and name of a `system:serviceaccount:<ns>:<name>` username whose parts are valid names. */
export function serviceAccountOf(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SA_PREFIX)) return undefined;
  const parts = username.slice(SA_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (namespace.length > 63 || !DNS_LABEL.test(namespace) || name.length > 253 || !DNS_SUBDOMAIN.test(name)) return undefined;
  return { namespace, name };
}

/**
 * The checks impersonation needs, in upstream's order (user or service account, groups, extras,
 * uid). Throws a message when a group, extra or uid is asked for without a user: upstream answers
 * that with a 500; the issue asks for a 400, which is what the caller did wrong.
 */
export function impersonationRequests(h: ImpersonationHeaders, authenticationGroup: string): ImpersonationRequest[] {
  if (h.user === undefined) {
    const asked = [
      ...h.groups.map((g) => `Impersonate-Group: ${g}`),
      ...Object.entries(h.extra).flatMap(([k, vs]) => vs.map((v) => `Impersonate-Extra-${k}: ${v}`)),
      ...(h.uid !== undefined ? [`Impersonate-Uid: ${h.uid}`] : []),
    ];
    throw new Error(`requested [${asked.join(', ')}] without impersonating a user`);
  }
  const requests: ImpersonationRequest[] = [];
  const sa = serviceAccountOf(h.user);
  requests.push(
    sa
      ? { header: 'Impersonate-User', apiGroup: '', resource: 'serviceaccounts', subresource: '', namespace: sa.namespace, name: sa.name }
      : { header: 'Impersonate-User', apiGroup: '', resource: 'users', subresource: '', namespace: '', name: h.user },
  );
  for (const g of h.groups) {
    requests.push({ header: 'Impersonate-Group', apiGroup: '', resource: 'groups', subresource: '', namespace: '', name: g });
  }
  for (const [key, values] of Object.entries(h.extra)) {
    for (const v of values) {
      requests.push({ header: `Impersonate-Extra-${key}`, apiGroup: authenticationGroup, resource: 'userextras', subresource: key, namespace: '', name: v });
    }
  }
  if (h.uid !== undefined) {
    requests.push({ header: 'Impersonate-Uid', apiGroup: authenticationGroup, resource: 'uids', subresource: '', namespace: '', name: h.uid });
  }
  return requests;
}

/**
 * The identity a permitted impersonation yields: exactly what was asked, plus the fixed groups of
 * a service account when no group was asked, plus `system:authenticated` (or, for
 * `system:anonymous`, `system:unauthenticated`) when missing, as upstream.
 */
export function impersonatedUser(h: ImpersonationHeaders): UserInfo {
  const username = h.user!;
  let groups = [...h.groups];
  const sa = serviceAccountOf(username);
  if (sa && groups.length === 0) groups = ['system:serviceaccounts', `system:serviceaccounts:${sa.namespace}`];
  const implied = username === 'system:anonymous' ? 'system:unauthenticated' : 'system:authenticated';
  if (!groups.includes(implied)) groups.push(implied);
  const user: UserInfo = { username, groups };
  if (h.uid !== undefined) user.uid = h.uid;
  if (Object.keys(h.extra).length > 0) user.extra = h.extra;
  return user;
}
