import type { IncomingMessage } from 'node:http';
import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { certificateSubject, newUnauthorized } from '@cluster/apimachinery';
import type { UserInfo } from './user.js';
import type { Authenticator } from './authenticator.js';

/** What one connection's certificate yields: the user and the window in which it holds. */
interface Verdict {
  user: UserInfo;
  /** Epoch ms: the latest notBefore and earliest notAfter of the leaf and its issuing CA. */
  notBefore: number;
  notAfter: number;
}

/**
 * X.509 client certificates issued by a --client-ca-file CA: the user name is the subject CN and
 * each O is a group (SPEC 5), read by the one name reader (x509-name.ts, Go's string rules; a
 * subject it refuses is 401, as Go refuses such a certificate). The TLS layer may trust more CAs
 * than the client CA (the authenticating proxy's), so the leaf must be issued by one of
 * `clientCas` (directly: intermediates are not followed); with no client CA no certificate is a
 * user. The certificate's validity (and its CA's) is checked on every request, not only at the
 * handshake, as upstream verifies the chain per request.
 */
export class X509Authenticator implements Authenticator {
  constructor(
    private readonly clientCas: () => readonly X509Certificate[] = () => [],
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The verdict per TLS connection: a connection's peer certificate never changes (no
   * renegotiation), and reading it builds a fresh object each time, which showed in the request
   * benchmarks. HTTP/2 streams of one connection share its socket object. Only the time window
   * is checked again per request.
   */
  private readonly byConnection = new WeakMap<object, Verdict | null>();

  authenticate(req: IncomingMessage): UserInfo | undefined {
    const socket = req.socket as TLSSocket;
    if (typeof socket.getPeerCertificate !== 'function') return undefined;
    let verdict = this.byConnection.get(socket);
    if (verdict === undefined) {
      verdict = this.fromCertificate(socket) ?? null;
      this.byConnection.set(socket, verdict);
    }
    if (verdict === null) return undefined;
    const now = this.now();
    if (now < verdict.notBefore || now > verdict.notAfter) throw newUnauthorized();
    return verdict.user;
  }

  private fromCertificate(socket: TLSSocket): Verdict | undefined {
    const cert = socket.getPeerCertificate();
    if (!cert || Object.keys(cert).length === 0) return undefined;
    const cas = this.clientCas();
    // Without a client CA, certificates the listener trusts (the proxy's) are nobody's identity.
    if (cas.length === 0) return undefined;
    if (!socket.authorized || !cert.raw) throw newUnauthorized();
    const leaf = new X509Certificate(cert.raw);
    const ca = cas.find((c) => leaf.checkIssued(c) && leaf.verify(c.publicKey));
    if (!ca) throw newUnauthorized();
    let subject;
    try {
      subject = certificateSubject(new Uint8Array(cert.raw));
    } catch {
      throw newUnauthorized();
    }
    if (!subject.commonName) throw newUnauthorized();
    return {
      user: { username: subject.commonName, groups: [...subject.organization] },
      notBefore: Math.max(Date.parse(leaf.validFrom), Date.parse(ca.validFrom)),
      notAfter: Math.min(Date.parse(leaf.validTo), Date.parse(ca.validTo)),
    };
  }
}
