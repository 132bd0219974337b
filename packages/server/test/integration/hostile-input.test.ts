import { connect as http2Connect, constants as h2, type ClientHttp2Session } from 'node:http2';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { useTestServer } from '../support/test-server.js';

/**
 * Black-box hostile input (issue 18): each class of malformed request, sent over raw HTTP/1.1 and
 * HTTP/2 sockets where a client library would refuse to send it, gets a well-formed 4xx (or 505)
 * Status with the right reason; the connection gets an answer and is then either closed or still
 * usable; and etcd's revision is the same before and after, so nothing was written.
 * RBAC is on, so anonymous requests are allowed: a malformed credential must still be a 401.
 */
const ts = useTestServer(['--controllers=-namespace', '--authorization-mode=RBAC']);

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection after answering. */
  closed: boolean;
  /** When the connection stayed open: whether a follow-up request on it was answered. */
  reusable?: boolean;
}

const CRLF = '\r\n';

/** Reads one HTTP/1.1 response from the socket's data so far; undefined while incomplete. */
function parseResponse(buf: Buffer): { status: number; headers: Record<string, string>; body: string; rest: Buffer } | undefined {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = buf.subarray(0, end).toString('latin1').split(CRLF);
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const length = Number(headers['content-length'] ?? NaN);
  const bodyStart = end + 4;
  if (Number.isNaN(length) || buf.length < bodyStart + length) return undefined;
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: buf.subarray(bodyStart, bodyStart + length).toString('utf8'),
    rest: buf.subarray(bodyStart + length),
  };
}

/** Sends raw bytes over TLS (ALPN http/1.1) and reads one answer, then probes the connection. */
function rawHttp1(payload: string | Buffer): Promise<RawAnswer> {
  const { port, caPem } = ts().server;
  return new Promise((resolve, reject) => {
    let buf: Buffer = Buffer.alloc(0);
    let answer: RawAnswer | undefined;
    const socket: TLSSocket = tlsConnect({ host: '127.0.0.1', port, ca: caPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => {
      socket.write(payload);
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(answer ? 'the connection stayed open but did not answer a second request' : 'no answer within 15 s'));
    }, 15_000);
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const parsed = parseResponse(buf);
      if (!parsed) return;
      if (!answer) {
        answer = { status: parsed.status, headers: parsed.headers, body: parsed.body, closed: false };
        buf = parsed.rest;
        // Still open: the next request on it must be answered.
        if (parsed.headers['connection'] !== 'close') socket.write(`GET /version HTTP/1.1${CRLF}Host: localhost${CRLF}${CRLF}`);
        return;
      }
      answer.reusable = parsed.status > 0;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      if (!answer) {
        const parsed = parseResponse(buf);
        if (!parsed) return reject(new Error(`connection closed without an answer: ${JSON.stringify(buf.toString('latin1').slice(0, 200))}`));
        answer = { status: parsed.status, headers: parsed.headers, body: parsed.body, closed: true };
      } else if (answer.reusable === undefined) {
        answer.closed = true;
      }
      resolve(answer);
    });
  });
}

function statusOf(body: string): { kind?: string; code?: number; reason?: string; message?: string } {
  try {
    return JSON.parse(body) as { kind?: string; code?: number; reason?: string };
  } catch {
    return {};
  }
}

/** The etcd revision, read from etcd itself (a range on an empty key through its JSON gateway). */
async function etcdRevision(): Promise<string> {
  const endpoint = ts().server.embeddedEtcd!.endpoint;
  const res = await fetch(`${endpoint}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: Buffer.from('\0').toString('base64') }) });
  const json = (await res.json()) as { header: { revision: string } };
  return json.header.revision;
}

/**
 * The keys etcd holds that were written after `revision`, but for the replica's own Leases (its
 * endpoint lease is renewed every few seconds whatever the clients send, so the bare revision
 * moves on a slow machine). Read from etcd itself: every key, keys only, newer than the revision.
 */
async function writtenSince(revision: string): Promise<string[]> {
  const endpoint = ts().server.embeddedEtcd!.endpoint;
  const all = Buffer.from('\0').toString('base64');
  const body = { key: all, range_end: all, keys_only: true, min_mod_revision: String(BigInt(revision) + 1n) };
  const res = await fetch(`${endpoint}/v3/kv/range`, { method: 'POST', body: JSON.stringify(body) });
  const json = (await res.json()) as { kvs?: { key: string }[] };
  return (json.kvs ?? []).map((kv) => Buffer.from(kv.key, 'base64').toString()).filter((key) => !key.includes('/leases/'));
}

const auth = (): string => `Authorization: Bearer ${ts().server.adminToken}${CRLF}`;
const NS_CM = '/api/v1/namespaces/default/configmaps';
const victim = (): string => `${NS_CM}/victim`;

const req = (method: string, target: string, opts: { host?: string | null; version?: string; headers?: string; body?: string | Buffer; contentType?: string } = {}): Buffer => {
  const body = opts.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body);
  let head = `${method} ${target} ${opts.version ?? 'HTTP/1.1'}${CRLF}`;
  if (opts.host !== null) head += `Host: ${opts.host ?? 'localhost'}${CRLF}`;
  head += opts.headers ?? auth();
  if (body.length > 0 || opts.contentType) head += `Content-Type: ${opts.contentType ?? 'application/json'}${CRLF}Content-Length: ${body.length}${CRLF}`;
  return Buffer.concat([Buffer.from(head + CRLF, 'latin1'), body]);
};

const laughs = (): string => {
  const lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
  for (let i = 1; i <= 9; i++) lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(', ')}]`);
  return lines.join('\n');
};

const yamlCm = (name: string, extra: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${extra}`;
const badUtf8 = (prefix: string, suffix: string): Buffer => Buffer.concat([Buffer.from(prefix), Buffer.from([0xff, 0xfe]), Buffer.from(suffix)]);
const smp = (patch: unknown): Buffer => req('PATCH', victim(), { body: JSON.stringify(patch), contentType: 'application/strategic-merge-patch+json' });

/** [name, raw request, status, reason]. */
const HTTP1_CASES: Array<[string, () => Buffer | string, number, string]> = [
  // 1. YAML resource exhaustion
  ['YAML billion laughs on create', () => req('POST', NS_CM, { body: yamlCm('bomb', `x:\n  ${laughs().replace(/\n/g, '\n  ')}\n`), contentType: 'application/yaml' }), 400, 'BadRequest'],
  ['YAML billion laughs in an apply', () => req('PATCH', `${NS_CM}/bomb?fieldManager=t`, { body: yamlCm('bomb', `data:\n  ${laughs().replace(/\n/g, '\n  ')}\n`), contentType: 'application/apply-patch+yaml' }), 400, 'BadRequest'],
  ['YAML anchor containing itself', () => req('POST', NS_CM, { body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: &m\n  name: rec\n  labels: *m\n', contentType: 'application/yaml' }), 400, 'BadRequest'],
  ['YAML alias to no anchor', () => req('POST', NS_CM, { body: yamlCm('noanchor', 'data: *nope\n'), contentType: 'application/yaml' }), 400, 'BadRequest'],
  // 2. strategic-merge-patch directive errors
  ['unknown $patch value', () => smp({ data: { $patch: 'bogus' } }), 400, 'BadRequest'],
  ['$patch of the wrong type', () => smp({ metadata: { $patch: 5 } }), 400, 'BadRequest'],
  ['$setElementOrder not a list', () => smp({ metadata: { '$setElementOrder/finalizers': 'x' } }), 400, 'BadRequest'],
  ['$deleteFromPrimitiveList not a list', () => smp({ metadata: { '$deleteFromPrimitiveList/finalizers': 'x' } }), 400, 'BadRequest'],
  ['$retainKeys not a list', () => smp({ data: { $retainKeys: 'x' } }), 400, 'BadRequest'],
  // 3. request line and headers
  ['asterisk-form GET', () => req('GET', '*'), 400, 'BadRequest'],
  ['CONNECT', () => req('CONNECT', 'localhost:443'), 405, 'MethodNotAllowed'],
  ['an unknown method token', () => req('FOO', '/api'), 405, 'MethodNotAllowed'],
  ['PROPFIND', () => req('PROPFIND', '/api'), 405, 'MethodNotAllowed'],
  ['a Host with invalid characters', () => req('GET', '/api', { host: 'a b<c>' }), 400, 'BadRequest'],
  ['no Host on HTTP/1.1', () => req('GET', '/api', { host: null }), 400, 'BadRequest'],
  ['two Host headers', () => req('GET', '/api', { headers: `Host: a${CRLF}${auth()}` }), 400, 'BadRequest'],
  ['an HTTP/0.9 request line', () => `GET /api${CRLF}${CRLF}`, 400, 'BadRequest'],
  ['HTTP/2.0 in an HTTP/1 request line', () => req('GET', '/api', { version: 'HTTP/2.0' }), 505, ''],
  ['an unknown version', () => req('GET', '/api', { version: 'HTTP/3.0' }), 505, ''],
  // Go answers 505 only for a well-formed HTTP/<digit>.<digit>; anything else is a malformed request.
  ['a garbage version', () => req('GET', '/api', { version: 'HTTP/x.y' }), 400, 'BadRequest'],
  ['a two-digit major version', () => req('GET', '/api', { version: 'HTTP/10.0' }), 400, 'BadRequest'],
  ['a request line ended by a bare LF', () => `GET /version HTTP/1.1\nHost: localhost\n\n`, 400, 'BadRequest'],
  ['a header line ended by a bare LF', () => `GET /version HTTP/1.1${CRLF}Host: localhost\n${CRLF}`, 400, 'BadRequest'],
  ['malformed Content-Type parameters', () => req('POST', NS_CM, { body: '{"metadata":{"name":"ct"}}', contentType: 'application/json; charset' }), 415, 'UnsupportedMediaType'],
  // 4. oversized bodies (the no-Content-Length form is in its own test)
  ['a 4 MiB JSON body', () => req('POST', NS_CM, { body: JSON.stringify({ metadata: { name: 'big' }, data: { a: 'x'.repeat(4 << 20) } }) }), 413, 'RequestEntityTooLarge'],
  ['a 10 MiB JSON body', () => req('POST', NS_CM, { body: JSON.stringify({ metadata: { name: 'big' }, data: { a: 'x'.repeat(10 << 20) } }) }), 413, 'RequestEntityTooLarge'],
  // Anonymous requests are on: a forbidden one is answered before its body is read.
  ['a 10 MiB body without credentials', () => req('POST', NS_CM, { headers: '', body: JSON.stringify({ metadata: { name: 'big' }, data: { a: 'x'.repeat(10 << 20) } }) }), 403, 'Forbidden'],
  ['a 4 MiB YAML body', () => req('POST', NS_CM, { body: yamlCm('big', `data:\n  a: ${'y'.repeat(4 << 20)}\n`), contentType: 'application/yaml' }), 413, 'RequestEntityTooLarge'],
  // 5. well-formed but wrong bodies
  ['invalid UTF-8 in a JSON body', () => req('POST', NS_CM, { body: badUtf8('{"metadata":{"name":"u8"},"data":{"a":"', '"}}') }), 400, 'BadRequest'],
  ['invalid UTF-8 in a YAML body', () => req('POST', NS_CM, { body: badUtf8('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: u8y\ndata:\n  a: "', '"\n'), contentType: 'application/yaml' }), 400, 'BadRequest'],
  ['invalid UTF-8 in an apply body', () => req('PATCH', `${victim()}?fieldManager=t`, { body: badUtf8('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: victim\ndata:\n  a: ', '\n'), contentType: 'application/apply-patch+yaml' }), 400, 'BadRequest'],
  ['a complex mapping key in an apply', () => req('PATCH', `${victim()}?fieldManager=t`, { body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: victim\ndata:\n  ? [a, b]\n  : c\n', contentType: 'application/apply-patch+yaml' }), 400, 'BadRequest'],
  ['a complex mapping key in a YAML create', () => req('POST', NS_CM, { body: yamlCm('cplx', '? {a: 1}\n: c\n'), contentType: 'application/yaml' }), 400, 'BadRequest'],
  ['metadata of the wrong type in an apply', () => req('PATCH', `${victim()}?fieldManager=t`, { body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: [1]\n', contentType: 'application/apply-patch+yaml' }), 400, 'BadRequest'],
  ['a JSON patch removing metadata', () => req('PATCH', victim(), { body: '[{"op":"remove","path":"/metadata"}]', contentType: 'application/json-patch+json' }), 400, 'BadRequest'],
  ['a JSON patch removing metadata.name', () => req('PATCH', victim(), { body: '[{"op":"remove","path":"/metadata/name"}]', contentType: 'application/json-patch+json' }), 400, 'BadRequest'],
  ['a JSON patch replacing kind', () => req('PATCH', victim(), { body: '[{"op":"replace","path":"/kind","value":"Secret"}]', contentType: 'application/json-patch+json' }), 400, 'BadRequest'],
  ['a JSON patch removing apiVersion', () => req('PATCH', victim(), { body: '[{"op":"remove","path":"/apiVersion"}]', contentType: 'application/json-patch+json' }), 400, 'BadRequest'],
  ['a merge patch nulling kind', () => req('PATCH', victim(), { body: '{"kind":null}', contentType: 'application/merge-patch+json' }), 400, 'BadRequest'],
  ['$patch: delete at the root', () => smp({ $patch: 'delete' }), 400, 'BadRequest'],
  ['$patch: replace at the root', () => smp({ $patch: 'replace' }), 400, 'BadRequest'],
  ['$patch: delete on metadata', () => smp({ metadata: { $patch: 'delete' } }), 400, 'BadRequest'],
  ['$patch: replace on metadata', () => smp({ metadata: { $patch: 'replace' } }), 400, 'BadRequest'],
  // 6. query parameters
  ['limit overflowing int64', () => req('GET', `${NS_CM}?limit=99999999999999999999`), 400, 'BadRequest'],
  ['timeoutSeconds overflowing int64', () => req('GET', `${NS_CM}?watch=1&timeoutSeconds=99999999999999999999`), 400, 'BadRequest'],
  ['gracePeriodSeconds overflowing int64', () => req('DELETE', `${victim()}?gracePeriodSeconds=99999999999999999999`), 400, 'BadRequest'],
  ['limit with a leading space', () => req('GET', `${NS_CM}?limit=%201`), 400, 'BadRequest'],
  ['limit with a trailing space', () => req('GET', `${NS_CM}?limit=1+`), 400, 'BadRequest'],
  ['a resourceVersion beyond uint64 on a delete', () => req('DELETE', `${victim()}?resourceVersion=99999999999999999999`), 400, 'BadRequest'],
  ['a resourceVersion beyond uint64 on a list', () => req('GET', `${NS_CM}?resourceVersion=18446744073709551616`), 400, 'BadRequest'],
  ['a malformed resourceVersion on a delete', () => req('DELETE', `${victim()}?resourceVersion=abc`), 400, 'BadRequest'],
  ['a malformed limit on a get', () => req('GET', `${victim()}?limit=ten`), 400, 'BadRequest'],
  ['an undecodable DeleteOptions body', () => req('DELETE', victim(), { body: '{"gracePeriodSeconds":"x"}' }), 400, 'BadRequest'],
  ['a truncated DeleteOptions body', () => req('DELETE', victim(), { body: '{"a":' }), 400, 'BadRequest'],
  // 7. paths
  ['an encoded ../ in a namespace', () => req('GET', '/api/v1/namespaces/..%2fkube-system/configmaps'), 400, 'BadRequest'],
  ['an encoded slash in a name', () => req('GET', `${NS_CM}/a%2fb`), 400, 'BadRequest'],
  ['dot segments', () => req('GET', '/api/v1/namespaces/default/../../api'), 400, 'BadRequest'],
  ['a leading empty segment', () => req('GET', '//api/v1/namespaces'), 404, 'NotFound'],
  ['an inner empty segment', () => req('GET', '/api/v1//namespaces'), 404, 'NotFound'],
  ['a fragment in the target', () => req('GET', '/api/v1/namespaces#x'), 400, 'BadRequest'],
  // 8. credentials: malformed is 401 even though anonymous requests are on
  ['a bearer header with two spaces', () => req('GET', '/version', { headers: `Authorization: Bearer  ${ts().server.adminToken}${CRLF}` }), 401, 'Unauthorized'],
  ['a bearer header with a tab', () => req('GET', '/version', { headers: `Authorization: Bearer\t${ts().server.adminToken}${CRLF}` }), 401, 'Unauthorized'],
  ['a bearer header without a token', () => req('GET', '/version', { headers: `Authorization: Bearer${CRLF}` }), 401, 'Unauthorized'],
  ['another scheme', () => req('GET', '/version', { headers: `Authorization: Basic YTpi${CRLF}` }), 401, 'Unauthorized'],
  ['a control character in the token', () => req('GET', '/version', { headers: `Authorization: Bearer ${ts().server.adminToken}\u0001${CRLF}` }), 400, 'BadRequest'],
];

describe('hostile input over HTTP/1.1', () => {
  let before = '';
  let victimBefore = '';
  beforeAll(async () => {
    const created = await ts().request('POST', NS_CM, { body: { metadata: { name: 'victim', finalizers: ['example.com/keep'] }, data: { a: 'b' } } });
    expect(created.status).toBe(201);
    victimBefore = (await ts().request('GET', victim())).text;
    before = await etcdRevision();
  });

  test.each(HTTP1_CASES)('%s', async (_name, payload, status, reason) => {
    const answer = await rawHttp1(payload());
    const s = statusOf(answer.body);
    expect({ status: answer.status, kind: s.kind, code: s.code, reason: s.reason ?? '' }).toEqual({ status, kind: 'Status', code: status, reason });
    expect(answer.closed || answer.reusable).toBe(true);
  }, 30_000);

  test('a 4 MiB chunked body without Content-Length is a 413 the client reads', async () => {
    const head = `POST ${NS_CM} HTTP/1.1${CRLF}Host: localhost${CRLF}${auth()}Content-Type: application/json${CRLF}Transfer-Encoding: chunked${CRLF}${CRLF}`;
    const chunk = 'z'.repeat(64 * 1024);
    const chunks = Array.from({ length: 64 }, () => `${chunk.length.toString(16)}${CRLF}${chunk}${CRLF}`).join('');
    const answer = await rawHttp1(Buffer.from(`${head}${chunks}0${CRLF}${CRLF}`));
    expect(answer.status).toBe(413);
    expect(statusOf(answer.body).reason).toBe('RequestEntityTooLarge');
  }, 30_000);

  test('nothing was written: no key but the replica\'s own leases changed, the victim is unchanged', async () => {
    expect(await writtenSince(before)).toEqual([]);
    expect((await ts().request('GET', victim())).text).toBe(victimBefore);
    const list = await ts().request('GET', NS_CM);
    expect(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['victim']);
  });

  test('the replica still serves: readyz and a well-formed create', async () => {
    expect((await ts().request('GET', '/readyz')).status).toBe(200);
    const ok = await ts().request('POST', NS_CM, { body: { metadata: { name: 'after' } } });
    expect(ok.status).toBe(201);
  });
});

describe('hostile input over HTTP/2', () => {
  let session: ClientHttp2Session;
  beforeAll(() => {
    // Node's client counts a body it has not sent yet against its own session memory (10 MB by
    // default) and resets the stream itself beyond it: room for the 10 MiB case.
    session = http2Connect(ts().server.url, { ca: ts().server.caPem, maxSessionMemory: 64 });
    session.on('error', () => undefined);
  });
  afterAll(() => session.close());

  const h2Request = (headers: Record<string, string>, body?: string | Buffer): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const stream = session.request({ authorization: `Bearer ${ts().server.adminToken}`, ...headers }, { endStream: body === undefined });
      let status = 0;
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => {
        stream.close();
        reject(new Error('no answer within 15 s'));
      }, 15_000);
      stream.on('response', (h) => (status = Number(h[h2.HTTP2_HEADER_STATUS])));
      stream.on('data', (d: Buffer) => chunks.push(d));
      stream.on('end', () => {
        clearTimeout(timer);
        resolve({ status, body: Buffer.concat(chunks).toString('utf8') });
      });
      stream.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      if (body !== undefined) stream.end(body);
    });

  test.each<[string, Record<string, string>, string | Buffer | undefined, number, string]>([
    ['an unknown method', { ':method': 'PROPFIND', ':path': '/api' }, undefined, 405, 'MethodNotAllowed'],
    ['CONNECT', { ':method': 'CONNECT', ':authority': 'localhost:443' }, undefined, 405, 'MethodNotAllowed'],
    ['an encoded ../ in a namespace', { ':method': 'GET', ':path': '/api/v1/namespaces/..%2fkube-system/configmaps' }, undefined, 400, 'BadRequest'],
    ['an empty segment', { ':method': 'GET', ':path': '//api/v1/namespaces' }, undefined, 404, 'NotFound'],
    ['limit overflowing int64', { ':method': 'GET', ':path': `${NS_CM}?limit=99999999999999999999` }, undefined, 400, 'BadRequest'],
    ['an unknown $patch value', { ':method': 'PATCH', ':path': victim(), 'content-type': 'application/strategic-merge-patch+json' }, '{"data":{"$patch":"bogus"}}', 400, 'BadRequest'],
    ['invalid UTF-8', { ':method': 'POST', ':path': NS_CM, 'content-type': 'application/json' }, badUtf8('{"metadata":{"name":"h2u8"},"data":{"a":"', '"}}'), 400, 'BadRequest'],
    ['a YAML alias bomb', { ':method': 'POST', ':path': NS_CM, 'content-type': 'application/yaml' }, yamlCm('h2bomb', `x:\n  ${laughs().replace(/\n/g, '\n  ')}\n`), 400, 'BadRequest'],
    ['a 4 MiB body', { ':method': 'POST', ':path': NS_CM, 'content-type': 'application/json' }, JSON.stringify({ metadata: { name: 'h2big' }, data: { a: 'x'.repeat(4 << 20) } }), 413, 'RequestEntityTooLarge'],
    ['a bearer header with two spaces', { ':method': 'GET', ':path': '/version', authorization: 'Bearer  x' }, undefined, 401, 'Unauthorized'],
    ['a 10 MiB body', { ':method': 'POST', ':path': NS_CM, 'content-type': 'application/json' }, JSON.stringify({ metadata: { name: 'h2big10' }, data: { a: 'x'.repeat(10 << 20) } }), 413, 'RequestEntityTooLarge'],
    ['a 10 MiB body with a bad credential', { ':method': 'POST', ':path': NS_CM, 'content-type': 'application/json', authorization: 'Bearer nope' }, JSON.stringify({ metadata: { name: 'h2big10' }, data: { a: 'x'.repeat(10 << 20) } }), 401, 'Unauthorized'],
    ['limit with a leading space', { ':method': 'GET', ':path': `${NS_CM}?limit=%201` }, undefined, 400, 'BadRequest'],
    ['a complex mapping key in an apply', { ':method': 'PATCH', ':path': `${victim()}?fieldManager=t`, 'content-type': 'application/apply-patch+yaml' }, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: victim\ndata:\n  ? [a, b]\n  : c\n', 400, 'BadRequest'],
  ])('%s', async (_name, headers, body, status, reason) => {
    const before = await etcdRevision();
    const answer = await h2Request(headers, body);
    expect({ status: answer.status, reason: statusOf(answer.body).reason }).toEqual({ status, reason });
    expect(await writtenSince(before)).toEqual([]);
  }, 30_000);

  test('a malformed :authority is refused at the HTTP/2 layer (stream reset), the session lives on', async () => {
    await expect(h2Request({ ':method': 'GET', ':path': '/api', ':authority': 'a<b>' })).rejects.toThrow(/NGHTTP2_PROTOCOL_ERROR/);
    expect((await h2Request({ ':method': 'GET', ':path': '/version' })).status).toBe(200);
  });

  test('the session survives all of it', async () => {
    expect((await h2Request({ ':method': 'GET', ':path': '/version' })).status).toBe(200);
  });
});
