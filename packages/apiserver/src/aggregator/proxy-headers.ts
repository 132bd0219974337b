import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { UserInfo } from '../authn/user.js';

/** The identity headers the aggregator sets (upstream's fixed names, published in extension-apiserver-authentication). */
export const REMOTE_USER_HEADER = 'X-Remote-User';
export const REMOTE_GROUP_HEADER = 'X-Remote-Group';
export const REMOTE_EXTRA_PREFIX = 'X-Remote-Extra-';

/** Connection-level headers (RFC 9110 7.6.1 and the legacy ones) that never cross a proxy. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
]);

/** Options of {@link proxyRequestHeaders}. */
export interface ProxyHeaderOptions {
  /** The caller as this server authenticated (and impersonated) it. */
  user: UserInfo;
  /** host[:port] of the extension, for the Host header. */
  host: string;
  /**
   * More identity header names and prefixes to drop (this server's --requestheader-* names), on
   * top of X-Remote-User/-Group/-Uid/-Extra-*; lower-case or not.
   */
  stripNames?: readonly string[];
  stripPrefixes?: readonly string[];
}

/**
 * The headers of a request forwarded to an extension API server: the caller's headers without
 * its credentials (Authorization, Impersonate-*), without any identity header it sent (a caller
 * cannot speak for someone else through the proxy's trusted certificate), without hop-by-hop and
 * HTTP/2 pseudo-headers; then X-Remote-User, X-Remote-Group (one value each) and
 * X-Remote-Extra-<key> (the key percent-encoded, as upstream) from `user`. Pure.
 */
export function proxyRequestHeaders(incoming: IncomingHttpHeaders, opts: ProxyHeaderOptions): OutgoingHttpHeaders {
  const names = new Set(['x-remote-user', 'x-remote-group', 'x-remote-uid', ...(opts.stripNames ?? []).map((n) => n.toLowerCase())]);
  const prefixes = ['x-remote-extra-', ...(opts.stripPrefixes ?? []).map((p) => p.toLowerCase())];
  const connectionTokens = connectionHeaderTokens(incoming['connection']);
  const out: OutgoingHttpHeaders = {};
  for (const [rawName, value] of Object.entries(incoming)) {
    const name = rawName.toLowerCase();
    if (value === undefined || name.startsWith(':') || name === 'host') continue;
    if (HOP_BY_HOP.has(name) || connectionTokens.has(name)) continue;
    if (name === 'authorization' || name.startsWith('impersonate-')) continue;
    if (names.has(name) || prefixes.some((p) => name.startsWith(p))) continue;
    out[name] = value;
  }
  out['host'] = opts.host;
  out[REMOTE_USER_HEADER] = wire(opts.user.username);
  if (opts.user.groups.length > 0) out[REMOTE_GROUP_HEADER] = opts.user.groups.map(wire);
  for (const [k, values] of Object.entries(opts.user.extra ?? {})) {
    if (values.length > 0) out[`${REMOTE_EXTRA_PREFIX}${escapeExtraKey(k)}`] = values.map(wire);
  }
  return out;
}

/**
 * A header value as its UTF-8 bytes (Node writes header strings byte per character), so a name
 * outside Latin-1 reaches the extension as Go's server would send it. Control characters stay
 * and make the request fail rather than split headers.
 */
function wire(value: string): string {
  return Buffer.from(value, 'utf8').toString('latin1');
}

/**
 * The headers of an extension's answer passed back to the caller: everything but hop-by-hop
 * headers (which HTTP/2 forbids and HTTP/1.1 recomputes). Pure.
 */
export function proxyResponseHeaders(incoming: IncomingHttpHeaders): OutgoingHttpHeaders {
  const connectionTokens = connectionHeaderTokens(incoming['connection']);
  const out: OutgoingHttpHeaders = {};
  for (const [rawName, value] of Object.entries(incoming)) {
    const name = rawName.toLowerCase();
    if (value === undefined || name.startsWith(':') || HOP_BY_HOP.has(name) || connectionTokens.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** Header names a Connection header lists (those are hop-by-hop too). */
function connectionHeaderTokens(value: string | string[] | undefined): Set<string> {
  const joined = Array.isArray(value) ? value.join(',') : (value ?? '');
  return new Set(joined.split(',').map((t) => t.trim().toLowerCase()).filter(Boolean));
}

const PATH_SEGMENT_KEPT: Record<string, string> = { '%24': '$', '%26': '&', '%2B': '+', '%3A': ':', '%3D': '=', '%40': '@' };

/** Go's url.PathEscape of an extra key (upstream's): all but unreserved characters and `$&+:=@` become %XX. */
export function escapeExtraKey(key: string): string {
  return encodeURIComponent(key)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%(24|26|2B|3A|3D|40)/g, (m) => PATH_SEGMENT_KEPT[m]!);
}
