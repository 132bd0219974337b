import { connect as connectHttp2, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import { connect as connectTls } from 'node:tls';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** An HTTP/2 session to the test server, with its SETTINGS received. */
async function session(ts: TestServer): Promise<ClientHttp2Session> {
  const s = connectHttp2(ts.server.url, { ca: ts.server.caPem });
  await new Promise<void>((resolve, reject) => {
    s.once('remoteSettings', () => resolve());
    s.once('error', reject);
  });
  return s;
}

interface H2Reply {
  headers: IncomingHttpHeaders;
  json: { kind?: string; reason?: string; code?: number; items?: unknown[]; message?: string };
}

function h2Request(s: ClientHttp2Session, ts: TestServer, method: string, path: string, body?: string): Promise<H2Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ':method': method, ':path': path, authorization: `Bearer ${ts.server.adminToken}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const req = s.request(headers, { endStream: body === undefined });
    let responseHeaders: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    req.on('response', (h) => (responseHeaders = h));
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve({ headers: responseHeaders, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    req.on('error', reject);
    if (body !== undefined) req.end(body);
  });
}

/** A watch over an HTTP/2 stream; `next()` resolves with the next event line. */
function h2Watch(s: ClientHttp2Session, ts: TestServer, path: string) {
  const stream: ClientHttp2Stream = s.request({ ':path': path, authorization: `Bearer ${ts.server.adminToken}` }, { endStream: true });
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  let buffered = '';
  let status = 0;
  const headersSeen = new Promise<void>((resolve) =>
    stream.once('response', (h) => {
      status = Number(h[':status']);
      resolve();
    }),
  );
  const ended = new Promise<void>((resolve) => stream.once('close', () => resolve()));
  stream.on('data', (c: Buffer) => {
    buffered += c.toString('utf8');
    for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  stream.on('error', () => {});
  return {
    headersSeen,
    ended,
    status: () => status,
    next(timeoutMs = 10_000): Promise<{ type: string; object: { metadata: { name: string } } }> {
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(JSON.parse(line));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no watch event in time')), timeoutMs);
        waiters.push((l) => {
          clearTimeout(timer);
          resolve(JSON.parse(l));
        });
      });
    },
  };
}

/** The protocol the server picks by ALPN when a client offers h2 and http/1.1. */
function negotiated(ts: TestServer): Promise<string | false> {
  const url = new URL(ts.server.url);
  return new Promise((resolve, reject) => {
    const socket = connectTls({ host: url.hostname, port: Number(url.port), ca: ts.server.caPem, ALPNProtocols: ['h2', 'http/1.1'] }, () => {
      const protocol = socket.alpnProtocol ?? false;
      socket.destroy();
      resolve(protocol);
    });
    socket.once('error', reject);
  });
}

describe('HTTP/2 serving (upstream serves h2 and HTTP/1.1 on the secure port)', () => {
  let ts: TestServer;
  let s: ClientHttp2Session;
  beforeAll(async () => {
    ts = await startTestServer(['--controllers=-namespace']);
    s = await session(ts);
  }, 60_000);
  afterAll(async () => {
    s?.destroy();
    await ts?.stop();
  });

  test('a client offering h2 gets h2; the default stream limit is 250', async () => {
    expect(await negotiated(ts)).toBe('h2');
    expect(s.remoteSettings.maxConcurrentStreams).toBe(250);
  });

  test('requests over h2 are served like HTTP/1.1 ones, errors included', async () => {
    const list = await h2Request(s, ts, 'GET', '/api/v1/namespaces');
    expect(list.headers[':status']).toBe(200);
    expect(list.json.kind).toBe('NamespaceList');
    expect(list.headers['content-type']).toMatch(/^application\/json/);

    const created = await h2Request(s, ts, 'POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 'over-h2' }, data: { a: '1' } }));
    expect(created.headers[':status']).toBe(201);

    const bad = await h2Request(s, ts, 'POST', '/api/v1/namespaces/default/configmaps', '{not json');
    expect(bad.headers[':status']).toBe(400);
    expect(bad.json).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });

    const missing = await h2Request(s, ts, 'GET', '/api/v1/namespaces/default/configmaps/absent');
    expect(missing.headers[':status']).toBe(404);
    expect(missing.json).toMatchObject({ kind: 'Status', reason: 'NotFound' });

    const anonymous = await new Promise<number>((resolve, reject) => {
      const req = s.request({ ':path': '/api/v1/namespaces', authorization: 'Bearer wrong-token' }, { endStream: true });
      req.on('response', (h) => resolve(Number(h[':status'])));
      req.on('error', reject);
      req.resume();
    });
    expect(anonymous).toBe(401);
  });

  test('watches share one connection: each stream gets every event of its selection', async () => {
    const list = await h2Request(s, ts, 'GET', '/api/v1/namespaces/default/configmaps');
    const rv = (list.json as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
    const all = h2Watch(s, ts, `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`);
    const one = h2Watch(s, ts, `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}&fieldSelector=metadata.name%3Dw-b`);
    await Promise.all([all.headersSeen, one.headersSeen]);
    expect(all.status()).toBe(200);
    expect(one.status()).toBe(200);
    for (const name of ['w-a', 'w-b', 'w-c']) {
      expect((await h2Request(s, ts, 'POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name } }))).headers[':status']).toBe(201);
    }
    const seen = [await all.next(), await all.next(), await all.next()].map((e) => `${e.type} ${e.object.metadata.name}`);
    expect(seen).toEqual(['ADDED w-a', 'ADDED w-b', 'ADDED w-c']);
    const selected = await one.next();
    expect(`${selected.type} ${selected.object.metadata.name}`).toBe('ADDED w-b');
  });

  test('streams of two connections opened in turn each get every event, in order', async () => {
    const other = await session(ts);
    try {
      const list = await h2Request(s, ts, 'GET', '/api/v1/namespaces/default/configmaps');
      const rv = (list.json as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
      const path = `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}&labelSelector=fan%3Dout`;
      // Opened alternately, so that a round holds the streams of both connections interleaved.
      const watches = [s, other, s, other, s, other].map((c) => h2Watch(c, ts, path));
      await Promise.all(watches.map((w) => w.headersSeen));
      const names = ['g-1', 'g-2', 'g-3'];
      for (const name of names) {
        const body = JSON.stringify({ metadata: { name, labels: { fan: 'out' } } });
        expect((await h2Request(s, ts, 'POST', '/api/v1/namespaces/default/configmaps', body)).headers[':status']).toBe(201);
      }
      for (const w of watches) {
        const seen = [await w.next(), await w.next(), await w.next()].map((e) => `${e.type} ${e.object.metadata.name}`);
        expect(seen).toEqual(names.map((n) => `ADDED ${n}`));
      }
    } finally {
      other.destroy();
    }
  });

  test('a stream whose reader stops reading waits for drain, then gets every event in order', async () => {
    const list = await h2Request(s, ts, 'GET', '/api/v1/namespaces/default/configmaps');
    const rv = (list.json as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
    const stream = s.request(
      { ':path': `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}&labelSelector=size%3Dbig`, authorization: `Bearer ${ts.server.adminToken}` },
      { endStream: true },
    );
    stream.on('error', () => {});
    await new Promise<void>((resolve) => stream.once('response', () => resolve()));
    stream.pause();
    // Each event (~48 KiB) is over the stream's write buffer (16 KiB), and together they are far
    // over the client's flow-control window: the server's writes block, again and again.
    const names = Array.from({ length: 24 }, (_, i) => `big-${i}`);
    const payload = 'x'.repeat(48 * 1024);
    for (const name of names) {
      const body = JSON.stringify({ metadata: { name, labels: { size: 'big' } }, data: { payload } });
      expect((await h2Request(s, ts, 'POST', '/api/v1/namespaces/default/configmaps', body)).headers[':status']).toBe(201);
    }
    await new Promise((r) => setTimeout(r, 300));
    const seen: string[] = [];
    let buffered = '';
    const all = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${seen.length} events in time`)), 20_000);
      stream.on('data', (c: Buffer) => {
        buffered += c.toString('utf8');
        for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
          const e = JSON.parse(buffered.slice(0, nl)) as { type: string; object: { metadata: { name: string } } };
          buffered = buffered.slice(nl + 1);
          seen.push(`${e.type} ${e.object.metadata.name}`);
        }
        if (seen.length >= names.length) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    stream.resume();
    await all;
    stream.close();
    expect(seen).toEqual(names.map((n) => `ADDED ${n}`));
  }, 60_000);
});

describe('HTTP/2 flags and shutdown', () => {
  test('--disable-http2-serving: only HTTP/1.1 is offered', async () => {
    const ts = await startTestServer(['--controllers=-namespace', '--disable-http2-serving']);
    try {
      expect(await negotiated(ts)).toBe('http/1.1');
      expect((await ts.request('GET', '/api/v1/namespaces')).status).toBe(200);
    } finally {
      await ts.stop();
    }
  }, 60_000);

  test('--http2-max-streams-per-connection is the SETTINGS value; stop ends open h2 watches', async () => {
    const ts = await startTestServer(['--controllers=-namespace', '--http2-max-streams-per-connection=3']);
    let s: ClientHttp2Session | undefined;
    try {
      s = await session(ts);
      expect(s.remoteSettings.maxConcurrentStreams).toBe(3);
      const watch = h2Watch(s, ts, '/api/v1/namespaces/default/configmaps?watch=true');
      await watch.headersSeen;
      expect(watch.status()).toBe(200);
      const goaway = new Promise<void>((resolve) => s!.once('goaway', () => resolve()));
      const started = Date.now();
      await ts.stop();
      await goaway;
      await watch.ended;
      // The watch is given the 2 s grace and then cut, not waited for until its timeout.
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      s?.destroy();
    }
  }, 60_000);
});
