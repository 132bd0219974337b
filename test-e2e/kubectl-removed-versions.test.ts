import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { kubectl as kubectlShared, startServerProcess, type ServerProcess } from './support/server-process.js';

// SPEC 9.4: stock kubectl 1.32 against removed versions served again with --runtime-config:
// apiextensions.k8s.io/v1beta1 CustomResourceDefinitions (the Warning line, create/apply/get of a
// v1beta1 manifest with its top-level schema under strict field validation against v1beta1's own
// OpenAPI, the same object through v1, custom resources validated by that top-level schema), and
// kubectl scale through apps/v1beta2 and extensions/v1beta1, whose scale answers their own Scale.
let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess(['--runtime-config=apiextensions.k8s.io/v1beta1=true,apps/v1beta2=true,extensions/v1beta1=true']);
}, 60_000);
afterAll(async () => {
  expect(await server?.stop()).toBe(0);
}, 30_000);

// A discovery cache of this server's own: one left by an earlier server on the same port would
// not know v1beta1.
const kubectl = (s: ServerProcess, args: string[]) => kubectlShared(s, args, { KUBECACHEDIR: join(s.dataDir, 'kube-cache') });
const WARNING = 'Warning: apiextensions.k8s.io/v1beta1 CustomResourceDefinition is deprecated in v1.16+, unavailable in v1.22+; use apiextensions.k8s.io/v1 CustomResourceDefinition';
const file = async (name: string, text: string) => {
  const path = join(server.dataDir, name);
  await writeFile(path, text);
  return path;
};
const CRD = `apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata:
  name: backups.legacy.example.com
spec:
  group: legacy.example.com
  version: v1
  scope: Namespaced
  names: {plural: backups, kind: Backup, shortNames: [bk]}
  preserveUnknownFields: false
  validation:
    openAPIV3Schema:
      type: object
      properties:
        spec:
          type: object
          required: [schedule]
          properties:
            schedule: {type: string, pattern: '^@(daily|hourly)$'}
            keep: {type: integer, minimum: 1, default: 7}
  subresources:
    status: {}
  additionalPrinterColumns:
  - {name: Schedule, type: string, JSONPath: .spec.schedule}
  - {name: Keep, type: integer, JSONPath: .spec.keep}
`;

test('kubectl creates a v1beta1 CRD with the Warning line; it reads through v1 with per-version fields', async () => {
  const created = await kubectl(server, ['create', '-f', await file('crd.yaml', CRD)]);
  expect(created.code).toBe(0);
  expect(created.stdout).toContain('customresourcedefinition.apiextensions.k8s.io/backups.legacy.example.com created');
  expect(created.stderr).toContain(WARNING);
  const old = await kubectl(server, ['get', 'customresourcedefinitions.v1beta1.apiextensions.k8s.io', 'backups.legacy.example.com', '-o', 'yaml']);
  expect(old.stderr).toContain(WARNING);
  const oldSpec = parseYaml(old.stdout).spec;
  expect(oldSpec).toMatchObject({ version: 'v1', additionalPrinterColumns: [{ name: 'Schedule', JSONPath: '.spec.schedule' }, { name: 'Keep', JSONPath: '.spec.keep' }] });
  expect(oldSpec.validation.openAPIV3Schema.properties.spec.required).toEqual(['schedule']);
  const v1 = await kubectl(server, ['get', 'crd', 'backups.legacy.example.com', '-o', 'yaml']);
  expect(v1.stderr).not.toContain('Warning');
  const version = parseYaml(v1.stdout).spec.versions[0];
  expect(version).toMatchObject({ name: 'v1', served: true, storage: true, subresources: { status: {} }, additionalPrinterColumns: [{ jsonPath: '.spec.schedule' }, { jsonPath: '.spec.keep' }] });
  expect(version.schema.openAPIV3Schema.properties.spec.properties.keep).toEqual({ type: 'integer', minimum: 1, default: 7 });
  const table = await kubectl(server, ['get', 'customresourcedefinitions.v1beta1.apiextensions.k8s.io']);
  expect(table.stdout).toMatch(/^NAME\s+CREATED AT\n/);
  expect(table.stdout).toContain('backups.legacy.example.com');
});

test('the top-level schema validates and defaults the custom resources kubectl writes', async () => {
  let served = false;
  for (let i = 0; i < 100 && !served; i++) {
    served = (await kubectl(server, ['get', 'backups', '-n', 'default'])).code === 0;
    if (!served) await new Promise((r) => setTimeout(r, 100));
  }
  expect(served).toBe(true);
  const bad = await kubectl(server, ['create', '-f', await file('bad.yaml', 'apiVersion: legacy.example.com/v1\nkind: Backup\nmetadata: {name: bad, namespace: default}\nspec: {schedule: often}\n')]);
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toContain('spec.schedule');
  const good = await kubectl(server, ['apply', '--server-side', '-f', await file('good.yaml', 'apiVersion: legacy.example.com/v1\nkind: Backup\nmetadata: {name: nightly, namespace: default}\nspec: {schedule: "@daily"}\n')]);
  expect(good.code).toBe(0);
  const table = await kubectl(server, ['get', 'bk', '-n', 'default']);
  expect(table.stdout).toMatch(/^NAME\s+SCHEDULE\s+KEEP\nnightly\s+@daily\s+7\n$/);
});

test('kubectl apply --server-side of a v1beta1 manifest updates the same CRD; bad v1beta1 input gets 422 naming the field', async () => {
  const changed = CRD.replace('shortNames: [bk]', 'shortNames: [bk, bks]');
  // kubectl create owns shortNames: the apply takes them over, as upstream's field manager has it.
  const applied = await kubectl(server, ['apply', '--server-side', '--force-conflicts', '-f', await file('crd2.yaml', changed)]);
  expect(applied.code).toBe(0);
  expect(applied.stderr).toContain(WARNING);
  const v1 = parseYaml((await kubectl(server, ['get', 'crd', 'backups.legacy.example.com', '-o', 'yaml'])).stdout);
  expect(v1.spec.names.shortNames).toEqual(['bk', 'bks']);
  expect(v1.spec.versions).toHaveLength(1);
  const unpruned = await kubectl(server, ['create', '-f', await file('crd3.yaml', CRD.replace(/backups/g, 'archives').replace('kind: Backup', 'kind: Archive').replace('shortNames: [bk]', 'shortNames: [ar]').replace('  preserveUnknownFields: false\n', ''))]);
  expect(unpruned.code).not.toBe(0);
  expect(unpruned.stderr).toContain('spec.preserveUnknownFields: Invalid value: true');
});

test('kubectl scale through apps/v1beta2 and extensions/v1beta1 sets the replicas of the apps/v1 Deployment', async () => {
  const created = await kubectl(server, ['create', 'deployment', 'web', '--image=nginx', '-n', 'default']);
  expect(created.code).toBe(0);
  const viaBeta2 = await kubectl(server, ['scale', 'deployments.v1beta2.apps', 'web', '--replicas=4', '-n', 'default']);
  expect(viaBeta2.stdout).toContain('scaled');
  expect(viaBeta2.stderr).toContain('Warning: apps/v1beta2 Deployment is deprecated in v1.9+, unavailable in v1.16+; use apps/v1 Deployment');
  const raw = await kubectl(server, ['get', '--raw', '/apis/apps/v1beta2/namespaces/default/deployments/web/scale']);
  expect(JSON.parse(raw.stdout)).toMatchObject({ apiVersion: 'apps/v1beta2', kind: 'Scale', spec: { replicas: 4 }, status: { selector: { app: 'web' }, targetSelector: 'app=web' } });
  const viaExtensions = await kubectl(server, ['scale', 'deployments.v1beta1.extensions', 'web', '--replicas=2', '-n', 'default']);
  expect(viaExtensions.stdout).toContain('scaled');
  const v1 = await kubectl(server, ['get', 'deployments.v1.apps', 'web', '-n', 'default', '-o', 'jsonpath={.spec.replicas}']);
  expect(v1.stdout).toBe('2');
});
