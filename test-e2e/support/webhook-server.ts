import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/* eslint-disable @typescript-eslint/no-explicit-any */

/** One AdmissionReview a test webhook received. */
export interface ReceivedReview {
  apiVersion: string;
  request: Record<string, any>;
  path: string;
  headers: IncomingHttpHeaders;
}

/** What a handler answers: a response to wrap in an AdmissionReview, raw text, or nothing yet (it answers itself). */
export type ReviewHandler = (review: ReceivedReview, res: ServerResponse) => Record<string, unknown> | string | undefined;

/** An HTTPS admission webhook server with its own CA (made by openssl), for e2e tests. */
export interface WebhookServer {
  port: number;
  /** base64 of the CA certificate, for clientConfig.caBundle. */
  caBundle: string;
  reviews: ReceivedReview[];
  /** TLS connections accepted so far (kept-alive connections are counted once). */
  connections(): number;
  url(path: string): string;
  close(): Promise<void>;
}

/** Answers `response` (with the review's uid) in the AdmissionReview version asked in. */
export function reply(res: ServerResponse, review: ReceivedReview, response: Record<string, unknown>): void {
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request['uid'], ...response } }));
}

/** A base64 JSONPatch, as webhooks answer it. */
export const jsonPatch = (ops: unknown[]): string => Buffer.from(JSON.stringify(ops)).toString('base64');

export async function startWebhookServer(handler: (path: string) => ReviewHandler): Promise<WebhookServer> {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-server-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=webhook-ca', '-days', '2');
  ssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'hook.key', '-out', 'hook.csr', '-subj', '/CN=hook',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:hook.webhooks.svc');
  ssl('x509', '-req', '-in', 'hook.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', '9', '-out', 'hook.crt', '-days', '1', '-copy_extensions', 'copy');
  const caBundle = readFileSync(join(dir, 'ca.crt')).toString('base64');
  const reviews: ReceivedReview[] = [];
  let connections = 0;
  const server: Server = createServer({ key: readFileSync(join(dir, 'hook.key')), cert: readFileSync(join(dir, 'hook.crt')) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { apiVersion: string; request: Record<string, any> };
      const url = new URL(req.url ?? '/', 'https://x');
      const review: ReceivedReview = { apiVersion: body.apiVersion, request: body.request, path: `${url.pathname}${url.search}`, headers: req.headers };
      reviews.push(review);
      const out = handler(url.pathname)(review, res);
      if (typeof out === 'string') res.end(out);
      else if (out) reply(res, review, out);
    });
  });
  server.on('secureConnection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  rmSync(dir, { recursive: true, force: true });
  return {
    port,
    caBundle,
    reviews,
    connections: () => connections,
    url: (path) => `https://127.0.0.1:${port}${path}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
