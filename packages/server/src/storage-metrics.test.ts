import { Registry } from 'prom-client';
import { registerEtcdRequestHistogram, registerStorageObjectsGauge, storageResourceLabel } from './storage-metrics.js';

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

describe('etcd_request_duration_seconds', () => {
  test('each request is counted by operation and resource; keys outside a resource are not', async () => {
    const registry = new Registry();
    const observe = registerEtcdRequestHistogram(registry);
    observe('get', '/registry/core/configmaps/default/one', 0.003);
    observe('get', '/registry/core/configmaps/default/two', 0.03);
    observe('list', '/registry/apps/deployments/', 0.2);
    observe('count', '/registry/health-probe', 0.001);
    const text = await registry.metrics();
    expect(text).toContain('etcd_request_duration_seconds_count{operation="get",type="configmaps"} 2');
    expect(text).toContain('etcd_request_duration_seconds_bucket{le="0.005",operation="get",type="configmaps"} 1');
    expect(text).toContain('etcd_request_duration_seconds_bucket{le="0.05",operation="get",type="configmaps"} 2');
    expect(text).toContain('etcd_request_duration_seconds_count{operation="list",type="deployments.apps"} 1');
    expect(text).not.toContain('operation="count"');
  });
});
