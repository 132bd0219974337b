import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as http2Connect, constants as h2, type ClientHttp2Session } from 'node:http2';
import { connect as tlsConnect } from 'node:tls';
import { useTestServer } from '../support/test-server.js';

/**
 * Issue 27, finding 3: the request chain runs in upstream's order, so authentication and
 * authorization come before the in-flight limit and the body. Idle requests that declare a body
 * and never send it get their 401 (or 403) at once, hold no in-flight slot, and the server stays
 * available to everyone else. With the body read and the limit taken before authentication, 2,000
 * such HTTP/2 streams made /readyz and every authenticated request answer 429.
 */
const dir = mkdtempSync(join(tmpdir(), 'chain-order-test-'));
const tokenFile = join(dir, 'tokens.csv');
writeFileSync(tokenFile, ['bob-token,bob,u1', 'carol-token,carol,u2'].join('\n') + '\n');
const READ_LIMIT = 10;
const WRITE_LIMIT = 5;
const ts = useTestServer([
  '--authorization-mode=RBAC',
  '--anonymous-auth=false',
  '--token-auth-file',
  tokenFile,
  `--max-requests-inflight=${READ_LIMIT}`,
  `--max-mutating-requests-inflight=${WRITE_LIMIT}`,
  '--controllers=-namespace',
  // This file is about the max-in-flight filter's place; priority-and-fairness.test.ts checks APF's.
  '--enable-priority-and-fairness=false',
]);

const G = 'rbac.authorization.k8s.io';
const NS_CM = '/api/v1/namespaces/default/configmaps';

interface StreamResult {
  status: number;
  /** ms from the request to its answer's headers. */
  ms: number;
  /** The server closed the stream (RST_STREAM NO_ERROR or a complete exchange) before the client sent its body. */
  closed: boolean;
}

/**
 * Opens `count` streams on `session` that declare a body and never send it, and resolves with
 * what each got by `deadline` (status 0: no answer).
 */
function idleStreams(session: ClientHttp2Session, count: number, headers: (i: number) => Record<string, string>, deadline: number): Promise<StreamResult[]> {
  return Promise.all(
    Array.from(
      { length: count },
      (_, i) =>
        new Promise<StreamResult>((resolve) => {
          const start = Date.now();
          const result: StreamResult = { status: 0, ms: -1, closed: false };
          const stream = session.request({ 'content-type': 'application/json', 'content-length': '1048576', ...headers(i) }, { endStream: false });
          const timer = setTimeout(() => {
            stream.close(h2.NGHTTP2_CANCEL);
            resolve(result);
          }, deadline - Date.now());
          stream.on('response', (h) => {
            result.status = Number(h[h2.HTTP2_HEADER_STATUS]);
            result.ms = Date.now() - start;
          });
          stream.resume();
          stream.on('error', () => undefined);
          stream.on('close', () => {
            clearTimeout(timer);
            result.closed = result.status > 0;
            resolve(result);
          });
        }),
    ),
  );
}

function h2Session(): ClientHttp2Session {
  const session = http2Connect(ts().server.url, { ca: ts().server.caPem });
  session.on('error', () => undefined);
  return session;
}

beforeAll(async () => {
  const role = { apiVersion: `${G}/v1`, kind: 'Role', metadata: { name: 'cm-rw' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create'] }] };
  expect((await ts().request('POST', `/apis/${G}/v1/namespaces/default/roles`, { body: role })).status).toBe(201);
  const binding = {
    apiVersion: `${G}/v1`,
    kind: 'RoleBinding',
    metadata: { name: 'bob-cm-rw' },
    roleRef: { apiGroup: G, kind: 'Role', name: 'cm-rw' },
    subjects: [{ kind: 'User', apiGroup: G, name: 'bob' }],
  };
  expect((await ts().request('POST', `/apis/${G}/v1/namespaces/default/rolebindings`, { body: binding })).status).toBe(201);
  // The RBAC index follows its watch within a moment.
  for (let i = 0; i < 100 && (await ts().request('GET', NS_CM, { token: 'bob-token' })).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
}, 30_000);

describe('the request chain in upstream order (issue 27, finding 3)', () => {
  test('2,000 idle unauthenticated HTTP/2 streams get 401 at once; readyz and authenticated reads and writes are served meanwhile', async () => {
    const SESSIONS = 8;
    const PER_SESSION = 250; // the server's SETTINGS_MAX_CONCURRENT_STREAMS
    const sessions = Array.from({ length: SESSIONS }, h2Session);
    try {
      const deadline = Date.now() + 40_000;
      // Half of them writes, half of them POSTs to a non-resource path (a read-only slot).
      const flood = Promise.all(sessions.map((s) => idleStreams(s, PER_SESSION, (i) => ({ ':method': 'POST', ':path': i % 2 ? NS_CM : '/version' }), deadline)));
      // Meanwhile, more than either limit's worth of ordinary requests.
      const served = await Promise.all([
        ts().request('GET', '/readyz', { token: null }),
        ts().request('GET', '/readyz'),
        ...Array.from({ length: READ_LIMIT }, () => ts().request('GET', NS_CM, { token: 'bob-token' })),
        ...Array.from({ length: WRITE_LIMIT }, (_, i) => ts().request('POST', NS_CM, { token: 'bob-token', body: { metadata: { name: `during-${i}` } } })),
      ]);
      expect(served.map((r) => r.status)).toEqual([200, 200, ...Array(READ_LIMIT).fill(200), ...Array(WRITE_LIMIT).fill(201)]);
      const results = (await flood).flat();
      expect(results).toHaveLength(SESSIONS * PER_SESSION);
      const byStatus: Record<number, number> = {};
      for (const r of results) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
      expect(byStatus).toEqual({ 401: SESSIONS * PER_SESSION });
      // Answered without waiting for the body, and the stream closed by the server.
      expect(results.every((r) => r.closed)).toBe(true);
      expect(Math.max(...results.map((r) => r.ms))).toBeLessThan(30_000);
      // After all of it, the limits are all free again.
      const after = await Promise.all(Array.from({ length: READ_LIMIT }, () => ts().request('GET', NS_CM, { token: 'bob-token' })));
      expect(after.map((r) => r.status)).toEqual(Array(READ_LIMIT).fill(200));
    } finally {
      for (const s of sessions) s.destroy();
    }
  }, 60_000);

  test('a forbidden request that declares a body gets 403 without the body and takes no slot', async () => {
    const session = h2Session();
    try {
      const deadline = Date.now() + 20_000;
      const COUNT = 4 * (READ_LIMIT + WRITE_LIMIT);
      const forbidden = idleStreams(
        session,
        COUNT,
        (i) => ({ ':method': 'POST', ':path': i % 2 ? NS_CM : '/api/v1/namespaces/default/secrets', authorization: 'Bearer carol-token' }),
        deadline,
      );
      const ok = await ts().request('POST', NS_CM, { token: 'bob-token', body: { metadata: { name: 'while-forbidden' } } });
      expect(ok.status).toBe(201);
      const results = await forbidden;
      expect(results.map((r) => r.status)).toEqual(Array(COUNT).fill(403));
      expect(results.every((r) => r.closed)).toBe(true);
      // bob's POST the body of which is held back is authorized, so it takes a write slot and waits for it.
      const held = idleStreams(session, WRITE_LIMIT, () => ({ ':method': 'POST', ':path': NS_CM, authorization: 'Bearer bob-token' }), Date.now() + 3_000);
      await new Promise((r) => setTimeout(r, 500));
      const over = await ts().request('POST', NS_CM, { token: 'bob-token', body: { metadata: { name: 'over-the-limit' } } });
      expect(over.status).toBe(429);
      expect((await held).map((r) => r.status)).toEqual(Array(WRITE_LIMIT).fill(0));
      // Cancelled by the client: the slots come back.
      let status = 0;
      for (let i = 0; i < 50 && status !== 201; i++) {
        status = (await ts().request('POST', NS_CM, { token: 'bob-token', body: { metadata: { name: 'after-held' } } })).status;
        if (status !== 201) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(201);
    } finally {
      session.destroy();
    }
  }, 60_000);

  test('an authorized request whose body never comes is answered 504 at its deadline, its stream closed and its slot given back', async () => {
    const session = h2Session();
    try {
      const started = Date.now();
      const held = await idleStreams(session, WRITE_LIMIT, () => ({ ':method': 'POST', ':path': `${NS_CM}?timeout=1s`, authorization: 'Bearer bob-token' }), Date.now() + 15_000);
      expect(held.map((r) => r.status)).toEqual(Array(WRITE_LIMIT).fill(504));
      expect(held.every((r) => r.closed)).toBe(true);
      expect(Date.now() - started).toBeLessThan(10_000);
      const next = await ts().request('POST', NS_CM, { token: 'bob-token', body: { metadata: { name: 'after-deadline' } } });
      expect(next.status).toBe(201);
    } finally {
      session.destroy();
    }
  }, 30_000);

  test('Expect: 100-continue: the 100 goes out only once the request is authorized', async () => {
    const { port, caPem } = ts().server;
    const send = (token: string, name: string): Promise<string> =>
      new Promise<string>((resolve, reject) => {
        const body = JSON.stringify({ metadata: { name } });
        let buf = '';
        const socket = tlsConnect({ host: '127.0.0.1', port, ca: caPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => {
          socket.write(
            `POST ${NS_CM} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
              `Expect: 100-continue\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
          );
        });
        const timer = setTimeout(() => {
          socket.destroy();
          reject(new Error(`no complete answer within 10 s: ${JSON.stringify(buf)}`));
        }, 10_000);
        socket.on('data', (d: Buffer) => {
          const first = buf === '';
          buf += d.toString('latin1');
          // The body is sent only when the server asks for it.
          if (first && buf.startsWith('HTTP/1.1 100 ')) socket.write(body);
        });
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearTimeout(timer);
          resolve(buf);
        });
      });
    expect(await send('carol-token', 'expect-forbidden')).toMatch(/^HTTP\/1\.1 403 /);
    expect(await send('bob-token', 'expect-allowed')).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
  }, 30_000);

  test('over HTTP/1.1, an unauthenticated request that declares a body gets its 401 at once', async () => {
    const { port, caPem } = ts().server;
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      let buf = '';
      const socket = tlsConnect({ host: '127.0.0.1', port, ca: caPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => {
        socket.write(`POST ${NS_CM} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n`);
      });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no answer within 10 s: ${JSON.stringify(buf)}`));
      }, 10_000);
      socket.on('data', (d: Buffer) => {
        buf += d.toString('latin1');
        if (buf.includes('\r\n\r\n') && buf.includes('"code":401')) {
          clearTimeout(timer);
          socket.destroy();
          resolve(buf);
        }
      });
      socket.on('error', () => undefined);
    });
    expect(answer.startsWith('HTTP/1.1 401 ')).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 20_000);
});
