import { chmod, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { kubectl, startServerProcess, type ServerProcess } from './support/server-process.js';

let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess(['--controllers=-namespace']);
}, 60_000);
afterAll(async () => {
  await server?.stop();
}, 30_000);

const ok = async (args: string[], env: Record<string, string> = {}) => {
  const r = await kubectl(server, args, env);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
};

const manifest = (name: string, data: Record<string, string>) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n${Object.entries(data)
    .map(([k, v]) => `  ${k}: "${v}"`)
    .join('\n')}\n`;

describe('kubectl writes (issue: patch, apply, dry-run, validation, Table, Protobuf)', () => {
  test('server-side apply, a conflicting manager, then --force-conflicts', async () => {
    const file = join(server.dataDir, 'ssa.yaml');
    await writeFile(file, manifest('ssa', { a: '1' }));
    expect(await ok(['apply', '--server-side', '-f', file, '--field-manager=mgr-a'])).toContain('configmap/ssa serverside-applied');
    await writeFile(file, manifest('ssa', { a: '2' }));
    const conflict = await kubectl(server, ['apply', '--server-side', '-f', file, '--field-manager=mgr-b']);
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain('conflict');
    expect(conflict.stderr).toContain('mgr-a');
    expect(await ok(['apply', '--server-side', '--force-conflicts', '-f', file, '--field-manager=mgr-b'])).toContain('serverside-applied');
    expect(await ok(['get', 'cm', 'ssa', '-o', 'jsonpath={.data.a}'])).toBe('2');
    const yaml = await ok(['get', 'cm', 'ssa', '-o', 'yaml', '--show-managed-fields']);
    expect(yaml).toContain('managedFields:');
    expect(yaml).toContain('manager: mgr-b');
    expect(yaml).toContain('operation: Apply');
  }, 60_000);

  test('client-side apply twice with a change (strategic merge patch)', async () => {
    const file = join(server.dataDir, 'csa.yaml');
    await writeFile(file, manifest('csa', { a: '1', b: '1' }));
    expect(await ok(['apply', '-f', file])).toContain('configmap/csa created');
    await writeFile(file, manifest('csa', { a: '2' }));
    expect(await ok(['apply', '-f', file])).toContain('configmap/csa configured');
    expect(JSON.parse(await ok(['get', 'cm', 'csa', '-o', 'jsonpath={.data}']))).toEqual({ a: '2' });
  }, 60_000);

  test('patch --type=merge, json and strategic', async () => {
    await ok(['create', 'configmap', 'patchme', '--from-literal=a=1']);
    await ok(['patch', 'configmap', 'patchme', '--type=merge', '-p', '{"data":{"b":"2"}}']);
    await ok(['patch', 'configmap', 'patchme', '--type=json', '-p', '[{"op":"replace","path":"/data/a","value":"10"}]']);
    await ok(['patch', 'configmap', 'patchme', '--type=strategic', '-p', '{"metadata":{"labels":{"x":"y"}}}']);
    const obj = JSON.parse(await ok(['get', 'cm', 'patchme', '-o', 'json']));
    expect(obj.data).toEqual({ a: '10', b: '2' });
    expect(obj.metadata.labels).toEqual({ x: 'y' });
    const failing = await kubectl(server, ['patch', 'configmap', 'patchme', '--type=json', '-p', '[{"op":"test","path":"/data/a","value":"nope"}]']);
    expect(failing.code).not.toBe(0);
    expect(JSON.parse(await ok(['get', 'cm', 'patchme', '-o', 'jsonpath={.data}']))).toEqual({ a: '10', b: '2' });
  }, 60_000);

  test('edit with EDITOR set to a script', async () => {
    await ok(['create', 'configmap', 'editme', '--from-literal=a=1']);
    const editor = join(server.dataDir, 'editor.sh');
    await writeFile(editor, '#!/bin/sh\nsed -i "s/a: \\"1\\"/a: \\"edited\\"/" "$1"\n');
    await chmod(editor, 0o755);
    expect(await ok(['edit', 'configmap', 'editme'], { EDITOR: editor, KUBE_EDITOR: editor })).toContain('configmap/editme edited');
    expect(await ok(['get', 'cm', 'editme', '-o', 'jsonpath={.data.a}'])).toBe('edited');
  }, 60_000);

  test('apply of a manifest with an unknown field fails (kubectl sends fieldValidation=Strict)', async () => {
    const file = join(server.dataDir, 'unknown.yaml');
    await writeFile(file, `${manifest('unknown', { a: '1' })}spec:\n  x: 1\n`);
    const r = await kubectl(server, ['apply', '-f', file]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('unknown field "spec"');
  }, 60_000);

  test('create --dry-run=server stores nothing', async () => {
    expect(await ok(['create', 'configmap', 'drycm', '--from-literal=a=1', '--dry-run=server'])).toContain('(server dry run)');
    const r = await kubectl(server, ['get', 'cm', 'drycm']);
    expect(r.code).not.toBe(0);
  }, 60_000);

  test('get configmaps prints the server table', async () => {
    const out = await ok(['get', 'configmaps']);
    expect(out.split('\n')[0]).toMatch(/^NAME\s+DATA\s+AGE$/);
    expect(out).toMatch(/patchme\s+2\s+\d+s/);
  }, 60_000);

  test('get configmaps -w shows live changes', async () => {
    const child = spawn('kubectl', ['get', 'configmaps', '-w', '--request-timeout=0'], {
      env: { ...process.env, KUBECONFIG: server.kubeconfig },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      const waitFor = async (text: string) => {
        const deadline = Date.now() + 20_000;
        while (!out.includes(text)) {
          if (Date.now() > deadline) throw new Error(`kubectl -w never printed ${text}; got:\n${out}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      await waitFor('patchme');
      await ok(['create', 'configmap', 'watched-live', '--from-literal=a=1']);
      await waitFor('watched-live');
    } finally {
      child.kill('SIGTERM');
    }
  }, 60_000);
});
