import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { addToOpenSlot, balanceConnections, closeConnectionSlot, createConnectionCounts, leastLoadedSlot, takeFromSlot, type BalancedServer } from './connection-balance.js';
import { loadDup } from './replica-threads.js';

describe('leastLoadedSlot', () => {
  const counts = (...n: number[]) => Int32Array.from(n);
  test.each([
    ['equal loads: keep', [3, 3], 0, 0],
    ['one more than the other: the other', [4, 3], 0, 1],
    ['the least loaded of several', [9, 4, 2, 7], 0, 2],
    ['closed slots (-1) never take one', [5, -1, -1], 0, 0],
    ['a lighter own slot keeps it', [1, 8], 0, 0],
  ])('%s', (_name, loads, own, expected) => {
    expect(leastLoadedSlot(counts(...loads), own)).toBe(expected);
  });
});

describe('slot loads', () => {
  test('a closed slot is neither reopened by an add nor pushed below -1 by a take', () => {
    const counts = Int32Array.from([-1, 2, 0]);
    expect(addToOpenSlot(counts, 0)).toBe(false);
    takeFromSlot(counts, 0);
    expect(counts[0]).toBe(-1);
    expect(addToOpenSlot(counts, 1)).toBe(true);
    expect(counts[1]).toBe(3);
    takeFromSlot(counts, 2);
    expect(counts[2]).toBe(0);
  });
});

// Two "threads" in one: two servers each balancing with its own slot of shared counts, the first
// one's hand-overs adopted by the second, as the primary relays them between worker threads.
describe('balanceConnections', () => {
  const dup = loadDup();
  const servers: Server[] = [];
  const clients: Socket[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.destroy();
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  });

  /** A server answering each line with `<name>:<line>`, balanced in `slot`. */
  function echoServer(name: string, slot: number, counts: SharedArrayBuffer, handOff: (fd: number, to: number) => void) {
    const server = createServer((socket) => socket.on('data', (d) => socket.write(`${name}:${d.toString()}`)));
    servers.push(server);
    const balanced = balanceConnections(server, { counts, slot, dup: dup!, handOff });
    return { server, balanced };
  }

  async function ask(port: number, line: string): Promise<string> {
    const socket = createConnection({ port, host: '127.0.0.1' });
    clients.push(socket);
    await once(socket, 'connect');
    socket.write(line);
    const [answer] = (await once(socket, 'data')) as [Buffer];
    return answer.toString();
  }

  test('a burst of connections to one thread is spread evenly, and every connection is served', async () => {
    expect(dup).toBeDefined();
    const counts = createConnectionCounts(2);
    let second: BalancedServer | undefined;
    const first = echoServer('first', 0, counts, (fd, to) => {
      expect(to).toBe(1);
      second!.adopt(fd);
    });
    second = echoServer('second', 1, counts, () => {
      throw new Error('the second server accepts nothing itself here');
    }).balanced;
    first.balanced.open();
    second.open();
    first.server.listen(0, '127.0.0.1');
    await once(first.server, 'listening');
    const port = (first.server.address() as { port: number }).port;

    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => ask(port, `hello-${i}`)));
    // Every byte sent reached a server, over connections that all stayed open.
    expect(answers.map((a) => a.split(':')[1]).sort()).toEqual(Array.from({ length: 6 }, (_, i) => `hello-${i}`).sort());
    const byServer = answers.map((a) => a.split(':')[0]);
    expect(byServer.filter((s) => s === 'first')).toHaveLength(3);
    expect(byServer.filter((s) => s === 'second')).toHaveLength(3);
    expect(Array.from(new Int32Array(counts))).toEqual([3, 3]);

    // Closed connections leave the loads.
    for (const c of clients.splice(0)) c.destroy();
    const deadline = Date.now() + 5_000;
    while (Array.from(new Int32Array(counts)).some((n) => n !== 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(Array.from(new Int32Array(counts))).toEqual([0, 0]);
  });

  test('a thread whose slot is closed gets nothing handed over, and refuses what still comes', async () => {
    const counts = createConnectionCounts(2);
    const handed: number[] = [];
    const first = echoServer('first', 0, counts, (fd) => handed.push(fd));
    const second = echoServer('second', 1, counts, () => {}).balanced;
    first.balanced.open();
    second.open();
    second.close();
    closeConnectionSlot(counts, 1);
    first.server.listen(0, '127.0.0.1');
    await once(first.server, 'listening');
    const port = (first.server.address() as { port: number }).port;
    const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => ask(port, `x${i}`)));
    expect(answers.every((a) => a.startsWith('first:'))).toBe(true);
    expect(handed).toEqual([]);

    // A descriptor handed to a closed thread is closed there (the connection ends), not leaked.
    const socket = createConnection({ port, host: '127.0.0.1' });
    clients.push(socket);
    const [accepted] = (await once(first.server, 'connection')) as [Socket];
    const copy = dup!((accepted as unknown as { _handle: { fd: number } })._handle.fd);
    accepted.destroy();
    second.adopt(copy);
    await once(socket, 'close');
  });
});
