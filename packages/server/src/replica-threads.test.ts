import { createServer, type Server } from 'node:http';
import { request } from 'node:http';
import { bindSharedPort, loadDup } from './replica-threads.js';

// The listening socket worker threads share (replica-threads.ts): every thread serves on a
// descriptor of its own, so one that stops listening (a crashed thread's handles are closed the
// same way) leaves the others serving; once the reserve is released, the socket closes with the
// last descriptor. The servers here run in one thread: what is tested is the descriptors.

function get(port: number): Promise<string> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false, timeout: 5_000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(`error ${err.code ?? err.message}`));
    req.end();
  });
}

function serveOn(fd: number, name: string): Promise<Server> {
  const server = createServer((_req, res) => res.end(name));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ fd }, () => resolve(server));
  });
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('the shared port of worker threads', () => {
  test('the fd_dup addon is built (make build, with a C compiler)', () => {
    expect(typeof loadDup()).toBe('function');
  });

  test('a thread that stops listening closes its own descriptor only; releasing the reserve closes the port with the last one', async () => {
    const shared = await bindSharedPort('127.0.0.1', 0, loadDup()!);
    expect(shared.port).toBeGreaterThan(0);
    // Bound and listening, but no one accepts yet: the connection waits in the backlog.
    const early = get(shared.port);
    const first = shared.forThread();
    const second = shared.forThread();
    expect(first).not.toBe(second);
    const a = await serveOn(first, 'a');
    const b = await serveOn(second, 'b');
    expect(['a', 'b']).toContain(await early);
    await close(a);
    // The other descriptor, and the socket, are untouched.
    for (let i = 0; i < 5; i++) expect(await get(shared.port)).toBe('b');
    // A replacement gets a fresh descriptor from the reserve.
    const c = await serveOn(shared.forThread(), 'c');
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) seen.add(await get(shared.port));
    expect([...seen].every((s) => s === 'b' || s === 'c')).toBe(true);
    shared.release();
    expect(() => shared.forThread()).toThrow(/released/);
    expect(['b', 'c']).toContain(await get(shared.port));
    await close(b);
    expect(await get(shared.port)).toBe('c');
    await close(c);
    expect(await get(shared.port)).toBe('error ECONNREFUSED');
  });

  test('a port in use is refused as listen refuses it', async () => {
    const shared = await bindSharedPort('127.0.0.1', 0, loadDup()!);
    await expect(bindSharedPort('127.0.0.1', shared.port, loadDup()!)).rejects.toThrow(/EADDRINUSE/);
    shared.release();
  });
});
