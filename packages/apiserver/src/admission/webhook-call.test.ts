import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { closeWebhookConnections, postReview, WebhookCallError, type CallTarget } from './webhook-call.js';

// The webhook HTTPS client against a server in this process that asks for client certificates:
// the configured certificate is presented, the CA is checked, connections are reused.
const dir = mkdtempSync(join(tmpdir(), 'webhook-call-'));
const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
const file = (name: string) => readFileSync(join(dir, name));
let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=ca', '-days', '1');
  ssl('req', '-new', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=hook', '-addext', 'subjectAltName=IP:127.0.0.1');
  ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', '1', '-out', 'server.crt', '-days', '1', '-copy_extensions', 'copy');
  ssl('req', '-new', ...ec, '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=the-apiserver');
  ssl('x509', '-req', '-in', 'client.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', '2', '-out', 'client.crt', '-days', '1');
  ssl('req', '-x509', ...ec, '-keyout', 'other.key', '-out', 'other.crt', '-subj', '/CN=other', '-days', '1');
  server = createServer({ key: file('server.key'), cert: file('server.crt'), ca: file('ca.crt'), requestCert: true, rejectUnauthorized: false }, (req, res) => {
    req.resume();
    req.on('end', () => {
      const socket = req.socket as TLSSocket;
      const cn = socket.authorized ? String(socket.getPeerCertificate().subject?.CN ?? '') : 'anonymous';
      res.end(JSON.stringify({ cn, auth: req.headers.authorization ?? '' }));
    });
  });
  server.on('secureConnection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  closeWebhookConnections();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

const target = (over: Partial<CallTarget> = {}): CallTarget => ({ host: '127.0.0.1', port, path: '/', serverName: undefined, ca: file('ca.crt'), credentials: undefined, href: `https://127.0.0.1:${port}/`, ...over });

test('a configured client certificate is presented; none is presented otherwise', async () => {
  const withCert = JSON.parse(await postReview(target({ credentials: { cert: file('client.crt'), key: file('client.key') } }), Buffer.from('{}'), 5000));
  expect(withCert).toEqual({ cn: 'the-apiserver', auth: '' });
  const without = JSON.parse(await postReview(target(), Buffer.from('{}'), 5000));
  expect(without).toEqual({ cn: 'anonymous', auth: '' });
  const token = JSON.parse(await postReview(target({ credentials: { token: 't0k' } }), Buffer.from('{}'), 5000));
  expect(token.auth).toBe('Bearer t0k');
});

test('a server the CA does not vouch for is a failed call', async () => {
  await expect(postReview(target({ ca: file('other.crt') }), Buffer.from('{}'), 5000)).rejects.toBeInstanceOf(WebhookCallError);
});

test('sequential calls to one target reuse one connection', async () => {
  const t = target();
  await postReview(t, Buffer.from('{}'), 5000);
  const before = connections;
  for (let i = 0; i < 5; i++) await postReview(t, Buffer.from('{}'), 5000);
  expect(connections).toBe(before);
});
