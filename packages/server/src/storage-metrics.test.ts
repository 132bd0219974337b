import { Registry } from 'prom-client';
import { registerStorageObjectsGauge, storageResourceLabel } from './storage-metrics.js';

describe('storageResourceLabel', () => {
  test.each([
    ['/registry/core/configmaps/', 'configmaps'],
    ['/registry/core/namespaces/', 'namespaces'],
    ['/registry/apps/deployments/', 'deployments.apps'],
    ['/registry/rbac.authorization.k8s.io/roles/', 'roles.rbac.authorization.k8s.io'],
    ['/registry/core/configmaps/default/', undefined],
    ['/registry/core/configmaps', undefined],
    ['/other/core/configmaps/', undefined],
  ])('%p -> %p', (prefix, label) => {
    expect(storageResourceLabel(prefix)).toBe(label);
  });
});

describe('apiserver_storage_objects', () => {
  test('each scrape reports the current counts and drops resources that went away', async () => {
    const registry = new Registry();
    let counts = new Map([
      ['/registry/core/configmaps/', 3],
      ['/registry/apps/deployments/', 1],
    ]);
    registerStorageObjectsGauge(registry, () => counts);
    let text = await registry.metrics();
    expect(text).toContain('apiserver_storage_objects{resource="configmaps"} 3');
    expect(text).toContain('apiserver_storage_objects{resource="deployments.apps"} 1');
    counts = new Map([['/registry/core/configmaps/', 5]]);
    text = await registry.metrics();
    expect(text).toContain('apiserver_storage_objects{resource="configmaps"} 5');
    expect(text).not.toContain('deployments.apps');
  });
});
