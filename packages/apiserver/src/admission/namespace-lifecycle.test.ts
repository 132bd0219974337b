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
    // A plugin may throw or reject (the runners take both): this one decides at once.
    expect(() => namespaceLifecycle(active).validate(attrs('DELETE', namespaces, '', 'default'))).toThrow(expect.objectContaining({ status: expect.objectContaining({ code: 403 }) }));
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

  test('a namespace the cache holds decides a create at once, with no lookup and no promise', () => {
    const unused: NamespaceGetter = () => Promise.reject(new Error('must not be read'));
    const cache = new Map([
      ['ns', { status: { phase: 'Active' }, metadata: {} }],
      ['going', { status: { phase: 'Active' }, metadata: { deletionTimestamp: '2026-11-22T00:00:00Z' } }],
      ['gone', { status: { phase: 'Terminating' }, metadata: {} }],
    ]);
    const p = namespaceLifecycle(unused, unused, Date.now, (name) => cache.get(name));
    expect(p.validate(attrs('CREATE', configmaps, 'ns', 'a'))).toBeUndefined();
    for (const ns of ['going', 'gone']) {
      expect(() => p.validate(attrs('CREATE', configmaps, ns, 'a'))).toThrow(`unable to create new content in namespace ${ns} because it is being terminated`);
    }
  });

  test('a namespace the cache does not hold is looked up as before (404 when missing)', async () => {
    const p = namespaceLifecycle(missing, missing, Date.now, () => undefined);
    await expect(p.validate(attrs('CREATE', configmaps, 'ns', 'a'))).rejects.toMatchObject({ status: { code: 404 } });
    const q = namespaceLifecycle(active, active, Date.now, () => undefined);
    await expect(q.validate(attrs('CREATE', configmaps, 'ns', 'a'))).resolves.toBeUndefined();
  });

  test('after this replica deletes a namespace, creates in it skip the cache too and look it up live', async () => {
    let clock = 1_000;
    const p = namespaceLifecycle(active, terminating, () => clock, () => ({ status: { phase: 'Active' }, metadata: {} }));
    expect(p.validate(attrs('CREATE', configmaps, 'doomed', 'a'))).toBeUndefined();
    p.validate(attrs('DELETE', namespaces, '', 'doomed'));
    await expect(p.validate(attrs('CREATE', configmaps, 'doomed', 'b'))).rejects.toMatchObject({ status: { code: 403 } });
    expect(p.validate(attrs('CREATE', configmaps, 'other', 'b'))).toBeUndefined();
    clock += 30_001;
    expect(p.validate(attrs('CREATE', configmaps, 'doomed', 'c'))).toBeUndefined();
  });
});
