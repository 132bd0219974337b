import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect as http2Connect, constants as h2 } from 'node:http2';
import { kubectl, startServerProcess, type ServerProcess } from './support/server-process.js';
import { KubeconfigClient } from './support/http-client.js';

// Issue 30 with stock kubectl 1.32: the default flow schemas and priority levels are listed; a
// priority level with a small share and a flow schema for one service account make that
// account's burst answer 429 with Retry-After while another account is served; bad objects are
// refused naming the field; v1beta1 warns; the debug dumps answer an admin.

let server: ServerProcess;
let client: KubeconfigClient;
beforeAll(async () => {
  server = await startServerProcess(['--max-requests-inflight=20', '--max-mutating-requests-inflight=10', '--workers=1']);
  client = new KubeconfigClient(server.kubeconfig);
}, 60_000);
afterAll(async () => {
  client?.close();
  await server?.stop();
}, 30_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ok = async (args: string[]) => {
  const r = await kubectl(server, args);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r;
};

/** `count` concurrent GETs on one HTTP/2 connection; status and headers of each. */
async function burst(token: string, path: string, count: number) {
  const session = http2Connect(server.url, { ca: client.ca });
  session.on('error', () => undefined);
  try {
    return await Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise<{ status: number; retryAfter?: string; flowSchemaUid?: string; ms: number }>((resolve) => {
            const start = Date.now();
            const out: { status: number; retryAfter?: string; flowSchemaUid?: string; ms: number } = { status: 0, ms: 0 };
            const stream = session.request({ ':method': 'GET', ':path': path, authorization: `Bearer ${token}` });
            const timer = setTimeout(() => stream.close(h2.NGHTTP2_CANCEL), 30_000);
            stream.on('response', (h) => {
              out.status = Number(h[h2.HTTP2_HEADER_STATUS]);
              out.retryAfter = h['retry-after'] as string | undefined;
              out.flowSchemaUid = h['x-kubernetes-pf-flowschema-uid'] as string | undefined;
            });
            stream.resume();
            stream.on('error', () => undefined);
            stream.on('close', () => {
              clearTimeout(timer);
              out.ms = Date.now() - start;
              resolve(out);
            });
            stream.end();
          }),
      ),
    );
  } finally {
    session.close();
  }
}

const config = `apiVersion: flowcontrol.apiserver.k8s.io/v1beta2
kind: PriorityLevelConfiguration
metadata: {name: tiny}
spec:
  type: Limited
  limited:
    assuredConcurrencyShares: 1
    limitResponse: {type: Queue, queuing: {queues: 1, handSize: 1, queueLengthLimit: 2}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1beta2
kind: FlowSchema
metadata: {name: flooder}
spec:
  priorityLevelConfiguration: {name: tiny}
  matchingPrecedence: 500
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: ServiceAccount, serviceAccount: {namespace: default, name: flooder}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"], clusterScope: true}]
`;

test('the default configuration is listed', async () => {
  const names = ['exempt', 'probes', 'system-leader-election', 'workload-leader-election', 'system-node-high', 'system-nodes', 'kube-controller-manager', 'kube-scheduler', 'kube-system-service-accounts', 'service-accounts', 'global-default', 'catch-all'];
  const listed = (out: string) => names.every((name) => new RegExp(`^${name}\\s`, 'm').test(out));
  // The controllers' leader writes them one after another just after start-up.
  let out = '';
  for (let i = 0; i < 100 && !listed(out); i++) {
    out = (await ok(['get', 'flowschemas'])).stdout;
    if (!listed(out)) await sleep(200);
  }
  for (const name of names) expect(out).toMatch(new RegExp(`^${name}\\s`, 'm'));
  expect(out.split('\n')[0]).toMatch(/^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL$/);
  const levels = (await ok(['get', 'prioritylevelconfigurations'])).stdout;
  expect(levels).toMatch(/^workload-low\s+Limited\s+100\s+128\s+6\s+50\s/m);
  expect(levels).toMatch(/^exempt\s+Exempt\s/m);
}, 60_000);

test("a service account's flood in a small level is answered 429 with Retry-After; another account is served", async () => {
  const file = join(server.dataDir, 'apf.yaml');
  await writeFile(file, config);
  // kubectl create sends Protobuf bodies.
  await ok(['create', '-f', file]);
  await ok(['create', 'serviceaccount', 'flooder']);
  await ok(['create', 'serviceaccount', 'quiet']);
  const flooder = (await ok(['create', 'token', 'flooder'])).stdout.trim();
  const quiet = (await ok(['create', 'token', 'quiet'])).stdout.trim();
  const path = '/api/v1/namespaces/default/configmaps';
  const uid = JSON.parse((await ok(['get', 'flowschema', 'flooder', '-o', 'json'])).stdout).metadata.uid as string;
  // Every replica follows the configuration by its watch: wait until this one classifies by it.
  for (let i = 0; i < 100; i++) {
    const [r] = await burst(flooder, path, 1);
    if (r!.flowSchemaUid === uid) break;
    await sleep(100);
  }
  const [flood, calm] = await Promise.all([burst(flooder, path, 150), sleep(20).then(() => burst(quiet, path, 20))]);
  const rejected = flood.filter((r) => r.status === 429);
  expect(rejected.length).toBeGreaterThan(50);
  expect(flood.some((r) => r.status === 200)).toBe(true);
  expect(rejected.every((r) => r.retryAfter === '1')).toBe(true);
  expect(calm.map((r) => r.status)).toEqual(Array(20).fill(200));
  expect(Math.max(...calm.map((r) => r.ms))).toBeLessThan(5_000);
  const dump = (await ok(['get', '--raw', '/debug/api_priority_and_fairness/dump_priority_levels'])).stdout;
  expect(dump).toMatch(/^tiny, \d+, (true|false), false, \d+, \d+, [1-9]\d*, [1-9]\d*, /m);
  const metrics = (await ok(['get', '--raw', '/metrics'])).stdout;
  expect(metrics).toMatch(/apiserver_flowcontrol_rejected_requests_total\{priority_level="tiny",flow_schema="flooder",reason="queue-full"\} [1-9]/);
}, 90_000);

test('bad objects are refused naming the field; v1beta1 answers with a Warning', async () => {
  const file = join(server.dataDir, 'bad.yaml');
  await writeFile(
    file,
    `apiVersion: flowcontrol.apiserver.k8s.io/v1beta2
kind: FlowSchema
metadata: {name: bad}
spec:
  priorityLevelConfiguration: {name: tiny}
  matchingPrecedence: 1
  rules: [{subjects: [{kind: User, user: {name: x}}], nonResourceRules: [{verbs: [get], nonResourceURLs: ["no-slash"]}]}]
`,
  );
  const r = await kubectl(server, ['create', '-f', file]);
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain('spec.matchingPrecedence: Invalid value: 1: only the schema named \'exempt\' may have matchingPrecedence 1');
  expect(r.stderr).toContain('spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "no-slash": must start with slash');
  const old = await ok(['get', 'flowschemas.v1beta1.flowcontrol.apiserver.k8s.io', 'exempt']);
  expect(old.stderr).toContain('Warning: flowcontrol.apiserver.k8s.io/v1beta1 FlowSchema is deprecated in v1.23+, unavailable in v1.26+; use flowcontrol.apiserver.k8s.io/v1beta2 FlowSchema');
}, 60_000);
