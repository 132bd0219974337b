import { X509Certificate } from 'node:crypto';
import { certificateSubject } from '@cluster/apimachinery';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Authenticator } from './authenticator.js';
import type { UserInfo } from './user.js';

export interface RequestHeaderOptions {
  /** --requestheader-client-ca-file: the CAs a proxy's client certificate must chain to. */
  cas: readonly X509Certificate[];
  /** --requestheader-allowed-names: the proxy certificates' CNs allowed; empty: any. */
  allowedNames: readonly string[];
  usernameHeaders: readonly string[];
  uidHeaders: readonly string[];
  groupHeaders: readonly string[];
  extraHeaderPrefixes: readonly string[];
  /** Clock in ms (Date.now by default): the proxy certificate's validity is checked per request. */
  now?: () => number;
}

/** Header values per lower-cased name, one entry per header line (HTTP/1.1 and HTTP/2 alike). */
function headerLines(raw: readonly string[]): Map<string, string[]> {
  const lines = new Map<string, string[]>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    let v = lines.get(name);
    if (!v) lines.set(name, (v = []));
    v.push(raw[i + 1]!);
  }
  return lines;
}

function decodeKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/**
 * The identity the proxy's headers name (SPEC 5.3), pure: the first non-empty username header,
 * the uid likewise, every group header line, and `<prefix><key>` extras with the key lower-cased
 * and percent-decoded. Undefined when no username header is set.
 */
export function userFromHeaders(raw: readonly string[], o: Omit<RequestHeaderOptions, 'cas' | 'allowedNames'>): UserInfo | undefined {
  const lines = headerLines(raw);
  const first = (names: readonly string[]) => {
    for (const n of names) for (const v of lines.get(n.toLowerCase()) ?? []) if (v !== '') return v;
    return undefined;
  };
  const username = first(o.usernameHeaders);
  if (!username) return undefined;
  const user: UserInfo = { username, groups: o.groupHeaders.flatMap((n) => lines.get(n.toLowerCase()) ?? []) };
  const uid = first(o.uidHeaders);
  if (uid) user.uid = uid;
  const extra: Record<string, string[]> = {};
  for (const [name, values] of lines) {
    for (const prefix of o.extraHeaderPrefixes) {
      const p = prefix.toLowerCase();
      if (name.startsWith(p) && name.length > p.length) (extra[decodeKey(name.slice(p.length))] ??= []).push(...values);
    }
  }
  if (Object.keys(extra).length > 0) user.extra = extra;
  return user;
}

/**
 * The authenticating proxy (SPEC 5.3, upstream's request-header authenticator): the identity
 * headers are believed only from a client whose certificate was issued by a
 * --requestheader-client-ca-file CA and, when --requestheader-allowed-names is set, whose CN is
 * one of them. Whoever sent them, the headers are removed before anything downstream sees them,
 * so this authenticator runs first.
 */
export class RequestHeaderAuthenticator implements Authenticator {
  private readonly names: string[];

  constructor(private readonly o: RequestHeaderOptions) {
    this.names = [...o.usernameHeaders, ...o.uidHeaders, ...o.groupHeaders].map((n) => n.toLowerCase());
  }

  authenticate(req: IncomingMessage): UserInfo | undefined {
    const trusted = this.trustedProxy(req);
    const user = trusted ? userFromHeaders(req.rawHeaders, this.o) : undefined;
    this.strip(req);
    return user;
  }

  private trustedProxy(req: IncomingMessage): boolean {
    const socket = req.socket as TLSSocket;
    if (typeof socket.getPeerCertificate !== 'function' || !socket.authorized) return false;
    const cert = socket.getPeerCertificate();
    if (!cert?.raw) return false;
    const leaf = new X509Certificate(cert.raw);
    const ca = this.o.cas.find((c) => leaf.checkIssued(c) && leaf.verify(c.publicKey));
    // Checked per request: a long-lived connection outlives the handshake's check.
    const now = (this.o.now ?? Date.now)();
    if (!ca || !withinValidity(leaf, now) || !withinValidity(ca, now)) return false;
    let name: string;
    try {
      name = certificateSubject(new Uint8Array(cert.raw)).commonName; // the one name reader, Go's rules
    } catch {
      return false;
    }
    return this.o.allowedNames.length === 0 || this.o.allowedNames.includes(name);
  }

  private strip(req: IncomingMessage): void {
    const prefixes = this.o.extraHeaderPrefixes.map((p) => p.toLowerCase());
    for (const name of Object.keys(req.headers)) {
      if (this.names.includes(name) || prefixes.some((p) => name.startsWith(p))) delete req.headers[name];
    }
    // rawHeaders feeds the impersonation filter and this one; drop the pairs there too.
    const raw = req.rawHeaders;
    const kept: string[] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      if (this.names.includes(name) || prefixes.some((p) => name.startsWith(p))) continue;
      kept.push(raw[i]!, raw[i + 1]!);
    }
    if (kept.length !== raw.length) raw.splice(0, raw.length, ...kept);
  }
}

function withinValidity(cert: X509Certificate, now: number): boolean {
  return now >= Date.parse(cert.validFrom) && now <= Date.parse(cert.validTo);
}

/** Parses a PEM bundle into certificates (a CA file may hold several). */
export function certificatesOf(pem: string): X509Certificate[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map((m) => new X509Certificate(m[0]));
}
