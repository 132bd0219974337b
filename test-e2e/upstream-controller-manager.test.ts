// Upstream's kube-controller-manager, unmodified, as a client of this server: its workload,
// endpoint, job and garbage-collection controllers must work against this API as they do against
// upstream's. Needs the binary (hack/conformance/build-upstream.sh, or KCM_BINARY); without it the
// suite is skipped with a message. `make e2e-upstream` runs it alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { KubeconfigClient } from './support/http-client.js';

const KCM = process.env.KCM_BINARY ?? '/work/anchor/bin/kube-controller-manager';
const present = existsSync(KCM);
if (!present) {
  console.warn(
    `upstream-controller-manager: SKIPPED, no kube-controller-manager at ${KCM} ` +
      '(build it with hack/conformance/build-upstream.sh, or set KCM_BINARY)',
  );
}
const describeIfBinary = present ? describe : describe.skip;

/** The controllers this server lacks (hack/conformance/start-kcm.sh keeps the same list). */
const KCM_CONTROLLERS = [
  'deployment', 'replicaset', 'replicationcontroller', 'statefulset', 'daemonset', 'job', 'cronjob',
  'ttl-after-finished', 'endpoint', 'endpointslice', 'endpointslicemirroring', 'garbagecollector',
  'resourcequota', 'disruption', 'podgc', 'serviceaccount-token',
].join(',');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

let server: ServerProcess;
let client: KubeconfigClient;
let kcm: ChildProcess | undefined;
let kcmLog = '';
let kcmPort = 0;
const NS = 'kcm-e2e';

/** Polls `probe` every 250 ms until it returns a value (not undefined) or `ms` pass. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what}: not within ${ms} ms${last ? ` (last error: ${String(last)})` : ''}\n--- kube-controller-manager log (tail) ---\n${kcmLog.slice(-4000)}`);
}

const ok = async (method: string, path: string, body?: unknown, contentType?: string) => {
  const r = await client.call(method, path, body, contentType);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const ownedBy = (o: any, uid: string) => (o.metadata.ownerReferences ?? []).some((r: any) => r.uid === uid && r.controller === true);

describeIfBinary('upstream kube-controller-manager against this server', () => {
  beforeAll(async () => {
    server = await startServerProcess(['--workers=1', '--authorization-mode=Node,RBAC', '--controllers=*,-garbagecollector']);
    client = new KubeconfigClient(server.kubeconfig);
    kcmPort = await freePort();
    const port = kcmPort;
    const certs = `${server.dataDir}/certs`;
    kcm = spawn(
      KCM,
      [
        `--kubeconfig=${server.kubeconfig}`,
        `--authentication-kubeconfig=${server.kubeconfig}`,
        `--authorization-kubeconfig=${server.kubeconfig}`,
        '--authentication-skip-lookup=true',
        '--bind-address=127.0.0.1',
        `--secure-port=${port}`,
        '--leader-elect=true',
        '--leader-elect-resource-lock=leases',
        '--leader-elect-resource-namespace=cluster-system',
        `--controllers=${KCM_CONTROLLERS}`,
        '--use-service-account-credentials=false',
        `--service-account-private-key-file=${certs}/sa.key`,
        `--root-ca-file=${certs}/ca.crt`,
        '--v=2',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    kcm.stdout!.on('data', (d: Buffer) => (kcmLog += d.toString()));
    kcm.stderr!.on('data', (d: Buffer) => (kcmLog += d.toString()));
    // Leader election on a Lease of this server: KCM starts its controllers once it holds it.
    await eventually('KCM holds its Lease', async () => {
      const r = await client.call('GET', '/apis/coordination.k8s.io/v1/namespaces/cluster-system/leases/kube-controller-manager');
      return r.status === 200 && r.json.spec?.holderIdentity ? r.json : undefined;
    });
    await ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  }, 120_000);

  afterAll(async () => {
    if (kcm && kcm.exitCode === null) {
      const exited = new Promise((r) => kcm!.once('exit', r));
      kcm.kill('SIGTERM');
      const t = setTimeout(() => kcm!.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    }
    client?.close();
    await server?.stop();
  }, 40_000);

  it('a Deployment gets a ReplicaSet and pods; deleting it collects both (garbage collector)', async () => {
    const dep = await ok('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'registry.example/web:1' }] } },
      },
    });
    const rs = await eventually('ReplicaSet owned by the Deployment', async () => {
      const l = await ok('GET', `/apis/apps/v1/namespaces/${NS}/replicasets`);
      return l.items.find((r: unknown) => ownedBy(r, dep.metadata.uid));
    });
    expect(rs.spec.replicas).toBe(2);
    expect(rs.metadata.labels['pod-template-hash']).toBeTruthy();
    const pods = await eventually('2 pods owned by the ReplicaSet', async () => {
      const l = await ok('GET', `/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dweb`);
      const mine = l.items.filter((p: unknown) => ownedBy(p, rs.metadata.uid));
      return mine.length === 2 ? mine : undefined;
    });
    expect(pods[0].metadata.generateName).toBe(`${rs.metadata.name}-`);
    await eventually('Deployment status counts the replicas', async () => {
      const d = await ok('GET', `/apis/apps/v1/namespaces/${NS}/deployments/web`);
      return d.status?.replicas === 2 && d.status?.observedGeneration === d.metadata.generation ? d : undefined;
    });

    // Scaling down: the ReplicaSet controller deletes a pod (client-go sends Protobuf DeleteOptions).
    await ok('PATCH', `/apis/apps/v1/namespaces/${NS}/deployments/web`, { spec: { replicas: 1 } }, 'application/merge-patch+json');
    await eventually('one pod left after scaling down', async () => {
      const l = await ok('GET', `/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dweb`);
      return l.items.length === 1 ? l.items : undefined;
    });

    // Background deletion: the garbage collector (metadata-only informers) removes the dependents.
    await ok('DELETE', `/apis/apps/v1/namespaces/${NS}/deployments/web`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' });
    await eventually('ReplicaSet and pods collected', async () => {
      const rsl = await ok('GET', `/apis/apps/v1/namespaces/${NS}/replicasets`);
      const pl = await ok('GET', `/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dweb`);
      return rsl.items.length === 0 && pl.items.length === 0 ? true : undefined;
    });
  }, 150_000);

  it('a Service with a selector gets Endpoints and EndpointSlices for ready pods with an IP', async () => {
    await ok('POST', `/api/v1/namespaces/${NS}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'api' },
      spec: { selector: { app: 'api' }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
    });
    // A pod that runs has a node: the EndpointSlice controller reads its zone from the Node object.
    await ok('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'kcm-e2e-node', labels: { 'topology.kubernetes.io/zone': 'z1' } } });
    const ips = ['10.244.1.10', '10.244.1.11'];
    for (const [i, ip] of ips.entries()) {
      await ok('POST', `/api/v1/namespaces/${NS}/pods`, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `api-${i}`, labels: { app: 'api' } },
        spec: { nodeName: 'kcm-e2e-node', containers: [{ name: 'c', image: 'registry.example/api:1', ports: [{ containerPort: 8080 }] }] },
      });
      // What a kubelet reports once the pod runs: its IP and Ready.
      await ok(
        'PATCH',
        `/api/v1/namespaces/${NS}/pods/api-${i}/status`,
        {
          status: {
            phase: 'Running',
            podIP: ip,
            podIPs: [{ ip }],
            conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }],
          },
        },
        'application/merge-patch+json',
      );
    }
    const ep = await eventually('Endpoints with both pod IPs', async () => {
      const r = await client.call('GET', `/api/v1/namespaces/${NS}/endpoints/api`);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const got = (r.json.subsets ?? []).flatMap((s: any) => (s.addresses ?? []).map((a: any) => a.ip)).sort();
      return r.status === 200 && JSON.stringify(got) === JSON.stringify(ips) ? r.json : undefined;
    });
    expect(ep.subsets[0].ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    const slice = await eventually('EndpointSlice labelled with the service name', async () => {
      const l = await ok('GET', `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dapi`);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const s = l.items.find((x: any) => (x.endpoints ?? []).length === 2);
      return s;
    });
    expect(slice.addressType).toBe('IPv4');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    expect(slice.endpoints.map((e: any) => e.addresses[0]).sort()).toEqual(ips);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    expect(slice.endpoints.every((e: any) => e.conditions.ready === true)).toBe(true);
    expect(slice.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    expect(slice.endpoints.map((e: any) => [e.nodeName, e.zone])).toEqual([['kcm-e2e-node', 'z1'], ['kcm-e2e-node', 'z1']]);
    expect(ep.subsets[0].addresses[0].nodeName).toBe('kcm-e2e-node');
  }, 120_000);

  it('a CronJob creates a Job when batch/v1 cronjobs are served', async () => {
    const disc = await client.call('GET', '/apis/batch/v1');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const served = disc.status === 200 && (disc.json.resources ?? []).some((r: any) => r.name === 'cronjobs');
    if (!served) {
      // Not a skip of the check: what is asserted is that the kind is absent (issue 26 adds it), and
      // KCM's cronjob controller then stays off, as it does against any server without the kind.
      console.warn('upstream-controller-manager: batch/v1 cronjobs not served by this server: CronJob check not applicable');
      expect((await client.call('GET', `/apis/batch/v1/namespaces/${NS}/cronjobs`)).status).toBe(404);
      return;
    }
    const cj = await ok('POST', `/apis/batch/v1/namespaces/${NS}/cronjobs`, {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'tick' },
      spec: {
        schedule: '*/1 * * * *',
        jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.example/tick:1' }] } } } },
      },
    });
    // The schedule fires on the next minute boundary.
    const job = await eventually(
      'Job owned by the CronJob',
      async () => {
        const l = await ok('GET', `/apis/batch/v1/namespaces/${NS}/jobs`);
        return l.items.find((j: unknown) => ownedBy(j, cj.metadata.uid));
      },
      100_000,
    );
    expect(job.metadata.name.startsWith('tick-')).toBe(true);
    // The job controller makes its pod.
    await eventually('pod of the Job', async () => {
      const l = await ok('GET', `/api/v1/namespaces/${NS}/pods?labelSelector=job-name%3D${job.metadata.name}`);
      return l.items.length >= 1 ? l.items : undefined;
    });
  }, 150_000);

  it('KCM logs no decode, discovery or request-body errors against this server', () => {
    // Watches of every resource in metadata-only form, discovery of every group, Protobuf bodies.
    const bad = kcmLog
      .split('\n')
      .filter((l) => /unable to decode|unable to retrieve the complete list of server APIs|couldn't get version\/kind|json parse error|failed to discover/.test(l));
    expect(bad).toEqual([]);
  });

  it("KCM's serving port authenticates and authorizes through this server's TokenReview and SubjectAccessReview", async () => {
    const get = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = httpsRequest({ host: '127.0.0.1', port: kcmPort, path: '/metrics', headers, rejectUnauthorized: false, timeout: 10_000 }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('timeout', () => req.destroy(new Error('timed out')));
        req.on('error', reject);
        req.end();
      });
    expect(await get({ Authorization: `Bearer ${client.token}` })).toBe(200); // system:masters
    expect(await get({ Authorization: 'Bearer not-a-token' })).toBe(401); // TokenReview says no
    expect(await get({})).toBe(403); // system:anonymous may not read /metrics (SubjectAccessReview)
  });
});
