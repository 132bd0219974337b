import { fileURLToPath } from 'node:url';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { kubectl, startServerProcess, type ServerProcess } from './support/server-process.js';

const exec = promisify(execFile);
let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess();
}, 60_000);
afterAll(async () => {
  await server?.stop();
}, 30_000);

describe('discovery and OpenAPI through kubectl', () => {
  test('api-resources lists the served resources', async () => {
    const r = await kubectl(server, ['api-resources']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/configmaps\s+cm\s+v1\s+true\s+ConfigMap/);
    expect(r.stdout).toMatch(/namespaces\s+ns\s+v1\s+false\s+Namespace/);
    expect(r.stdout).toMatch(/leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease/);
  }, 60_000);

  test('explain answers from /openapi/v3', async () => {
    const r = await kubectl(server, ['explain', 'configmap.data']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('KIND:       ConfigMap');
    expect(r.stdout).toMatch(/FIELD:\s+data <map\[string\]string>/);
  }, 60_000);

  test('get --chunk-size=2 pages through everything', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await kubectl(server, ['create', 'configmap', `chunk-${i}`, '--from-literal=a=b'])).code).toBe(0);
    }
    const r = await kubectl(server, ['get', 'configmaps', '--chunk-size=2', '-o', 'name']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n').filter((l) => l.startsWith('configmap/chunk-'))).toHaveLength(5);
  }, 60_000);

  test('version reports the server', async () => {
    const r = await kubectl(server, ['version', '-o', 'json']);
    expect(JSON.parse(r.stdout).serverVersion.major).toBe('1');
  }, 60_000);
});

describe('the entrypoint', () => {
  const main = fileURLToPath(new URL('../packages/server/dist/src/main.js', import.meta.url));
  test.each([[['--bogus-flag']], [['--secure-port=abc']], [['--anonymous-auth=maybe']]])(
    'bad flags %p fail with one line and exit code 2',
    async (args) => {
      const err = await exec(process.execPath, [main, ...args]).then(
        () => undefined,
        (e: { code?: number; stderr?: string }) => e,
      );
      expect(err?.code).toBe(2);
      expect(err?.stderr?.trim().split('\n')).toHaveLength(1);
    },
    30_000,
  );
});
