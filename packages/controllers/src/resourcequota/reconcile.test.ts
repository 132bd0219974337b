import { QuotaRegistry, toUsage, type KubeObject, type ResourceQuotaObject } from '@cluster/apimachinery';
import { planQuotaStatus, quotaNeedsSync, quotasToReplenish, replenishment, resourcesCounted, type QuotaStatusPlan } from './reconcile.js';

const NOW = new Date('2030-01-01T00:00:00Z');
const quota = (hard: Record<string, string>, status?: ResourceQuotaObject['status']): ResourceQuotaObject => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name: 'q', namespace: 'ns', resourceVersion: '9' },
  spec: { hard },
  ...(status ? { status } : {}),
});
const registry = new QuotaRegistry('k8s.io');
const builtin = registry.builtin();

describe('planQuotaStatus', () => {
  test.each<[string, ResourceQuotaObject, Record<string, string>, QuotaStatusPlan]>([
    [
      'first sync: hard copied, usage written',
      quota({ pods: '5', configmaps: '2' }),
      { pods: '1', configmaps: '0' },
      { op: 'update', object: quota({ pods: '5', configmaps: '2' }, { hard: { configmaps: '2', pods: '5' }, used: { configmaps: '0', pods: '1' } }) },
    ],
    ['nothing changed: no write', quota({ pods: '5' }, { hard: { pods: '5' }, used: { pods: '1' } }), { pods: '1' }, { op: 'none' }],
    ['same values in another form: no write', quota({ memory: '1Gi' }, { hard: { memory: '1024Mi' }, used: { memory: '0.5Gi' } }), { memory: '512Mi' }, { op: 'none' }],
    [
      'usage given back',
      quota({ pods: '5' }, { hard: { pods: '5' }, used: { pods: '3' } }),
      { pods: '2' },
      { op: 'update', object: quota({ pods: '5' }, { hard: { pods: '5' }, used: { pods: '2' } }) },
    ],
    [
      'a limit removed: its usage goes too; one not measured keeps its last value',
      quota({ pods: '5', 'count/widgets.example.com': '1' }, { hard: { pods: '5', secrets: '1', 'count/widgets.example.com': '1' }, used: { pods: '1', secrets: '1', 'count/widgets.example.com': '1' } }),
      { pods: '1' },
      {
        op: 'update',
        object: quota({ pods: '5', 'count/widgets.example.com': '1' }, { hard: { 'count/widgets.example.com': '1', pods: '5' }, used: { 'count/widgets.example.com': '1', pods: '1' } }),
      },
    ],
    [
      'a limit raised',
      quota({ pods: '10' }, { hard: { pods: '5' }, used: { pods: '1' } }),
      { pods: '1' },
      { op: 'update', object: quota({ pods: '10' }, { hard: { pods: '10' }, used: { pods: '1' } }) },
    ],
  ])('%s', (_name, rq, observed, want) => {
    expect(planQuotaStatus(rq, toUsage(observed))).toEqual(want);
  });
});

describe('quotaNeedsSync', () => {
  const measurable = (n: string) => builtin.some((e) => e.matchingResources([n]).length > 0);
  test.each<[string, ResourceQuotaObject, boolean]>([
    ['never synced', quota({ pods: '1' }), true],
    ['limits changed', quota({ pods: '2' }, { hard: { pods: '1' }, used: { pods: '0' } }), true],
    ['a measurable limit without usage', quota({ pods: '1' }, { hard: { pods: '1' }, used: {} }), true],
    ['an unmeasurable limit without usage', quota({ 'example.com/thing': '1' }, { hard: { 'example.com/thing': '1' }, used: {} }), false],
    ['only usage changed (a charge): nothing to do', quota({ pods: '2' }, { hard: { pods: '2' }, used: { pods: '1' } }), false],
  ])('%s', (_name, rq, want) => {
    expect(quotaNeedsSync(rq, measurable)).toBe(want);
  });
});

describe('replenishment', () => {
  const pod = (phase?: string): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', uid: 'u' }, spec: {}, ...(phase ? { status: { phase } } : {}) }) as KubeObject;
  const svc = (type: string): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { type } }) as KubeObject;
  const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
  test.each<[string, string, 'ADDED' | 'MODIFIED' | 'DELETED', KubeObject, string | undefined, { replenish: boolean; remember: string | undefined }]>([
    ['any deletion', 'configmaps', 'DELETED', cm, undefined, { replenish: true, remember: undefined }],
    ['a configmap changed: nothing', 'configmaps', 'MODIFIED', cm, undefined, { replenish: false, remember: undefined }],
    ['a pod created: charged by admission, nothing here', 'pods', 'ADDED', pod(), undefined, { replenish: false, remember: 'charged' }],
    ['a pod that succeeded', 'pods', 'MODIFIED', pod('Succeeded'), 'charged', { replenish: true, remember: 'free' }],
    ['a pod already free: once is enough', 'pods', 'MODIFIED', pod('Failed'), 'free', { replenish: false, remember: 'free' }],
    ['a running pod changed', 'pods', 'MODIFIED', pod('Running'), 'charged', { replenish: false, remember: 'charged' }],
    ['a service changing type', 'services', 'MODIFIED', svc('NodePort'), 'ClusterIP', { replenish: true, remember: 'NodePort' }],
    ['a service keeping its type', 'services', 'MODIFIED', svc('NodePort'), 'NodePort', { replenish: false, remember: 'NodePort' }],
  ])('%s', (_name, resource, type, obj, last, want) => {
    expect(replenishment(resource, type, obj, last, NOW)).toEqual(want);
  });
});

describe('which quotas and resources', () => {
  const a = quota({ pods: '1', 'requests.cpu': '1' }, { hard: { pods: '1', 'requests.cpu': '1' } });
  const b = quota({ configmaps: '1', 'count/replicasets.apps': '2', 'services.nodeports': '1' }, { hard: { configmaps: '1' } });
  test('quotas counting a resource', () => {
    expect(quotasToReplenish([a, b], registry.evaluatorFor('', 'pods')!)).toEqual([a]);
    expect(quotasToReplenish([a, b], registry.evaluatorFor('', 'configmaps')!)).toEqual([b]);
    expect(quotasToReplenish([a, b], registry.evaluatorFor('', 'secrets')!)).toEqual([]);
  });
  test('resources to watch', () => {
    expect([...resourcesCounted([a, b], builtin)].sort()).toEqual(['/configmaps', '/pods', '/services', 'apps/replicasets']);
  });
});
