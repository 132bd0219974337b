import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { kubectl, startServerProcess, type ServerProcess } from './support/server-process.js';

let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess();
}, 60_000);
afterAll(async () => {
  const code = await server?.stop();
  // SIGTERM is a clean stop.
  expect(code).toBe(0);
}, 30_000);

test('the bare binary keeps AlwaysAllow and warns that other identities are then admins', () => {
  expect(server.output()).toContain('--authorization-mode includes AlwaysAllow while service-account tokens, x509 client certificates, the authenticating proxy authenticate');
});

const ok = async (args: string[]) => {
  const r = await kubectl(server, args);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
};

describe('stock kubectl against the server (issue: Foundation)', () => {
  test('create namespace and configmap (Protobuf bodies)', async () => {
    expect(await ok(['create', 'namespace', 'demo'])).toContain('namespace/demo created');
    expect(await ok(['create', 'configmap', 'one', '-n', 'demo', '--from-literal=a=b'])).toContain('configmap/one created');
  }, 60_000);

  test('get configmaps -A shows the table', async () => {
    const out = await ok(['get', 'configmaps', '-A']);
    expect(out).toMatch(/NAMESPACE\s+NAME\s+DATA\s+AGE/);
    expect(out).toMatch(/demo\s+one\s+1\s+/);
  }, 60_000);

  test('get -o yaml returns the stored object', async () => {
    const out = await ok(['get', 'configmap', 'one', '-n', 'demo', '-o', 'yaml']);
    expect(out).toContain('kind: ConfigMap');
    expect(out).toMatch(/data:\n\s+a: b/);
    expect(out).toMatch(/resourceVersion: "\d+"/);
  }, 60_000);

  test('apply -f creates, then applies a change', async () => {
    const file = join(server.dataDir, 'cm.yaml');
    const manifest = (value: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: demo\ndata:\n  key: ${value}\n`;
    await writeFile(file, manifest('first'));
    expect(await ok(['apply', '-f', file])).toContain('configmap/applied created');
    await writeFile(file, manifest('second'));
    expect(await ok(['apply', '-f', file])).toContain('configmap/applied configured');
    expect(await ok(['get', 'cm', 'applied', '-n', 'demo', '-o', 'jsonpath={.data.key}'])).toBe('second');
  }, 60_000);

  test('label adds a label', async () => {
    expect(await ok(['label', 'configmap', 'one', '-n', 'demo', 'tier=web'])).toContain('configmap/one labeled');
    expect(await ok(['get', 'cm', '-n', 'demo', '-l', 'tier=web', '-o', 'name'])).toBe('configmap/one\n');
  }, 60_000);

  test('delete removes the object', async () => {
    expect(await ok(['delete', 'configmap', 'one', '-n', 'demo'])).toContain('configmap "one" deleted');
    const r = await kubectl(server, ['get', 'configmap', 'one', '-n', 'demo']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('configmaps "one" not found');
  }, 60_000);

  test('delete namespace waits until it and its contents are gone', async () => {
    expect(await ok(['create', 'namespace', 'doomed'])).toContain('namespace/doomed created');
    await ok(['create', 'configmap', 'inside', '-n', 'doomed', '--from-literal=a=b']);
    expect(await ok(['delete', 'namespace', 'doomed', '--timeout=50s'])).toContain('namespace "doomed" deleted');
    const r = await kubectl(server, ['get', 'namespace', 'doomed']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('not found');
  }, 60_000);

  test('invalid objects are refused with the server message', async () => {
    const r = await kubectl(server, ['create', 'configmap', 'Bad_Name', '-n', 'demo', '--from-literal=a=b']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('is invalid');
  }, 60_000);
});
