import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { kubectl, startServerProcess, type ServerProcess } from './support/server-process.js';

// kubectl reads /openapi/v2 as Protobuf (gnostic's Document) wherever it still uses OpenAPI v2:
// `explain --output=plaintext-openapiv2`, and every command of older clients (validation, diff,
// apply). A JSON answer there failed with "proto: cannot parse invalid wire-format data".

let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess();
}, 60_000);
afterAll(async () => {
  await server?.stop();
}, 30_000);

async function manifest(name: string, data: Record<string, string>): Promise<string> {
  const file = join(server.dataDir, `${name}.yaml`);
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', `  name: ${name}`, '  namespace: default', 'data:'];
  for (const [k, v] of Object.entries(data)) lines.push(`  ${k}: "${v}"`);
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

describe('kubectl over OpenAPI v2 Protobuf and v3', () => {
  test('explain --output=plaintext-openapiv2 reads the Protobuf /openapi/v2', async () => {
    const r = await kubectl(server, ['explain', 'configmap', '--output=plaintext-openapiv2']);
    expect(r.stderr).not.toContain('proto:');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('KIND:     ConfigMap');
    expect(r.stdout).toMatch(/binaryData\s+<map\[string\]string>/);
    const field = await kubectl(server, ['explain', 'pods.spec.containers', '--output=plaintext-openapiv2']);
    expect(field.code).toBe(0);
    expect(field.stdout).toContain('RESOURCE: containers <[]Object>');
  }, 90_000);

  test('explain configmap (OpenAPI v3)', async () => {
    const r = await kubectl(server, ['explain', 'configmap']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('KIND:       ConfigMap');
  }, 60_000);

  test('diff -f shows the change and exits 1; no change exits 0', async () => {
    const first = await manifest('diffed', { a: '1' });
    expect((await kubectl(server, ['apply', '-f', first])).code).toBe(0);
    const same = await kubectl(server, ['diff', '-f', first]);
    expect(same.stderr).toBe('');
    expect(same.code).toBe(0);
    const changed = await manifest('diffed', { a: '2' });
    const r = await kubectl(server, ['diff', '-f', changed]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^-\s+a: "1"$/m);
    expect(r.stdout).toMatch(/^\+\s+a: "2"$/m);
  }, 90_000);

  test('apply --server-side --dry-run=server validates and persists nothing', async () => {
    const file = await manifest('ssa-dry', { k: 'v' });
    const r = await kubectl(server, ['apply', '--server-side', '--dry-run=server', '-f', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('configmap/ssa-dry serverside-applied (server dry run)');
    const get = await kubectl(server, ['get', 'configmap', 'ssa-dry']);
    expect(get.code).not.toBe(0);
    expect(get.stderr).toContain('NotFound');
  }, 90_000);
});

describe('/version as clients parse it', () => {
  test('kubectl version: the API level 1.25 with the stamped commit of this checkout', async () => {
    const r = await kubectl(server, ['version', '-o', 'json']);
    expect(r.code).toBe(0);
    const v = JSON.parse(r.stdout).serverVersion as Record<string, string>;
    const { execFileSync } = await import('node:child_process');
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    expect(v).toMatchObject({ major: '1', minor: '25', gitVersion: `v1.25.0+cluster.${head.slice(0, 14)}`, gitCommit: head, compiler: 'node' });
    expect(['clean', 'dirty']).toContain(v.gitTreeState);
    expect(v.buildDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(v.goVersion).toBe(process.version);
  }, 60_000);
});
