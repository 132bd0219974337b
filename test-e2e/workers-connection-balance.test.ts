import { once } from 'node:events';
import { connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { KubeconfigClient } from './support/http-client.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { logLines, until } from './support/worker-replica.js';

// Worker threads accept on one shared socket; a thread that accepts while it carries more load
// (connections plus open HTTP/2 streams) than the other hands the connection over
// (connection-balance.ts). Clients that each open an HTTP/2 connection with many watches, one
// client after the other as a fan-out's informers start, end up split evenly between the threads,
// and every watch on a handed-over connection is served.
const SESSIONS = 6;
const WATCHES = 10;

describe('--workers 2 (threads): connections are spread by load', () => {
  let server: ServerProcess;
  let client: KubeconfigClient;
  const sessions: ClientHttp2Session[] = [];

  beforeAll(async () => {
    // One controller only: the controllers' own watches are load too, and would offset the split.
    server = await startServerProcess(['--workers', '2', '--worker-isolation', 'thread', '--log-level', 'info', '--controllers=csrcleaner']);
    client = new KubeconfigClient(server.kubeconfig, 4);
  }, 60_000);
  afterAll(async () => {
    for (const s of sessions) s.destroy();
    await server?.stop();
  }, 60_000);

  /** Opens a watch of ConfigMap `name` on `session`; resolves once its 200 came, with the stream's text so far. */
  async function watch(session: ClientHttp2Session, name: string): Promise<{ stream: ClientHttp2Stream; text: () => string }> {
    const stream = session.request({
      ':path': `/api/v1/namespaces/default/configmaps?watch=1&fieldSelector=metadata.name%3D${name}`,
      authorization: `Bearer ${client.token}`,
      accept: 'application/json',
    });
    let text = '';
    stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
    const [headers] = (await once(stream, 'response')) as [Record<string, string | number>];
    expect(headers[':status']).toBe(200);
    return { stream, text: () => text };
  }

  test('six clients of ten watches each are split three and three, and all their watches get their events', async () => {
    const watches: { session: number; text: () => string }[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const session = connect(client.server, { ca: client.ca });
      session.on('error', () => {});
      sessions.push(session);
      await once(session, 'connect');
      for (let w = 0; w < WATCHES; w++) watches.push({ session: i, ...(await watch(session, `balance-${i}`)) });
      // A request on the same connection says which thread serves it (the request log's worker).
      const probe = session.request({ ':path': `/api/v1/namespaces/default/configmaps/probe-${i}`, authorization: `Bearer ${client.token}` });
      probe.resume();
      const [headers] = (await once(probe, 'response')) as [Record<string, string | number>];
      expect(headers[':status']).toBe(404);
    }

    for (let i = 0; i < SESSIONS; i++) {
      const created = await client.call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `balance-${i}` } });
      expect(created.status).toBe(201);
    }
    await until('every watch to get its ADDED event', () => watches.every((w) => w.text().includes(`"name":"balance-${w.session}"`)), 20_000);
    for (const w of watches) expect(w.text()).toContain('"type":"ADDED"');

    const probes = () => logLines(server).filter((l) => l.msg === 'request' && /\/configmaps\/probe-\d+$/.test(l.path ?? ''));
    await until('the probes to be logged', () => probes().length >= SESSIONS);
    const workerOf = new Map(probes().map((l) => [Number(/probe-(\d+)$/.exec(l.path!)![1]), l.worker]));
    const perWorker = [1, 2].map((id) => [...workerOf.values()].filter((w) => w === id).length);
    expect(perWorker).toEqual([SESSIONS / 2, SESSIONS / 2]);
  }, 90_000);
});
