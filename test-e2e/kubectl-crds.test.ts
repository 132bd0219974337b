import { spawn } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  makeInformer,
  setHeaderOptions,
  type KubernetesObject,
  type KubernetesListObject,
} from '@kubernetes/client-node';
import { kubectl, startServerProcess, type ServerProcess } from './support/server-process.js';

// Issue 21: stock kubectl and @kubernetes/client-node against custom resources.

let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess();
}, 60_000);
afterAll(async () => {
  expect(await server?.stop()).toBe(0);
}, 30_000);

const ok = async (args: string[], env: Record<string, string> = {}) => {
  const r = await kubectl(server, args, env);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
};
const file = async (name: string, text: string) => {
  const path = join(server.dataDir, name);
  await writeFile(path, text);
  return path;
};

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.e2e.example.com
spec:
  group: e2e.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wg]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Color, type: string, jsonPath: .spec.color}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        description: A widget for the end-to-end suite.
        properties:
          spec:
            type: object
            description: Desired state of the widget.
            properties:
              size: {type: integer, minimum: 1, maximum: 10, description: How big the widget is.}
              replicas: {type: integer}
              color: {type: string, enum: [red, blue]}
              parts:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    count: {type: integer}
          status:
            type: object
            properties:
              ready: {type: boolean}
              replicas: {type: integer}
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;

const widget = (name: string, spec: string) => `apiVersion: e2e.example.com/v1\nkind: Widget\nmetadata:\n  name: ${name}\nspec:\n${spec}`;

describe('custom resources with kubectl and client-node (issue 21)', () => {
  test('apply a CRD with two versions; it becomes established', async () => {
    expect(await ok(['apply', '-f', await file('crd.yaml', CRD)])).toContain('customresourcedefinition.apiextensions.k8s.io/widgets.e2e.example.com created');
    expect(await ok(['wait', '--for=condition=Established', 'crd/widgets.e2e.example.com', '--timeout=30s'])).toContain('condition met');
    expect(await ok(['api-resources', '--api-group=e2e.example.com'])).toMatch(/widgets\s+wg\s+e2e.example.com\/v1\s+true\s+Widget/);
  }, 60_000);

  test('apply objects; get shows the printer columns; other versions read the same objects', async () => {
    expect(await ok(['apply', '-f', await file('w1.yaml', widget('small', '  size: 2\n  color: red\n'))])).toContain('widget.e2e.example.com/small created');
    const table = await ok(['get', 'widgets']);
    expect(table).toMatch(/NAME\s+SIZE\s+COLOR\s+AGE/);
    expect(table).toMatch(/small\s+2\s+red\s+\d+s/);
    expect(await ok(['get', 'wg', 'small', '-o', 'jsonpath={.spec.size}'])).toBe('2');
    expect(await ok(['get', 'widgets.v1beta1.e2e.example.com', 'small', '-o', 'jsonpath={.apiVersion}'])).toBe('e2e.example.com/v1beta1');
  }, 60_000);

  test('an invalid object is rejected with 422 naming the field', async () => {
    const r = await kubectl(server, ['apply', '-f', await file('bad.yaml', widget('bad', '  size: 20\n  color: green\n'))]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('The Widget "bad" is invalid');
    expect(r.stderr).toContain('spec.size: Invalid value: 20: spec.size in body should be less than or equal to 10');
    expect(r.stderr).toContain('spec.color: Unsupported value: "green": supported values: "red", "blue"');
  }, 60_000);

  test('apply --server-side with two managers merges list-map entries and reports conflicts', async () => {
    const first = await file('ssa1.yaml', widget('shared', '  size: 3\n  parts:\n  - name: bolt\n    count: 4\n'));
    const second = await file('ssa2.yaml', widget('shared', '  parts:\n  - name: nut\n    count: 8\n'));
    expect(await ok(['apply', '--server-side', '--field-manager=alpha', '-f', first])).toContain('serverside-applied');
    expect(await ok(['apply', '--server-side', '--field-manager=beta', '-f', second])).toContain('serverside-applied');
    expect(JSON.parse(await ok(['get', 'widget', 'shared', '-o', 'jsonpath={.spec.parts}']))).toEqual([
      { name: 'bolt', count: 4 },
      { name: 'nut', count: 8 },
    ]);
    const managers = await ok(['get', 'widget', 'shared', '--show-managed-fields', '-o', 'jsonpath={.metadata.managedFields[*].manager}']);
    expect(managers.split(' ').sort()).toEqual(['alpha', 'beta']);
    const clash = await kubectl(server, ['apply', '--server-side', '--field-manager=beta', '-f', await file('ssa3.yaml', widget('shared', '  size: 5\n'))]);
    expect(clash.code).not.toBe(0);
    expect(clash.stderr).toContain('conflict with "alpha"');
  }, 60_000);

  test('explain reads the published schema', async () => {
    const out = await ok(['explain', 'widgets.spec']);
    expect(out).toContain('Desired state of the widget.');
    expect(out).toMatch(/size\s+<integer>/);
    expect(out).toContain('How big the widget is.');
    expect(out).toMatch(/parts\s+<\[\]Object>/);
  }, 60_000);

  test('explain <crd>.metadata prints ObjectMeta as upstream conformance expects (v2 and v3)', async () => {
    // The regex of upstream's "CustomResourcePublishOpenAPI works for CRD with validation schema".
    const upstream = /DESCRIPTION:.*Standard object's metadata.*FIELDS:.*creationTimestamp.*<string>.*CreationTimestamp is a timestamp/s;
    expect(await ok(['explain', 'widgets.metadata', '--output=plaintext-openapiv2'])).toMatch(upstream);
    expect(await ok(['explain', 'widgets.metadata'])).toMatch(upstream);
  }, 60_000);

  test('edit changes an object through an editor', async () => {
    const editor = join(server.dataDir, 'editor.sh');
    await writeFile(editor, '#!/bin/sh\nsed -i "s/size: 2/size: 7/" "$1"\n');
    await chmod(editor, 0o755);
    expect(await ok(['edit', 'widget', 'small'], { KUBE_EDITOR: editor, EDITOR: editor })).toContain('widget.e2e.example.com/small edited');
    expect(await ok(['get', 'widget', 'small', '-o', 'jsonpath={.spec.size}'])).toBe('7');
  }, 60_000);

  test('scale writes the replicas through the scale subresource', async () => {
    expect(await ok(['scale', 'widget', 'small', '--replicas=3'])).toContain('widget.e2e.example.com/small scaled');
    expect(await ok(['get', 'widget', 'small', '-o', 'jsonpath={.spec.replicas}'])).toBe('3');
  }, 60_000);

  test('get -w streams a change (bounded)', async () => {
    const child = spawn('kubectl', ['get', 'widgets', '-w', '--request-timeout=20s'], { env: { ...process.env, KUBECONFIG: server.kubeconfig } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await until(() => out.includes('small'), 20_000);
      await ok(['patch', 'widget', 'small', '--type=merge', '-p', '{"spec":{"color":"blue"}}']);
      await until(() => /small\s+7\s+blue/.test(out), 20_000);
    } finally {
      child.kill('SIGTERM');
    }
  }, 60_000);

  test('CustomObjectsApi and an informer work against it', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const api = kc.makeApiClient(CustomObjectsApi);
    const base = { group: 'e2e.example.com', version: 'v1', namespace: 'default', plural: 'widgets' };
    const seen = new Map<string, KubernetesObject>();
    const informer = makeInformer<KubernetesObject>(kc, '/apis/e2e.example.com/v1/namespaces/default/widgets', () =>
      api.listNamespacedCustomObject(base) as Promise<KubernetesListObject<KubernetesObject>>,
    );
    informer.on('add', (o) => seen.set(o.metadata!.name!, o));
    informer.on('update', (o) => seen.set(o.metadata!.name!, o));
    informer.on('delete', (o) => seen.delete(o.metadata!.name!));
    await informer.start();
    try {
      const created = await api.createNamespacedCustomObject({
        ...base,
        body: { apiVersion: 'e2e.example.com/v1', kind: 'Widget', metadata: { name: 'from-node' }, spec: { size: 1 } },
      });
      expect(created.metadata.name).toBe('from-node');
      const got = await api.getNamespacedCustomObject({ ...base, name: 'from-node' });
      expect(got.spec).toEqual({ size: 1 });
      const patched = await api.patchNamespacedCustomObject(
        { ...base, name: 'from-node', body: { spec: { color: 'blue' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      expect(patched.spec).toEqual({ size: 1, color: 'blue' });
      const list = await api.listNamespacedCustomObject(base);
      expect(list.items.map((i: KubernetesObject) => i.metadata!.name).sort()).toEqual(['from-node', 'shared', 'small']);
      await until(() => (seen.get('from-node') as { spec?: { color?: string } } | undefined)?.spec?.color === 'blue', 20_000);
      await api.deleteNamespacedCustomObject({ ...base, name: 'from-node' });
      await until(() => !seen.has('from-node'), 20_000);
    } finally {
      await informer.stop();
    }
  }, 60_000);

  test('deleting the CRD removes its objects and its discovery entries', async () => {
    expect(await ok(['delete', 'crd', 'widgets.e2e.example.com'])).toContain('deleted');
    expect(await ok(['api-resources', '--api-group=e2e.example.com'])).not.toContain('widgets');
    const get = await kubectl(server, ['get', 'widgets']);
    expect(get.code).not.toBe(0);
    expect(get.stderr).toContain(`the server doesn't have a resource type "widgets"`);
    const raw = await kubectl(server, ['get', '--raw', '/apis/e2e.example.com/v1']);
    expect(raw.code).not.toBe(0);
    // Objects are gone from storage: the same CRD applied again starts empty.
    await ok(['apply', '-f', join(server.dataDir, 'crd.yaml')]);
    await ok(['wait', '--for=condition=Established', 'crd/widgets.e2e.example.com', '--timeout=30s']);
    expect((await kubectl(server, ['get', 'widgets'])).stderr).toContain('No resources found');
  }, 60_000);
});

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}
