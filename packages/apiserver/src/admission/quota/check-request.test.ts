import { QuotaRegistry, type KubeObject, type ResourceQuotaObject } from '@cluster/apimachinery';
import { checkRequest, QuotaRefusal, type QuotaRequest } from './check-request.js';

const NOW = new Date('2030-01-01T00:00:00Z');
const registry = new QuotaRegistry('k8s.io');
const quota = (name: string, hard: Record<string, string>, used?: Record<string, string>, spec: Partial<NonNullable<ResourceQuotaObject['spec']>> = {}): ResourceQuotaObject => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name, namespace: 'ns', resourceVersion: '5' },
  spec: { hard, ...spec },
  status: { hard, ...(used ? { used } : {}) },
});
const pod = (requests: Record<string, string> = {}, limits: Record<string, string> = {}): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', resources: { requests, limits } }] } }) as KubeObject;
const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } };
const svc = (type: string, ports = 1): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's', resourceVersion: '3' }, spec: { type, ports: Array.from({ length: ports }, (_, i) => ({ port: 80 + i })) } }) as KubeObject;
const create = (object: KubeObject): QuotaRequest => ({ operation: 'CREATE', namespace: 'ns', object });
const check = (quotas: ResourceQuotaObject[], req: QuotaRequest, resource: string) => checkRequest(quotas, req, registry.evaluatorFor('', resource)!, NOW);
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof QuotaRefusal) return e.message;
    throw e;
  }
  return undefined;
};

// Cases after upstream's admission_test.go.
describe('checkRequest', () => {
  test('charges every quota that limits the object, by what it uses', () => {
    const quotas = [quota('a', { configmaps: '3' }, { configmaps: '1' }), quota('b', { 'count/configmaps': '10' }, { 'count/configmaps': '4' }), quota('c', { secrets: '1' }, { secrets: '0' })];
    const out = check(quotas, create(cm), 'configmaps');
    expect(out.map((q) => q.status?.used)).toEqual([{ configmaps: '2' }, { 'count/configmaps': '5' }, { secrets: '0' }]);
    expect(out[2]).toBe(quotas[2]);
    expect(quotas[0]!.status!.used).toEqual({ configmaps: '1' });
  });

  test('the exact refusal: requested, used and limited of the exceeded resources only', () => {
    const quotas = [quota('compute', { cpu: '1', memory: '1Gi', pods: '10' }, { cpu: '500m', memory: '100Mi', pods: '1' })];
    expect(refusal(() => check(quotas, create(pod({ cpu: '600m', memory: '100Mi' })), 'pods'))).toBe(
      'exceeded quota: compute, requested: cpu=600m, used: cpu=500m, limited: cpu=1',
    );
    expect(refusal(() => check([quota('q', { configmaps: '2' }, { configmaps: '2' })], create(cm), 'configmaps'))).toBe(
      'exceeded quota: q, requested: configmaps=1, used: configmaps=2, limited: configmaps=2',
    );
  });

  test('several exceeded resources are listed in name order', () => {
    const quotas = [quota('q', { 'requests.cpu': '1', 'requests.memory': '1Gi', pods: '1' }, { 'requests.cpu': '1', 'requests.memory': '1Gi', pods: '0' })];
    expect(refusal(() => check(quotas, create(pod({ cpu: '1', memory: '1Mi' })), 'pods'))).toBe(
      'exceeded quota: q, requested: requests.cpu=1,requests.memory=1Mi, used: requests.cpu=1,requests.memory=1Gi, limited: requests.cpu=1,requests.memory=1Gi',
    );
  });

  test('usage not yet calculated for what the quota limits: refused', () => {
    expect(refusal(() => check([quota('q', { configmaps: '3', pods: '1' }, { pods: '0' })], create(cm), 'configmaps'))).toBe('status unknown for quota: q, resources: configmaps');
    // Usage missing only for what this object does not use: admitted.
    expect(check([quota('q', { configmaps: '3', pods: '1' }, { configmaps: '0' })], create(cm), 'configmaps')[0]!.status!.used).toEqual({ configmaps: '1' });
  });

  test("a pod must state what quota limits of cpu and memory (upstream's constraint)", () => {
    expect(refusal(() => check([quota('q', { 'limits.memory': '1Gi' }, { 'limits.memory': '0' })], create(pod({ memory: '1Mi' })), 'pods'))).toBe('failed quota: q: must specify limits.memory');
  });

  test('scopes: only quotas whose scopes hold for the pod are charged', () => {
    const quotas = [quota('be', { pods: '1' }, { pods: '0' }, { scopes: ['BestEffort'] }), quota('nbe', { pods: '1' }, { pods: '1' }, { scopes: ['NotBestEffort'] })];
    const out = check(quotas, create(pod()), 'pods');
    expect(out.map((q) => q.status?.used)).toEqual([{ pods: '1' }, { pods: '1' }]);
    expect(refusal(() => check(quotas, create(pod({ cpu: '1' })), 'pods'))).toBe('exceeded quota: nbe, requested: pods=1, used: pods=1, limited: pods=1');
  });

  test('a scope selector that cannot be read refuses', () => {
    const q = quota('q', { pods: '1' }, { pods: '0' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'Bogus' }] } });
    expect(refusal(() => check([q], create(pod()), 'pods'))).toMatch(/^error matching scopes of quota q, err: /);
  });

  test('updates are charged by the difference: a service becoming NodePort takes node ports', () => {
    const q = [quota('q', { 'services.nodeports': '1', services: '5' }, { 'services.nodeports': '0', services: '1' })];
    const up = (from: KubeObject, to: KubeObject): QuotaRequest => ({ operation: 'UPDATE', namespace: 'ns', object: to, oldObject: from });
    expect(check(q, up(svc('ClusterIP'), svc('NodePort')), 'services')[0]!.status!.used).toEqual({ 'services.nodeports': '1', services: '1' });
    expect(refusal(() => check(q, up(svc('ClusterIP'), svc('NodePort', 2)), 'services'))).toBe(
      'exceeded quota: q, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1',
    );
    // Nothing more used (or less): nothing charged, nothing given back.
    expect(check(q, up(svc('NodePort'), svc('ClusterIP')), 'services')).toBe(q);
  });

  test('pod updates and object-count updates charge nothing; unrelated quotas are left alone', () => {
    const q = [quota('q', { pods: '0', configmaps: '0' }, { pods: '0', configmaps: '0' })];
    expect(check(q, { operation: 'UPDATE', namespace: 'ns', object: pod(), oldObject: pod() }, 'pods')).toBe(q);
    expect(check(q, { operation: 'UPDATE', namespace: 'ns', object: cm, oldObject: cm }, 'configmaps')).toBe(q);
    expect(check([quota('q', { secrets: '0' }, { secrets: '0' })], create(cm), 'configmaps')).toEqual([quota('q', { secrets: '0' }, { secrets: '0' })]);
  });

  test('a negative request is refused', () => {
    expect(refusal(() => check([quota('q', { 'requests.cpu': '1' }, { 'requests.cpu': '0' })], create(pod({ cpu: '-1' }, {})), 'pods'))).toBe(
      'quota usage is negative for resource(s): cpu,requests.cpu',
    );
  });
});
