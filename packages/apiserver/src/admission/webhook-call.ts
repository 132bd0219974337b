import { Agent, request as httpsRequest, type RequestOptions } from 'node:https';
import type { OutgoingHttpHeaders } from 'node:http';
import { createSecureContext, type SecureContext } from 'node:tls';

/** Credentials the server presents to a webhook host (from --admission-control-config-file). */
export interface WebhookCredentials {
  cert?: Buffer;
  key?: Buffer;
  token?: string;
  username?: string;
  password?: string;
}

/**
 * The credentials for a webhook at `hostPort` (`host:port`, or `host` for a URL without a port;
 * `<service>.<namespace>.svc:<port>` for a Service), undefined when none apply.
 */
export type CredentialsFor = (hostPort: string) => WebhookCredentials | undefined;

/** Where one call goes. */
export interface CallTarget {
  host: string;
  port: number;
  path: string;
  /** TLS server name (SNI and certificate check); undefined for an IP address. */
  serverName: string | undefined;
  ca: Buffer | undefined;
  credentials: WebhookCredentials | undefined;
  /** For error messages: the URL as upstream prints it. */
  href: string;
}

/** A call that failed (unreachable, timed out, answered garbage): subject to the failure policy. */
export class WebhookCallError extends Error {}

const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;

/**
 * Connections to webhooks are kept open and reused, as upstream's transport does: the agent keys
 * its pools by host, port, server name, CA and client certificate, so each client configuration
 * gets its own. Idle connections close after a few seconds (before a webhook server would close
 * them under a request), and a request that finds its reused connection closed is sent again once.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256, timeout: 4000, scheduling: 'lifo' });

/** TLS contexts per call target (its CA and client certificate parsed once, not per connection). */
const contexts = new WeakMap<CallTarget, SecureContext>();

function contextOf(t: CallTarget): SecureContext {
  let ctx = contexts.get(t);
  if (!ctx) {
    const c = t.credentials;
    ctx = createSecureContext({ ...(t.ca ? { ca: t.ca } : {}), ...(c?.cert && c.key ? { cert: c.cert, key: c.key } : {}) });
    contexts.set(t, ctx);
  }
  return ctx;
}

/** Closes the idle connections (tests, shutdown). */
export function closeWebhookConnections(): void {
  agent.destroy();
}

/** POSTs `body` and resolves with the answer's text when its status is 2xx; `timeoutMs` bounds the whole call. */
export function postReview(t: CallTarget, body: Buffer, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  return new Promise<string>((resolve, reject) => {
    let done = false;
    const fail = (reason: string) => {
      if (done) return;
      done = true;
      reject(new WebhookCallError(`failed to call webhook: Post "${t.href}": ${reason}`));
    };
    const headers: OutgoingHttpHeaders = { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': String(body.length) };
    const c = t.credentials;
    if (c?.token) headers['Authorization'] = `Bearer ${c.token}`;
    else if (c?.username !== undefined) headers['Authorization'] = `Basic ${Buffer.from(`${c.username}:${c.password ?? ''}`).toString('base64')}`;
    // ca, cert and key name the agent's pool of connections; the context is what TLS uses (the
    // options reach tls.connect, which takes a secureContext).
    const options: RequestOptions & { secureContext: SecureContext } = {
      host: t.host,
      port: t.port,
      path: t.path,
      method: 'POST',
      servername: t.serverName,
      ca: t.ca,
      ...(c?.cert && c.key ? { cert: c.cert, key: c.key } : {}),
      secureContext: contextOf(t),
      agent,
      headers,
    };
    const send = (retry: boolean) => {
      const req = httpsRequest(
        options,
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES) {
              req.destroy();
              fail('response too large');
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => {
            if (done) return;
            const code = res.statusCode ?? 0;
            if (code < 200 || code >= 300) {
              done = true;
              reject(new WebhookCallError(`the server responded with the status code ${code} but did not return more information`));
              return;
            }
            done = true;
            resolve(Buffer.concat(chunks).toString('utf8'));
          });
          res.on('error', (e) => fail(e.message));
        },
      );
      const timer = setTimeout(() => {
        req.destroy();
        fail('context deadline exceeded');
      }, Math.max(0, deadline - Date.now()));
      req.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        // A kept connection the webhook closed meanwhile: the request never reached it.
        if (retry && req.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE') && !done && Date.now() < deadline) {
          send(false);
          return;
        }
        fail(e.message);
      });
      req.on('close', () => clearTimeout(timer));
      req.end(body);
    };
    send(true);
  });
}
