import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';

// A small extension API server for aggregation tests: HTTPS with a certificate of its own CA (made
// by openssl in `dir`, for `<service>.<namespace>.svc`), trusting only client certificates of the
// front-proxy CA the cluster publishes in extension-apiserver-authentication with an allowed name,
// as an extension built on upstream's library does. It serves one namespaced resource (list, get,
// and a watch held open that `send` adds events to) and records every request it gets.

/** What the extension saw of one request. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The verified client certificate's CN; undefined when none verified against the front-proxy CA. */
  clientCn?: string;
  serverName: string | false | null;
}

export interface ExtensionOptions {
  /** Where the CA and serving certificate are written. */
  dir: string;
  group: string;
  /** `<service>.<namespace>.svc`, the name the aggregator verifies. */
  serverName: string;
  /** The front-proxy CA (PEM) and the client certificate names it may present. */
  frontProxyCa: string;
  allowedNames: readonly string[];
  host: string;
}

export interface ExtensionApiServer {
  /** The extension's CA, base64 (an APIService's caBundle). */
  caBundle: string;
  host: string;
  port: number;
  seen: SeenRequest[];
  /** Sends a MODIFIED event for `name` on every watch still open. */
  send(name: string): void;
  stop(): Promise<void>;
}

/** Makes the extension's CA and serving certificate with openssl in `dir`. */
function makeCertificates(dir: string, serverName: string): void {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ext-ca.key', '-out', 'ext-ca.crt', '-subj', '/CN=extension-test-ca', '-days', '2');
  ssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ext.key', '-out', 'ext.csr', '-subj', '/CN=extension', '-addext', `subjectAltName=DNS:${serverName}`);
  ssl('x509', '-req', '-in', 'ext.csr', '-CA', 'ext-ca.crt', '-CAkey', 'ext-ca.key', '-set_serial', '7', '-out', 'ext.crt', '-days', '1', '-copy_extensions', 'copy');
}

/** Starts the extension on `opts.host` (a free port); resolves once it listens. */
export async function startExtensionApiServer(opts: ExtensionOptions): Promise<ExtensionApiServer> {
  makeCertificates(opts.dir, opts.serverName);
  const gv = `/apis/${opts.group}/v1`;
  const seen: SeenRequest[] = [];
  const watches: ServerResponse[] = [];
  const item = (name: string) => ({ apiVersion: `${opts.group}/v1`, kind: 'Flunder', metadata: { name, namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: {} });
  const server: Server = createServer(
    { key: readFileSync(join(opts.dir, 'ext.key')), cert: readFileSync(join(opts.dir, 'ext.crt')), ca: opts.frontProxyCa, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const socket = req.socket as TLSSocket;
      const cn = socket.authorized ? (socket.getPeerCertificate().subject?.CN as string | undefined) : undefined;
      const url = new URL(req.url ?? '/', 'https://x');
      seen.push({ method: req.method ?? '', path: `${url.pathname}${url.search}`, headers: req.headers, clientCn: cn, serverName: socket.servername });
      const json = (code: number, body: unknown) => res.writeHead(code, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
      if (!cn || !opts.allowedNames.includes(cn) || !req.headers['x-remote-user']) {
        return json(401, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 });
      }
      const p = url.pathname;
      if (p === gv) {
        return json(200, {
          kind: 'APIResourceList',
          apiVersion: 'v1',
          groupVersion: `${opts.group}/v1`,
          resources: [{ name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list', 'watch'], shortNames: ['fl'] }],
        });
      }
      if (p === `${gv}/namespaces/default/flunders` && url.searchParams.get('watch')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write(`${JSON.stringify({ type: 'ADDED', object: item('watched') })}\n`);
        watches.push(res);
        return; // held open until either side leaves
      }
      if (p === `${gv}/namespaces/default/flunders`) {
        return json(200, { kind: 'FlunderList', apiVersion: `${opts.group}/v1`, metadata: { resourceVersion: '1' }, items: [item('first'), item('second')] });
      }
      if (p.startsWith(`${gv}/namespaces/default/flunders/`)) return json(200, item(p.split('/').pop()!));
      json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, opts.host, () => resolve());
  });
  return {
    caBundle: readFileSync(join(opts.dir, 'ext-ca.crt')).toString('base64'),
    host: opts.host,
    port: (server.address() as AddressInfo).port,
    seen,
    send: (name) => {
      for (const w of watches) if (!w.writableEnded) w.write(`${JSON.stringify({ type: 'MODIFIED', object: item(name) })}\n`);
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
