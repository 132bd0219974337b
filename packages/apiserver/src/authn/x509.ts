import type { IncomingMessage } from 'node:http';
import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { newUnauthorized } from '@cluster/apimachinery';
import type { UserInfo } from './user.js';
import type { Authenticator } from './authenticator.js';

/**
 * X.509 client certificates verified against --client-ca-file: the user name is the subject CN
 * and each O is a group (SPEC 5). A presented certificate that did not verify is 401. The TLS
 * layer may trust more CAs than the client CA (the authenticating proxy's), so the leaf must also
 * be issued by one of `clientCas` (directly: intermediates are not followed).
 */
export class X509Authenticator implements Authenticator {
  constructor(private readonly clientCas: () => readonly X509Certificate[] = () => []) {}

  /**
   * The verdict per TLS connection: a connection's peer certificate never changes (no
   * renegotiation), and reading it builds a fresh object each time, which showed in the request
   * benchmarks. HTTP/2 streams of one connection share its socket object.
   */
  private readonly byConnection = new WeakMap<object, UserInfo | null>();

  authenticate(req: IncomingMessage): UserInfo | undefined {
    const socket = req.socket as TLSSocket;
    if (typeof socket.getPeerCertificate !== 'function') return undefined;
    const known = this.byConnection.get(socket);
    if (known !== undefined) return known ?? undefined;
    const user = this.fromCertificate(socket);
    this.byConnection.set(socket, user ?? null);
    return user;
  }

  private fromCertificate(socket: TLSSocket): UserInfo | undefined {
    const cert = socket.getPeerCertificate();
    if (!cert || Object.keys(cert).length === 0) return undefined;
    if (!socket.authorized) throw newUnauthorized();
    const cas = this.clientCas();
    if (cas.length > 0 && cert.raw) {
      const leaf = new X509Certificate(cert.raw);
      if (!cas.some((ca) => leaf.checkIssued(ca) && leaf.verify(ca.publicKey))) throw newUnauthorized();
    }
    const subject = cert.subject as unknown as Record<string, string | string[] | undefined>;
    const cn = subject.CN;
    const username = Array.isArray(cn) ? cn[0] ?? '' : cn ?? '';
    if (!username) throw newUnauthorized();
    const o = subject.O;
    const groups = o === undefined ? [] : Array.isArray(o) ? o : [o];
    return { username, groups };
  }
}
