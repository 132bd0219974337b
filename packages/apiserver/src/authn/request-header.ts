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
  private readonly prefixes: string[];
  /**
   * What each TLS connection's certificate says of its client as a proxy (a connection's peer
   * certificate never changes): parsing and verifying it per request cost about a millisecond of
   * CPU, more than the rest of a cached GET. Only the validity window is checked per request.
   */
  private readonly byConnection = new WeakMap<object, ProxyVerdict | null>();

  constructor(private readonly o: RequestHeaderOptions) {
    this.names = [...o.usernameHeaders, ...o.uidHeaders, ...o.groupHeaders].map((n) => n.toLowerCase());
    this.prefixes = o.extraHeaderPrefixes.map((p) => p.toLowerCase());
  }

  authenticate(req: IncomingMessage): UserInfo | undefined {
    // Most requests carry none of the headers: nothing to believe and nothing to strip.
    if (!this.hasProxyHeader(req.rawHeaders)) return undefined;
    const user = userFromHeaders(req.rawHeaders, this.o);
    const trusted = user !== undefined && this.trustedProxy(req);
    this.strip(req);
    return trusted ? user : undefined;
  }

  private isProxyHeader(lowerName: string): boolean {
    return this.names.includes(lowerName) || this.prefixes.some((p) => lowerName.startsWith(p));
  }

  private hasProxyHeader(raw: readonly string[]): boolean {
    for (let i = 0; i < raw.length; i += 2) if (this.isProxyHeader(raw[i]!.toLowerCase())) return true;
    return false;
  }

  private trustedProxy(req: IncomingMessage): boolean {
    const socket = req.socket as TLSSocket;
    if (typeof socket.getPeerCertificate !== 'function' || !socket.authorized) return false;
    let verdict = this.byConnection.get(socket);
    if (verdict === undefined) {
      verdict = this.judge(socket) ?? null;
      this.byConnection.set(socket, verdict);
    }
    if (verdict === null) return false;
    // Checked per request: a long-lived connection outlives the handshake's check.
    const now = (this.o.now ?? Date.now)();
    return now >= verdict.notBefore && now <= verdict.notAfter;
  }

  /** The connection's certificate as a proxy's: issued by a request-header CA, an allowed CN. */
  private judge(socket: TLSSocket): ProxyVerdict | undefined {
    const cert = socket.getPeerCertificate();
    if (!cert?.raw) return undefined;
    const leaf = new X509Certificate(cert.raw);
    const ca = this.o.cas.find((c) => leaf.checkIssued(c) && leaf.verify(c.publicKey));
    if (!ca) return undefined;
    let name: string;
    try {
      name = certificateSubject(new Uint8Array(cert.raw)).commonName; // the one name reader, Go's rules
    } catch {
      return undefined;
    }
    if (this.o.allowedNames.length > 0 && !this.o.allowedNames.includes(name)) return undefined;
    return {
      notBefore: Math.max(Date.parse(leaf.validFrom), Date.parse(ca.validFrom)),
      notAfter: Math.min(Date.parse(leaf.validTo), Date.parse(ca.validTo)),
    };
  }

  private strip(req: IncomingMessage): void {
    for (const name of Object.keys(req.headers)) {
      if (this.isProxyHeader(name)) delete req.headers[name];
    }
    // rawHeaders feeds the impersonation filter and this one; drop the pairs there too.
    const raw = req.rawHeaders;
    const kept: string[] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      if (this.isProxyHeader(raw[i]!.toLowerCase())) continue;
      kept.push(raw[i]!, raw[i + 1]!);
    }
    if (kept.length !== raw.length) raw.splice(0, raw.length, ...kept);
  }
}

/** A trusted proxy connection: the window (epoch ms) in which its certificate and CA both hold. */
interface ProxyVerdict {
  notBefore: number;
  notAfter: number;
}

/** Parses a PEM bundle into certificates (a CA file may hold several). */
export function certificatesOf(pem: string): X509Certificate[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map((m) => new X509Certificate(m[0]));
}
