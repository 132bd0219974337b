import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, DiscoveryV1Api, EventsV1Api, KubeConfig } from '@kubernetes/client-node';
import type { Etcd3 } from 'etcd3';
import { decodeProtobufObject, encodeProtobufObject, type KubeObject } from '../packages/apimachinery/src/index.js';
import { freePorts, startEtcd, type EtcdProcess } from '../packages/storage/src/etcd-process/index.js';
import { newEtcdClient } from '../packages/storage/src/etcd3/client.js';
import { resolveAdvertiseAddress } from '../packages/server/src/advertise-address.js';
import { kubectl, startServerProcess, type ServerProcess } from './support/server-process.js';
import { KubeconfigClient } from './support/http-client.js';

// Issue 20 with stock clients: services with cluster IPs from an allocator shared by two replicas
// over one etcd, the kubernetes Service kept by both, and the new kinds through kubectl,
// @kubernetes/client-node and Protobuf.
// Bound to loopback, a replica advertises the host's address, as upstream's (Endpoints refuse loopback).
const ADVERTISED = resolveAdvertiseAddress('', '127.0.0.1').replace(/\./g, '\\.');
let etcd: EtcdProcess;
let etcdDir: string;
let etcdClient: Etcd3;
let a: ServerProcess;
let b: ServerProcess;

beforeAll(async () => {
  etcdDir = await mkdtemp(join(tmpdir(), 'services-etcd-'));
  const [client, peer] = await freePorts(2);
  etcd = await startEtcd({ dataDir: etcdDir, clientPort: client, peerPort: peer });
  etcdClient = newEtcdClient([etcd.endpoint]);
  [a, b] = await Promise.all([startServerProcess([`--etcd-servers=${etcd.endpoint}`]), startServerProcess([`--etcd-servers=${etcd.endpoint}`])]);
}, 90_000);

afterAll(async () => {
  etcdClient?.close();
  await Promise.all([a?.stop(), b?.stop()]);
  await etcd?.stop();
  await rm(etcdDir, { recursive: true, force: true });
}, 60_000);

const IPS = '/registry/ranges/serviceips/';
const portOf = (s: ServerProcess) => Number(new URL(s.url).port);

const ok = async (server: ServerProcess, args: string[], stdin?: string) => {
  let r;
  if (stdin !== undefined) {
    const file = join(server.dataDir, `in-${Date.now()}-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(file, stdin);
    r = await kubectl(server, args.map((x) => (x === '-' ? file : x)));
  } else {
    r = await kubectl(server, args);
  }
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
};

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function claimedIPs(): Promise<string[]> {
  return (await etcdClient.getAll().prefix(IPS).keys()).map((k) => k.slice(IPS.length)).sort();
}

const NODE = `apiVersion: v1
kind: Node
metadata:
  name: worker-1
  labels: {node-role.kubernetes.io/worker: ""}
spec: {podCIDR: 10.244.1.0/24}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  conditions: [{type: Ready, status: "True", reason: KubeletReady, message: ready, lastHeartbeatTime: "2024-01-01T00:00:00Z", lastTransitionTime: "2024-01-01T00:00:00Z"}]
  addresses: [{type: InternalIP, address: 192.168.7.5}, {type: Hostname, address: worker-1}]
  nodeInfo: {kubeletVersion: v1.32.0, osImage: Debian GNU/Linux 12, kernelVersion: 6.1.0-18, containerRuntimeVersion: "containerd://1.7.2", machineID: m, systemUUID: s, bootID: b, kubeProxyVersion: v1.32.0, operatingSystem: linux, architecture: amd64}
`;

const event = (uid: string) => `apiVersion: v1
kind: Event
metadata: {name: s.created, namespace: default}
involvedObject: {kind: Service, name: s, namespace: default, uid: ${uid}, apiVersion: v1}
reason: Exposed
message: service s exposed on port 80
type: Normal
source: {component: e2e-test}
firstTimestamp: "2024-01-01T00:00:00Z"
lastTimestamp: "2024-01-01T00:00:00Z"
count: 1
`;

const OTHERS = `apiVersion: v1
kind: LimitRange
metadata: {name: limits, namespace: default}
spec:
  limits: [{type: Container, default: {cpu: 500m, memory: 256Mi}, defaultRequest: {cpu: 250m}}]
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: quota, namespace: default}
spec: {hard: {pods: "10", limits.cpu: "4"}}
---
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: modern, namespace: default}
eventTime: "2024-01-01T00:00:00.000000Z"
reportingController: example.com/e2e
reportingInstance: e2e-1
action: Testing
reason: Tested
regarding: {kind: Node, name: worker-1}
note: new-style event
type: Warning
`;

describe('services, endpoints, nodes and events with stock kubectl (issue 20)', () => {
  test('kubectl create service clusterip and nodeport get IPs of the range and node ports', async () => {
    expect(await ok(a, ['create', 'service', 'clusterip', 's', '--tcp=80:8080'])).toContain('service/s created');
    expect(await ok(b, ['create', 'service', 'nodeport', 'np', '--tcp=8080:80'])).toContain('service/np created');
    const ip = await ok(a, ['get', 'svc', 's', '-o', 'jsonpath={.spec.clusterIP}']);
    expect(ip).toMatch(/^10\.0\.0\.([2-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-4])$/);
    const nodePort = Number(await ok(a, ['get', 'svc', 'np', '-o', 'jsonpath={.spec.ports[0].nodePort}']));
    expect(nodePort).toBeGreaterThanOrEqual(30000);
    expect(nodePort).toBeLessThanOrEqual(32767);
    expect(await claimedIPs()).toContain(ip);
  }, 60_000);

  test('the kubernetes Service has the first IP, and its endpoints list both replicas', async () => {
    expect(await ok(a, ['get', 'svc', 'kubernetes', '-o', 'jsonpath={.spec.clusterIP} {.spec.ports[0].port}'])).toBe('10.0.0.1 443');
    const want = [portOf(a), portOf(b)].sort((x, y) => x - y);
    await eventually('both replicas in the endpoints', async () => {
      const out = await ok(a, ['get', 'endpoints', 'kubernetes', '-o', 'jsonpath={.subsets[*].ports[0].port}']);
      const ports = out.split(' ').filter(Boolean).map(Number).sort((x, y) => x - y);
      return JSON.stringify(ports) === JSON.stringify(want) ? true : undefined;
    });
    const describe = await ok(b, ['describe', 'svc', 'kubernetes']);
    expect(describe).toMatch(/IP:\s+10\.0\.0\.1/);
    expect(describe).toMatch(/Port:\s+https\s+443\/TCP/);
    expect(describe).toMatch(new RegExp(`Endpoints:\\s+${ADVERTISED}:(${portOf(a)}|${portOf(b)})`));
  }, 60_000);

  test('get svc,ep,nodes -A -o wide, get events and describe print upstream tables', async () => {
    expect(await ok(a, ['create', '-f', '-'], NODE)).toContain('node/worker-1 created');
    const uid = await ok(a, ['get', 'svc', 's', '-o', 'jsonpath={.metadata.uid}']);
    expect(await ok(a, ['create', '-f', '-'], event(uid))).toContain('event/s.created created');
    expect(await ok(a, ['create', '-f', '-'], OTHERS)).toMatch(/limitrange\/limits created[\s\S]*resourcequota\/quota created[\s\S]*event.events.k8s.io\/modern created/);

    const wide = await ok(b, ['get', 'svc,ep,nodes', '-A', '-o', 'wide']);
    expect(wide).toMatch(/NAMESPACE\s+NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\s+SELECTOR/);
    expect(wide).toMatch(/default\s+service\/kubernetes\s+ClusterIP\s+10\.0\.0\.1\s+<none>\s+443\/TCP\s+\S+\s+<none>/);
    expect(wide).toMatch(/default\s+service\/np\s+NodePort\s+10\.0\.0\.\d+\s+<none>\s+8080:3\d{4}\/TCP\s+\S+\s+app=np/);
    expect(wide).toMatch(/NAMESPACE\s+NAME\s+ENDPOINTS\s+AGE/);
    expect(wide).toMatch(new RegExp(`default\\s+endpoints/kubernetes\\s+${ADVERTISED}:\\d+`));
    expect(wide).toMatch(/NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+INTERNAL-IP\s+EXTERNAL-IP\s+OS-IMAGE\s+KERNEL-VERSION\s+CONTAINER-RUNTIME/);
    expect(wide).toMatch(/node\/worker-1\s+Ready\s+worker\s+\S+\s+v1\.32\.0\s+192\.168\.7\.5\s+<none>\s+Debian GNU\/Linux 12\s+6\.1\.0-18\s+containerd:\/\/1\.7\.2/);

    const events = await ok(a, ['get', 'events']);
    expect(events).toMatch(/LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/);
    expect(events).toMatch(/Normal\s+Exposed\s+service\/s\s+service s exposed on port 80/);
    expect(events).toMatch(/Warning\s+Tested\s+node\/worker-1\s+new-style event/);

    // describe reads the events with field selectors on involvedObject.
    const describe = await ok(a, ['describe', 'svc', 's']);
    expect(describe).toMatch(/Events:[\s\S]*Normal\s+Exposed\s+\S+\s+e2e-test\s+service s exposed on port 80/);

    expect(await ok(a, ['get', 'limits,quota'])).toMatch(/NAME\s+CREATED AT\s+limitrange\/limits[\s\S]*NAME\s+AGE\s+REQUEST\s+LIMIT\s+resourcequota\/quota/);
  }, 90_000);

  test('every kind round-trips through kubectl -o yaml and replace unchanged', async () => {
    const objects = [
      ['svc', 's'],
      ['svc', 'np'],
      ['endpoints', 'kubernetes'],
      ['node', 'worker-1'],
      ['events.v1.', 's.created'],
      ['events.v1.events.k8s.io', 'modern'],
      ['limitrange', 'limits'],
      ['resourcequota', 'quota'],
      ['endpointslices.v1.discovery.k8s.io', 'kubernetes'],
    ];
    for (const [kind, name] of objects) {
      const target = kind === 'events.v1.' ? 'events' : kind!;
      if (name === 'kubernetes' && kind !== 'svc') continue; // kept by the replicas: may change under us
      const yaml = await ok(a, ['get', target, name!, '-o', 'yaml']);
      await ok(b, ['replace', '-f', '-'], yaml);
      const before = JSON.parse(await ok(a, ['get', target, name!, '-o', 'json']));
      await ok(a, ['replace', '-f', '-'], await ok(b, ['get', target, name!, '-o', 'yaml']));
      const after = JSON.parse(await ok(b, ['get', target, name!, '-o', 'json']));
      for (const o of [before, after]) {
        delete o.metadata.resourceVersion;
        delete o.metadata.managedFields;
      }
      expect({ kind: target, obj: after }).toEqual({ kind: target, obj: before });
    }
  }, 120_000);

  test('@kubernetes/client-node reads and replaces each kind without losing a field', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(a.kubeconfig);
    const core = kc.makeApiClient(CoreV1Api);
    const events = kc.makeApiClient(EventsV1Api);
    const discovery = kc.makeApiClient(DiscoveryV1Api);
    const client = new KubeconfigClient(a.kubeconfig);
    const ns = 'default';
    const cases: Array<[string, () => Promise<unknown>, (body: never) => Promise<unknown>]> = [
      ['/api/v1/namespaces/default/services/np', () => core.readNamespacedService({ name: 'np', namespace: ns }), (body) => core.replaceNamespacedService({ name: 'np', namespace: ns, body })],
      ['/api/v1/nodes/worker-1', () => core.readNode({ name: 'worker-1' }), (body) => core.replaceNode({ name: 'worker-1', body })],
      ['/api/v1/namespaces/default/events/s.created', () => core.readNamespacedEvent({ name: 's.created', namespace: ns }), (body) => core.replaceNamespacedEvent({ name: 's.created', namespace: ns, body })],
      ['/apis/events.k8s.io/v1/namespaces/default/events/modern', () => events.readNamespacedEvent({ name: 'modern', namespace: ns }), (body) => events.replaceNamespacedEvent({ name: 'modern', namespace: ns, body })],
      ['/api/v1/namespaces/default/limitranges/limits', () => core.readNamespacedLimitRange({ name: 'limits', namespace: ns }), (body) => core.replaceNamespacedLimitRange({ name: 'limits', namespace: ns, body })],
      ['/api/v1/namespaces/default/resourcequotas/quota', () => core.readNamespacedResourceQuota({ name: 'quota', namespace: ns }), (body) => core.replaceNamespacedResourceQuota({ name: 'quota', namespace: ns, body })],
    ];
    for (const [path, read, replace] of cases) {
      const before = (await client.call('GET', path)).json;
      await replace((await read()) as never);
      const after = (await client.call('GET', path)).json;
      for (const o of [before, after]) {
        delete o.metadata.resourceVersion;
        delete o.metadata.managedFields;
      }
      expect({ path, obj: after }).toEqual({ path, obj: before });
    }
    const endpoints = await core.readNamespacedEndpoints({ name: 'kubernetes', namespace: ns });
    expect(endpoints.subsets?.[0]?.ports?.[0]?.name).toBe('https');
    const slice = await discovery.readNamespacedEndpointSlice({ name: 'kubernetes', namespace: ns });
    expect(slice.addressType).toBe('IPv4');
    const nodes = await core.listNode();
    expect(nodes.items.map((n) => n.status?.nodeInfo?.kubeletVersion)).toEqual(['v1.32.0']);
  }, 60_000);

  test('Protobuf: each kind reads the same as JSON, and a Protobuf create is accepted', async () => {
    const client = new KubeconfigClient(a.kubeconfig);
    const paths = [
      '/api/v1/namespaces/default/services/np',
      '/api/v1/namespaces/default/endpoints/kubernetes',
      '/api/v1/nodes/worker-1',
      '/api/v1/namespaces/default/events/s.created',
      '/apis/events.k8s.io/v1/namespaces/default/events/modern',
      '/api/v1/namespaces/default/limitranges/limits',
      '/api/v1/namespaces/default/resourcequotas/quota',
      '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes',
    ];
    for (const path of paths) {
      const pb = await protobufCall(client, 'GET', path);
      expect({ path, status: pb.status, type: pb.contentType }).toEqual({ path, status: 200, type: 'application/vnd.kubernetes.protobuf' });
      const fromPb = decodeProtobufObject(pb.body);
      const json = (await client.call('GET', path)).json;
      if (fromPb.metadata.resourceVersion !== json.metadata.resourceVersion) continue; // the replicas rewrote it in between
      delete (fromPb.metadata as Record<string, unknown>)['managedFields'];
      delete json.metadata.managedFields;
      expect({ path, obj: fromPb }).toEqual({ path, obj: json });
    }
    const body = encodeProtobufObject({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'pb' }, spec: { ports: [{ port: 53, protocol: 'UDP' }] } } as KubeObject);
    const created = await protobufCall(client, 'POST', '/api/v1/namespaces/default/services', Buffer.from(body));
    expect(created.status).toBe(201);
    expect(decodeProtobufObject(created.body)).toMatchObject({ spec: { clusterIP: expect.stringMatching(/^10\.0\.0\./), ports: [{ port: 53, protocol: 'UDP', targetPort: 53 }] } });
  }, 60_000);

  test('bad inputs through kubectl: 422 with causes, nothing stored, nothing claimed', async () => {
    const taken = await ok(a, ['get', 'svc', 's', '-o', 'jsonpath={.spec.clusterIP}']);
    const before = await claimedIPs();
    const dup = await kubectl(a, ['create', 'service', 'clusterip', 'dup', '--tcp=80:80', `--clusterip=${taken}`]);
    expect(dup.code).not.toBe(0);
    expect(dup.stderr).toContain(`failed to allocate IP ${taken}: provided IP is already allocated`);
    const bad = await kubectl(b, ['create', 'service', 'nodeport', 'badport', '--tcp=80:80', '--node-port=80']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('provided port is not in the valid range. The range of valid ports is 30000-32767');
    for (const name of ['dup', 'badport']) expect((await kubectl(a, ['get', 'svc', name])).stderr).toContain('not found');
    expect(await claimedIPs()).toEqual(before);
  }, 60_000);

  test('two replicas never hand out the same cluster IP under 200 concurrent creates; deletes free them all', async () => {
    const before = await claimedIPs();
    const clients = [new KubeconfigClient(a.kubeconfig, 50), new KubeconfigClient(b.kubeconfig, 50)];
    const N = 200;
    const results = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        clients[i % 2]!.call('POST', '/api/v1/namespaces/default/services', {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: `race-${i}` },
          spec: { ports: [{ port: 80 }] },
        }),
      ),
    );
    const failures = results.filter((r) => r.status !== 201);
    expect(failures.map((r) => r.json)).toEqual([]);
    const ips = results.map((r) => r.json.spec.clusterIP as string);
    expect(new Set(ips).size).toBe(N);
    // What etcd holds agrees: each IP claimed once, by the service that shows it.
    const stored = (await clients[0]!.call('GET', '/api/v1/namespaces/default/services')).json.items as { metadata: { name: string; uid: string }; spec: { clusterIP: string } }[];
    const byIP = new Map(stored.map((s) => [s.spec.clusterIP, s.metadata.uid]));
    expect(await claimedIPs()).toEqual([...before, ...ips].sort());
    for (const ip of ips) {
      const record = JSON.parse((await etcdClient.get(IPS + ip).string())!);
      expect(record.metadata.uid).toBe(byIP.get(ip));
    }
    const deletes = await Promise.all(
      Array.from({ length: N }, (_, i) => clients[(i + 1) % 2]!.call('DELETE', `/api/v1/namespaces/default/services/race-${i}`)),
    );
    expect(deletes.filter((r) => r.status !== 200)).toEqual([]);
    expect(await claimedIPs()).toEqual(before);
  }, 180_000);

  test('a replica stopped gracefully leaves the kubernetes endpoints at once', async () => {
    const stoppedPort = portOf(b);
    expect(await b.stop()).toBe(0);
    const endpointPorts = async () =>
      (await ok(a, ['get', 'endpoints', 'kubernetes', '-o', 'jsonpath={.subsets[*].ports[0].port}'])).split(' ').filter(Boolean).map(Number);
    // Gone at once (not after its lease expires); the live replica stays or comes back on its next pass.
    expect(await endpointPorts()).not.toContain(stoppedPort);
    // Its passes are 5 s apart; kubectl itself is slow on a loaded machine, so give it several.
    let seen: number[] = [];
    await eventually('the live replica alone in the endpoints', async () => ((seen = await endpointPorts()).join() === String(portOf(a)) ? true : undefined), 30_000).catch(
      (e: Error) => {
        throw new Error(`${e.message}: the endpoints' ports were ${JSON.stringify(seen)}, the live replica's ${portOf(a)}`);
      },
    );
  }, 60_000);
});

function protobufCall(client: KubeconfigClient, method: string, path: string, body?: Buffer): Promise<{ status: number; contentType: string; body: Uint8Array }> {
  const PB = 'application/vnd.kubernetes.protobuf';
  const headers: Record<string, string> = { Authorization: `Bearer ${client.token}`, Accept: PB };
  if (body) {
    headers['Content-Type'] = PB;
    headers['Content-Length'] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, client.server), { method, headers, ca: client.ca, timeout: 20_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? '').split(';')[0]!, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}
