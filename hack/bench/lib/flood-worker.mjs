// A worker thread of the noisy-neighbour load generator: the flooding client. Its lists (3,000
// ConfigMaps, 3 MB each) arrive as thousands of TLS records a second; read in the thread that also
// times the quiet GETs, they would delay the reading of the quiet answers, so the measurement
// would include the load generator's own queue. A flooding client is another process in any case.
//
// Protocol with the main thread: workerData {host, port, ca, token, path, connections}; receives
// {type:'stop'}; posts {type:'result', statuses: [[status, count], ...]} once its loops ended.
import { parentPort, workerData } from 'node:worker_threads';
import { HttpClient } from './http-client.mjs';

const { host, port, ca, token, path, connections } = workerData;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const flood = new HttpClient({ host, port, ca, token, maxSockets: connections });
const statuses = new Map();
let flooding = true;
parentPort.on('message', (m) => {
  if (m?.type === 'stop') flooding = false;
});
await Promise.all(
  Array.from({ length: connections }, async () => {
    while (flooding) {
      const res = await flood.request('GET', path);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      // The server's Retry-After for a 429 is 1 s (this client does not parse headers).
      if (res.status === 429) await sleep(1000);
    }
  }),
);
flood.close();
parentPort.postMessage({ type: 'result', statuses: [...statuses] });
