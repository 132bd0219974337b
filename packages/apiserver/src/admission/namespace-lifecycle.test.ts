import { newNotFound } from '@cluster/apimachinery';
import type { ResourceInfo } from '../registry/resource-info.js';
import type { AdmissionAttributes } from './admission.js';
import { namespaceLifecycle, type NamespaceGetter } from './namespace-lifecycle.js';

const info = (resource: string, namespaced: boolean): ResourceInfo => ({
  group: '',
  version: 'v1',
  resource,
  singularName: resource.slice(0, -1),
  kind: 'X',
  listKind: 'XList',
  namespaced,
  verbs: ['create', 'delete'],
  definitionName: 'X',
});
const attrs = (operation: AdmissionAttributes['operation'], resource: ResourceInfo, namespace: string, name: string): AdmissionAttributes => ({
  operation,
  resource,
  subresource: '',
  namespace,
  name,
  dryRun: false,
});
const configmaps = info('configmaps', true);
const namespaces = info('namespaces', false);
const active: NamespaceGetter = async () => ({ status: { phase: 'Active' }, metadata: {} });
const terminating: NamespaceGetter = async () => ({ status: { phase: 'Terminating' }, metadata: { deletionTimestamp: '2026-11-22T00:00:00Z' } });
const missing: NamespaceGetter = async (name) => {
  throw newNotFound({ group: '', resource: 'namespaces' }, name);
};

describe('NamespaceLifecycle admission', () => {
  test.each([
    ['an active namespace admits creates', active, undefined],
    ['a terminating namespace refuses them (403)', terminating, 403],
    ['a missing namespace refuses them (404)', missing, 404],
  ])('%s', async (_name, getter, code) => {
    const p = namespaceLifecycle(getter);
    const run = p.validate(attrs('CREATE', configmaps, 'ns', 'a'));
    if (code === undefined) await expect(run).resolves.toBeUndefined();
    else await expect(run).rejects.toMatchObject({ status: { code } });
  });

  test('built-in namespaces cannot be deleted', async () => {
    await expect(namespaceLifecycle(active).validate(attrs('DELETE', namespaces, '', 'default'))).rejects.toMatchObject({ status: { code: 403 } });
  });

  test('after this replica deletes a namespace, creates in it look it up live for 30 s, not in the (stale) cache', async () => {
    let clock = 1_000;
    const p = namespaceLifecycle(active, terminating, () => clock);
    await expect(p.validate(attrs('CREATE', configmaps, 'doomed', 'a'))).resolves.toBeUndefined();
    await p.validate(attrs('DELETE', namespaces, '', 'doomed'));
    await expect(p.validate(attrs('CREATE', configmaps, 'doomed', 'b'))).rejects.toMatchObject({ status: { code: 403 } });
    await expect(p.validate(attrs('CREATE', configmaps, 'other', 'b'))).resolves.toBeUndefined();
    clock += 30_001;
    await expect(p.validate(attrs('CREATE', configmaps, 'doomed', 'c'))).resolves.toBeUndefined();
  });
});
