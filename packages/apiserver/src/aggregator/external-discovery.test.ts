import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiService } from '../resources/apiregistration/types.js';
import type { ApiServiceIndex } from './apiservice-index.js';
import type { ExternalGroupVersion } from './discovery-merge.js';
import { ExternalDiscovery } from './external-discovery.js';
import { ProxyTransport } from './proxy-transport.js';

// The extensions' discovery kept by a replica, against an HTTPS extension in this process whose
// resource list answers slowly after the first time: the periodic refresh never takes a group
// version's resources out of discovery while it fetches them again (a client reading discovery
// then would not find the extension's resources), and a failing refresh keeps the last list.
const dir = mkdtempSync(join(tmpdir(), 'external-discovery-'));
const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
const file = (name: string) => readFileSync(join(dir, name));
ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'k.pem', '-out', 'c.pem', '-subj', '/CN=api', '-addext', 'subjectAltName=DNS:api.wardle.svc', '-days', '1');
let server: Server;
let port = 0;
let fetches = 0;
let failing = false;

beforeAll(async () => {
  server = createServer({ key: file('k.pem'), cert: file('c.pem') }, (req, res) => {
    if (req.url !== '/apis/wardle.example.io/v1') return void res.writeHead(404).end('{}');
    const n = ++fetches;
    const answer = () => {
      if (failing) return void res.writeHead(500).end('{}');
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({ kind: 'APIResourceList', groupVersion: 'wardle.example.io/v1', resources: [{ name: 'flunders', namespaced: true, kind: 'Flunder', verbs: ['get'] }] }),
      );
    };
    if (n === 1) answer();
    else setTimeout(answer, 150);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

const svc: ApiService = {
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name: 'v1.wardle.example.io', resourceVersion: '5' },
  spec: { group: 'wardle.example.io', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'wardle', name: 'api', port: 443 }, caBundle: file('c.pem').toString('base64') },
  status: { conditions: [{ type: 'Available', status: 'True', reason: 'Passed', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
};

/** Only what ExternalDiscovery reads of the index: one available APIService, never changing. */
const index = { onChange: () => () => {}, externalServices: () => [svc] } as unknown as ApiServiceIndex;

test('a periodic refresh keeps the resources listed while it fetches them again, and when it fails', async () => {
  const transport = new ProxyTransport(async () => ({ host: '127.0.0.1', port, serverName: 'api.wardle.svc' }), undefined);
  const published: ExternalGroupVersion[][] = [];
  const discovery = new ExternalDiscovery({ index, transport, refreshMs: 100, publish: (e) => published.push(e) });
  discovery.start();
  const deadline = Date.now() + 10_000;
  while (fetches < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  failing = true;
  const failedFrom = fetches;
  while (fetches < failedFrom + 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  discovery.stop();
  transport.close();
  expect(fetches).toBeGreaterThanOrEqual(failedFrom + 3);
  const first = published.findIndex((p) => p[0]?.resources);
  expect(first).toBeGreaterThanOrEqual(0);
  // From the first list on, every publication still names the resources.
  const after = published.slice(first);
  expect(after.filter((p) => !p[0]?.resources).length).toBe(0);
  expect(after.at(-1)![0]!.resources).toEqual([{ name: 'flunders', namespaced: true, kind: 'Flunder', verbs: ['get'] }]);
});
