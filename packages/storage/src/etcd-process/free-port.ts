import { createServer } from 'node:net';

/**
 * Asks the kernel for a currently unused TCP port on `host` (default 127.0.0.1) by listening on
 * port 0 and closing again. The port is only free at the moment of the call; a caller that hands
 * it to another process accepts a small race. Rejects when the host cannot be bound.
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0, host, exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error(`could not determine a free port on ${host}`));
        return;
      }
      const { port } = address;
      server.close((err) => (err ? reject(err) : resolve(port)));
    });
  });
}

/** Returns `count` distinct free ports on `host`; see {@link freePort} for the race it accepts. */
export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const ports = new Set<number>();
  // Distinctness matters (client and peer ports must differ); the kernel rarely repeats at once.
  for (let attempts = 0; ports.size < count && attempts < count * 20; attempts++) {
    ports.add(await freePort(host));
  }
  if (ports.size < count) throw new Error(`could not find ${count} distinct free ports on ${host}`);
  return [...ports];
}
