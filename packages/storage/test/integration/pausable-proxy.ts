import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback in front of a real etcd whose answers can be held back: while paused,
 * bytes from etcd to the client are kept (and counted) and delivered in order on resume. Lets a
 * test fix the order of "etcd answered" and "the client heard the answer" without touching etcd.
 */
export interface PausableProxy {
  /** `http://127.0.0.1:<port>`: an etcd endpoint for clients. */
  endpoint: string;
  pause(): void;
  resume(): void;
  /** Bytes from etcd held back since the last pause. */
  readonly heldBytes: number;
  close(): Promise<void>;
}

export async function pausableProxy(upstream: string): Promise<PausableProxy> {
  const target = new URL(upstream);
  const sockets = new Set<Socket>();
  let paused = false;
  let held: Array<{ to: Socket; chunk: Buffer }> = [];
  let heldBytes = 0;
  const server: Server = createServer((client) => {
    const up = connect(Number(target.port), target.hostname);
    sockets.add(client).add(up);
    client.on('data', (chunk: Buffer) => up.write(chunk));
    up.on('data', (chunk: Buffer) => {
      if (!paused) {
        client.write(chunk);
        return;
      }
      held.push({ to: client, chunk });
      heldBytes += chunk.length;
    });
    const end = (): void => {
      client.destroy();
      up.destroy();
      sockets.delete(client);
      sockets.delete(up);
    };
    client.on('close', end).on('error', end);
    up.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('proxy: no port');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    pause() {
      paused = true;
      heldBytes = 0;
    },
    resume() {
      paused = false;
      for (const { to, chunk } of held) if (!to.destroyed) to.write(chunk);
      held = [];
    },
    get heldBytes() {
      return heldBytes;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
