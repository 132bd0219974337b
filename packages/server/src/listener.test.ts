import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as http2Connect, constants as h2, type ClientHttp2Session } from 'node:http2';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { ensureCertificates } from './certs.js';
import { createListener, ResponseEndBatcher, type Listener, type ListenerOptions, type RequestListener } from './listener.js';

/** A response stand-in that records the ends that took effect. */
function fakeResponse(log: string[], name: string) {
  const res = {
    end(...args: unknown[]): unknown {
      log.push(`${name}:${args.join(',')}`);
      return res;
    },
  };
  return res;
}

function batcherWithManualTurns() {
  const turns: Array<() => void> = [];
  const batcher = new ResponseEndBatcher((run) => void turns.push(run));
  const endTurn = () => {
    for (const run of turns.splice(0)) run();
  };
  return { batcher, turns, endTurn };
}

describe('ResponseEndBatcher', () => {
  test('ends called during a turn take effect together at its end, in call order', () => {
    const log: string[] = [];
    const { batcher, turns, endTurn } = batcherWithManualTurns();
    const a = fakeResponse(log, 'a');
    const b = fakeResponse(log, 'b');
    const original = a.end;
    batcher.hold(a);
    batcher.hold(b);
    expect(b.end('body-b')).toBe(b);
    a.end('body-a', 'utf8');
    expect(log).toEqual([]);
    expect(turns).toHaveLength(1);
    endTurn();
    expect(log).toEqual(['b:body-b', 'a:body-a,utf8']);
    // The wrapper is gone once the response has ended.
    expect(a.end).toBe(original);
  });

  test('a response still running at the end of a turn ends with the turn its end comes in', () => {
    const log: string[] = [];
    const { batcher, turns, endTurn } = batcherWithManualTurns();
    const slow = fakeResponse(log, 'slow');
    const fast = fakeResponse(log, 'fast');
    batcher.hold(slow);
    batcher.hold(fast);
    fast.end('x');
    endTurn();
    expect(log).toEqual(['fast:x']);
    expect(turns).toHaveLength(0);
    slow.end('later');
    expect(log).toEqual(['fast:x']);
    expect(turns).toHaveLength(1);
    endTurn();
    expect(log).toEqual(['fast:x', 'slow:later']);
  });

  test('several ends of one response keep their order', () => {
    const log: string[] = [];
    const { batcher, endTurn } = batcherWithManualTurns();
    const r = fakeResponse(log, 'r');
    batcher.hold(r);
    r.end('first');
    r.end('second');
    endTurn();
    expect(log).toEqual(['r:first', 'r:second']);
  });

  test('no turn is scheduled for responses that do not end', () => {
    const { batcher, turns } = batcherWithManualTurns();
    batcher.hold(fakeResponse([], 'idle'));
    expect(turns).toHaveLength(0);
  });
});

describe('createListener: bodies, idle connections and slow headers', () => {
  let dir: string;
  let tls: { cert: string; key: string };
  let ca: string;
  const running: Listener[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'listener-'));
    const certs = await ensureCertificates({ certDir: dir, hosts: ['127.0.0.1', 'localhost'] });
    tls = { cert: certs.servingCertPem, key: certs.servingKeyPem };
    ca = certs.caCertPem;
    // RSA keys are generated: seconds on a loaded 2-core machine.
  }, 60_000);
  afterEach(async () => {
    await Promise.all(running.splice(0).map((l) => l.close(100)));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function start(handler: RequestListener, opts: Partial<ListenerOptions> = {}): Promise<number> {
    const listener = createListener({ tls, http2: true, http2MaxStreams: 250, keepAliveTimeoutMs: 5_000, ...opts }, handler);
    running.push(listener);
    return (await listener.listen(0, '127.0.0.1')).port;
  }

  /** Answers 401 at once, reading nothing. */
  const refuse: RequestListener = (_req, res) => {
    res.writeHead(401, { 'content-type': 'text/plain' });
    res.end('no');
  };

  function h1(port: number): TLSSocket {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca, servername: 'localhost', ALPNProtocols: ['http/1.1'] });
    socket.on('error', () => undefined);
    return socket;
  }

  /** Resolves with what the socket received and when it ended (ms after the call), or after limitMs. */
  function untilEnd(socket: TLSSocket, limitMs: number): Promise<{ data: string; endedAfter: number }> {
    const start = Date.now();
    let data = '';
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ data, endedAfter: -1 }), limitMs);
      socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
      socket.once('end', () => {
        clearTimeout(timer);
        resolve({ data, endedAfter: Date.now() - start });
      });
    });
  }

  function session(port: number): ClientHttp2Session {
    const s = http2Connect(`https://localhost:${port}`, { ca });
    s.on('error', () => undefined);
    return s;
  }

  test('HTTP/2: a request answered before its body came has its stream closed with NO_ERROR at once', async () => {
    const port = await start(refuse);
    const s = session(port);
    try {
      const stream = s.request({ ':method': 'POST', ':path': '/', 'content-length': '100000' }, { endStream: false });
      let status = 0;
      stream.on('response', (h) => (status = Number(h[h2.HTTP2_HEADER_STATUS])));
      stream.resume();
      const rstCode = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the stream stayed open')), 5_000);
        stream.on('close', () => {
          clearTimeout(timer);
          resolve(stream.rstCode ?? -1);
        });
      });
      expect({ status, rstCode }).toEqual({ status: 401, rstCode: h2.NGHTTP2_NO_ERROR });
    } finally {
      s.destroy();
    }
  });

  test('HTTP/1.1: the unwanted body of an answered request is discarded when it comes, and the connection is cut when it does not', async () => {
    const port = await start(refuse, { unreadBodyMs: 300 });
    // The body comes: the connection serves the next request.
    const a = h1(port);
    const aEnd = untilEnd(a, 3_000);
    a.write('POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\n');
    await new Promise((r) => setTimeout(r, 100));
    a.write('hello');
    a.write('GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    const reused = await aEnd;
    expect(reused.data.match(/HTTP\/1\.1 401 /g)).toHaveLength(2);
    a.destroy();
    // It does not: our side closes after unreadBodyMs, the answer read first.
    const b = h1(port);
    const bEnd = untilEnd(b, 5_000);
    b.write('POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000000\r\n\r\n');
    const cut = await bEnd;
    b.destroy();
    expect(cut.data.startsWith('HTTP/1.1 401 ')).toBe(true);
    expect(cut.endedAfter).toBeGreaterThanOrEqual(250);
    expect(cut.endedAfter).toBeLessThan(3_000);
  });

  test('Expect: 100-continue: no 100 before the handler asks for the body', async () => {
    const port = await start((req, res) => {
      if (req.url !== '/read') return refuse(req, res);
      res.writeContinue();
      let n = 0;
      req.on('data', (d: Buffer) => (n += d.length));
      req.on('end', () => res.end(`read ${n}`));
    });
    const send = async (path: string, body: boolean): Promise<string> => {
      const socket = h1(port);
      const end = untilEnd(socket, 3_000);
      socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\nContent-Length: 5\r\nConnection: close\r\n\r\n`);
      if (body) {
        await new Promise((r) => setTimeout(r, 200));
        socket.write('hello');
      }
      const got = await end;
      socket.destroy();
      return got.data;
    };
    expect(await send('/refuse', false)).toMatch(/^HTTP\/1\.1 401 /);
    const read = await send('/read', true);
    expect(read).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    expect(read.endsWith('read 5')).toBe(true);
  });

  test('HTTP/1.1: headers that do not arrive within the headers timeout get a 408', async () => {
    const port = await start(refuse, { headersTimeoutMs: 400 });
    const socket = h1(port);
    const end = untilEnd(socket, 5_000);
    socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n');
    const got = await end;
    socket.destroy();
    expect(got.data.startsWith('HTTP/1.1 408 ')).toBe(true);
    expect(got.endedAfter).toBeGreaterThanOrEqual(350);
    expect(got.endedAfter).toBeLessThan(3_000);
  });

  test('HTTP/2: a connection without an open stream closes after the idle timeout; an open stream keeps it', async () => {
    let release: () => void = () => undefined;
    const port = await start(
      (req, res) => {
        if (req.url === '/hold') release = () => res.end('done');
        else res.end('ok');
      },
      { http2IdleTimeoutMs: 400 },
    );
    const closedWithin = (s: ClientHttp2Session, ms: number): Promise<boolean> =>
      new Promise((resolve) => {
        if (s.closed || s.destroyed) return resolve(true);
        const timer = setTimeout(() => resolve(false), ms);
        s.once('close', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    const idle = session(port);
    const busy = session(port);
    try {
      const held = busy.request({ ':path': '/hold' });
      held.resume();
      const heldDone = new Promise((r) => held.on('close', r));
      expect(await closedWithin(idle, 3_000)).toBe(true);
      expect(busy.closed || busy.destroyed).toBe(false);
      release();
      await heldDone;
      expect(await closedWithin(busy, 3_000)).toBe(true);
    } finally {
      idle.destroy();
      busy.destroy();
    }
  });
});
