import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KubeconfigClient } from './support/http-client.js';
import { kubectl, startServerProcess, type ServerProcess } from './support/server-process.js';

// --runtime-config (SPEC 9.1) on a real server process: a disabled group version leaves
// discovery (plain and aggregated) and OpenAPI and answers 404, a disabled resource alone leaves
// its version's list, a removed version served again warns in kubectl, and a bad runtime-config
// or feature-gate value stops start-up at once with a one-line message.
const exec = promisify(execFile);
const MAIN = join(fileURLToPath(new URL('..', import.meta.url)), 'packages/server/dist/src/main.js');
let server: ServerProcess;
let client: KubeconfigClient;

beforeAll(async () => {
  server = await startServerProcess(['--runtime-config=coordination.k8s.io/v1=false,api/v1/secrets=false,rbac.authorization.k8s.io/v1beta1']);
  client = new KubeconfigClient(server.kubeconfig);
}, 60_000);
afterAll(async () => {
  client?.close();
  await server?.stop();
}, 30_000);

test('a disabled group version is gone from discovery and OpenAPI and answers 404', async () => {
  const groups = (await client.call('GET', '/apis')).json as { groups: { name: string }[] };
  expect(groups.groups.map((g) => g.name)).not.toContain('coordination.k8s.io');
  expect(groups.groups.map((g) => g.name)).toContain('rbac.authorization.k8s.io');
  expect((await client.call('GET', '/apis/coordination.k8s.io/v1')).status).toBe(404);
  const leases = await client.call('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases');
  expect(leases.status).toBe(404);
  const v3 = (await client.call('GET', '/openapi/v3')).json as { paths: Record<string, unknown> };
  expect(Object.keys(v3.paths)).not.toContain('apis/coordination.k8s.io/v1');
  const r = await kubectl(server, ['get', 'leases', '-A']);
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain(`the server doesn't have a resource type "leases"`);
});

test('a disabled resource leaves its version\'s list; the rest of the version is served', async () => {
  const core = (await client.call('GET', '/api/v1')).json as { resources: { name: string }[] };
  const names = core.resources.map((r) => r.name);
  expect(names).not.toContain('secrets');
  expect(names).toContain('configmaps');
  expect((await client.call('GET', '/api/v1/namespaces/default/secrets')).status).toBe(404);
  expect((await kubectl(server, ['get', 'configmaps', '-n', 'default'])).code).toBe(0);
});

test('kubectl prints the Warning of a removed version served again', async () => {
  const r = await kubectl(server, ['get', 'clusterroles.v1beta1.rbac.authorization.k8s.io', 'view']);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^NAME\s+CREATED AT\nview\s/);
  expect(r.stderr).toContain('Warning: rbac.authorization.k8s.io/v1beta1 ClusterRole is deprecated in v1.17+, unavailable in v1.22+; use rbac.authorization.k8s.io/v1 ClusterRole');
});

test.each([
  ['an unknown group version', '--runtime-config=batch/v2alpha1=true', 'unknown api groups or resources: batch/v2alpha1'],
  ['a bad value', '--runtime-config=api/all=sometimes', 'invalid value of api/all: sometimes'],
  ['an unknown feature gate', '--feature-gates=NoSuchGate=true', 'unrecognized feature gate: NoSuchGate'],
  ['a GA feature gate switched off', '--feature-gates=ServerSideApply=false', 'cannot set feature gate ServerSideApply to false, feature is locked to true'],
])('%s stops start-up with a one-line message', async (_, flag, message) => {
  const started = Date.now();
  const r = await exec(process.execPath, [MAIN, '--data-dir', '/nonexistent-never-created', flag]).then(
    () => ({ code: 0, stderr: '' }),
    (e: { code: number; stderr: string }) => e,
  );
  expect(r.code).not.toBe(0);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toContain(message);
  expect(Date.now() - started).toBeLessThan(10_000);
});
