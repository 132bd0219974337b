import type { KubeObject } from '../meta/types.js';
import { calculateUsage, countedResource, evaluatorsFor } from './calculate-usage.js';
import { claimEvaluator, QuotaRegistry, serviceEvaluator } from './core-evaluators.js';
import { objectCountEvaluator, quotaMatches, type ResourceQuotaObject } from './evaluator.js';
import { podEvaluator, podMatchesScope, type QuotaPod } from './pods.js';
import { toResourceList, toUsage } from './resource-list.js';

const NOW = new Date('2030-01-01T00:00:00Z');
const res = (requests?: Record<string, string>, limits?: Record<string, string>) => ({ resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } });
const pod = (spec: QuotaPod['spec'] = {}, extra: Partial<QuotaPod> = {}): QuotaPod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', ...extra.metadata }, spec, ...(extra.status ? { status: extra.status } : {}) });
const usage = (obj: KubeObject) => toResourceList(podEvaluator.usage(obj, NOW));

// Cases after upstream's pods_test.go TestPodEvaluatorUsage.
describe('pod usage', () => {
  test.each<[string, QuotaPod, Record<string, string>]>([
    ['best effort: counts only', pod({ containers: [{}] }), { 'count/pods': '1', pods: '1' }],
    [
      'requests and limits',
      pod({ containers: [res({ cpu: '1m', memory: '1Mi', 'ephemeral-storage': '32Mi' }, { cpu: '2m', memory: '2Mi', 'ephemeral-storage': '64Mi' })] }),
      {
        'count/pods': '1',
        pods: '1',
        cpu: '1m',
        'requests.cpu': '1m',
        'limits.cpu': '2m',
        memory: '1Mi',
        'requests.memory': '1Mi',
        'limits.memory': '2Mi',
        'ephemeral-storage': '32Mi',
        'requests.ephemeral-storage': '32Mi',
        'limits.ephemeral-storage': '64Mi',
      },
    ],
    [
      'containers summed, the largest init container if larger, overhead added to both',
      pod({ containers: [res({ cpu: '100m' }, { cpu: '200m' }), res({ cpu: '300m' }, { cpu: '400m' })], initContainers: [res({ cpu: '1' }, { cpu: '500m' })], overhead: { cpu: '10m' } }),
      { 'count/pods': '1', pods: '1', cpu: '1010m', 'requests.cpu': '1010m', 'limits.cpu': '610m' },
    ],
    [
      'hugepages and extended resources',
      pod({ containers: [res({ 'hugepages-2Mi': '4Mi', 'example.com/dongle': '3' }, { 'example.com/dongle': '3' })] }),
      { 'count/pods': '1', pods: '1', 'hugepages-2Mi': '4Mi', 'requests.hugepages-2Mi': '4Mi', 'requests.example.com/dongle': '3' },
    ],
    ['terminal: only the object count', pod({ containers: [res({ cpu: '1' })] }, { status: { phase: 'Succeeded' } }), { 'count/pods': '1' }],
    [
      'past its deletion grace: only the object count',
      pod({ containers: [res({ cpu: '1' })] }, { metadata: { name: 'p', deletionTimestamp: '2029-12-31T23:59:00Z', deletionGracePeriodSeconds: 30 } }),
      { 'count/pods': '1' },
    ],
    [
      'within its deletion grace: still charged',
      pod({ containers: [res({ cpu: '1' })] }, { metadata: { name: 'p', deletionTimestamp: '2029-12-31T23:59:50Z', deletionGracePeriodSeconds: 30 } }),
      { 'count/pods': '1', pods: '1', cpu: '1', 'requests.cpu': '1' },
    ],
  ])('%s', (_name, p, want) => {
    expect(usage(p)).toEqual(toResourceList(toUsage(want)));
  });
});

describe('pod scopes', () => {
  const bestEffort = pod({ containers: [{}] });
  const burstable = pod({ containers: [res({ cpu: '100m' })] });
  const zeroOnly = pod({ containers: [res({ cpu: '0' }, { memory: '0' })] });
  const terminating = pod({ containers: [{}], activeDeadlineSeconds: 60 });
  const gold = pod({ containers: [{}], priorityClassName: 'gold' });
  test.each<[string, string, string | undefined, string[] | undefined, QuotaPod, boolean]>([
    ['BestEffort', 'BestEffort', 'Exists', undefined, bestEffort, true],
    ['BestEffort: a cpu request is not', 'BestEffort', 'Exists', undefined, burstable, false],
    ['BestEffort: zero requests do not count', 'BestEffort', 'Exists', undefined, zeroOnly, true],
    ['NotBestEffort', 'NotBestEffort', 'Exists', undefined, burstable, true],
    ['Terminating', 'Terminating', 'Exists', undefined, terminating, true],
    ['Terminating: no deadline', 'Terminating', 'Exists', undefined, bestEffort, false],
    ['NotTerminating', 'NotTerminating', 'Exists', undefined, bestEffort, true],
    ['PriorityClass Exists', 'PriorityClass', 'Exists', undefined, gold, true],
    ['PriorityClass Exists, none', 'PriorityClass', 'Exists', undefined, bestEffort, false],
    ['PriorityClass In', 'PriorityClass', 'In', ['gold', 'silver'], gold, true],
    ['PriorityClass In, other', 'PriorityClass', 'In', ['silver'], gold, false],
    ['PriorityClass NotIn, none', 'PriorityClass', 'NotIn', ['gold'], bestEffort, true],
    ['PriorityClass DoesNotExist', 'PriorityClass', 'DoesNotExist', undefined, bestEffort, true],
    ['CrossNamespacePodAffinity', 'CrossNamespacePodAffinity', 'Exists', undefined, pod({ affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ namespaces: ['a'] }] } } }), true],
    ['CrossNamespacePodAffinity: none', 'CrossNamespacePodAffinity', 'Exists', undefined, bestEffort, false],
  ])('%s', (_name, scopeName, operator, values, p, want) => {
    expect(podMatchesScope({ scopeName, ...(operator ? { operator } : {}), ...(values ? { values } : {}) }, p)).toBe(want);
  });

  test('an unknown operator is an error', () => {
    expect(() => podMatchesScope({ scopeName: 'PriorityClass', operator: 'Bogus' }, gold)).toThrow('not a valid scope selector operator');
  });
});

describe('pod constraints', () => {
  test.each<[string, string[], QuotaPod, string | undefined]>([
    ['cpu limited: each container must request cpu', ['cpu', 'pods'], pod({ containers: [res({ memory: '1Mi' })] }), 'must specify cpu'],
    ['all four', ['requests.cpu', 'limits.cpu', 'requests.memory', 'limits.memory'], pod({ containers: [{}] }), 'must specify limits.cpu,limits.memory,requests.cpu,requests.memory'],
    ['init containers too', ['limits.memory'], pod({ containers: [res(undefined, { memory: '1Mi' })], initContainers: [{}] }), 'must specify limits.memory'],
    ['ephemeral storage is not required', ['requests.ephemeral-storage'], pod({ containers: [{}] }), undefined],
    ['satisfied', ['cpu'], pod({ containers: [res({ cpu: '1' })] }), undefined],
  ])('%s', (_name, required, p, want) => {
    expect(podEvaluator.constraints(required, p)).toBe(want);
  });
});

describe('matching resources', () => {
  test('pods', () => {
    expect(podEvaluator.matchingResources(['pods', 'cpu', 'count/pods', 'secrets', 'requests.hugepages-1Gi', 'requests.example.com/gpu', 'requests.kubernetes.io/x']).sort()).toEqual(
      ['count/pods', 'cpu', 'pods', 'requests.example.com/gpu', 'requests.hugepages-1Gi'].sort(),
    );
  });
  test('services, claims, object counts', () => {
    expect(serviceEvaluator.matchingResources(['services', 'services.nodeports', 'pods', 'count/services'])).toEqual(['count/services', 'services', 'services.nodeports']);
    expect(claimEvaluator('k8s.io').matchingResources(['requests.storage', 'gold.storageclass.storage.k8s.io/persistentvolumeclaims', 'cpu'])).toEqual([
      'requests.storage',
      'gold.storageclass.storage.k8s.io/persistentvolumeclaims',
    ]);
    expect(objectCountEvaluator('', 'configmaps', 'configmaps').matchingResources(['configmaps', 'count/configmaps', 'secrets'])).toEqual(['configmaps', 'count/configmaps']);
  });
  test('count names', () => {
    expect(countedResource('count/replicasets.apps')).toEqual({ group: 'apps', resource: 'replicasets' });
    expect(countedResource('count/widgets.example.com')).toEqual({ group: 'example.com', resource: 'widgets' });
    expect(countedResource('count/pods')).toEqual({ group: '', resource: 'pods' });
    expect(countedResource('pods')).toBeUndefined();
  });
});

describe('service usage', () => {
  const svc = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec } as KubeObject);
  test.each<[string, Record<string, unknown>, Record<string, string>]>([
    ['ClusterIP', { type: 'ClusterIP', ports: [{ port: 80 }] }, { 'count/services': '1', services: '1', 'services.nodeports': '0', 'services.loadbalancers': '0' }],
    ['NodePort: one per port', { type: 'NodePort', ports: [{ port: 80 }, { port: 81 }] }, { 'count/services': '1', services: '1', 'services.nodeports': '2', 'services.loadbalancers': '0' }],
    ['LoadBalancer', { type: 'LoadBalancer', ports: [{ port: 80 }] }, { 'count/services': '1', services: '1', 'services.nodeports': '1', 'services.loadbalancers': '1' }],
    [
      'LoadBalancer without node port allocation: only explicit node ports',
      { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: 80, nodePort: 30001 }, { port: 81 }] },
      { 'count/services': '1', services: '1', 'services.nodeports': '1', 'services.loadbalancers': '1' },
    ],
  ])('%s', (_name, spec, want) => {
    expect(toResourceList(serviceEvaluator.usage(svc(spec), NOW))).toEqual(toResourceList(toUsage(want)));
  });
});

describe('registry', () => {
  const registry = new QuotaRegistry('k8s.io');
  test('special evaluators, legacy names, plain counts and ignored kinds', () => {
    expect(registry.evaluatorFor('', 'pods')).toBe(podEvaluator);
    expect(registry.evaluatorFor('', 'secrets')!.matchingResources(['secrets'])).toEqual(['secrets']);
    expect(registry.evaluatorFor('apps', 'replicasets')!.matchingResources(['count/replicasets.apps'])).toEqual(['count/replicasets.apps']);
    expect(registry.evaluatorFor('', 'events')).toBeUndefined();
    expect(registry.evaluatorFor('authorization.k8s.io', 'subjectaccessreviews')).toBeUndefined();
  });
});

describe('quotaMatches and calculateUsage', () => {
  const quota = (hard: Record<string, string>, extra: Partial<ResourceQuotaObject['spec']> = {}): ResourceQuotaObject => ({
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'q', namespace: 'ns' },
    spec: { hard, ...extra },
    status: { hard },
  });
  const registry = new QuotaRegistry('k8s.io');
  const builtin = registry.builtin();

  test('a scoped quota never matches object counts; a pod quota matches by scope', () => {
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    expect(quotaMatches(registry.evaluatorFor('', 'configmaps')!, quota({ configmaps: '1' }), cm)).toBe(true);
    expect(quotaMatches(registry.evaluatorFor('', 'configmaps')!, quota({ configmaps: '1' }, { scopes: ['BestEffort'] }), cm)).toBe(false);
    expect(quotaMatches(podEvaluator, quota({ pods: '1' }, { scopes: ['BestEffort'] }), pod({ containers: [{}] }))).toBe(true);
    expect(quotaMatches(podEvaluator, quota({ pods: '1' }, { scopes: ['NotBestEffort'] }), pod({ containers: [{}] }))).toBe(false);
    expect(quotaMatches(podEvaluator, quota({ secrets: '1' }), pod({ containers: [{}] }))).toBe(false);
  });

  test('usage summed over the listed objects in scope, zero where nothing uses it, unlisted kinds left out', () => {
    const rq = quota({ pods: '10', 'requests.cpu': '4', configmaps: '5', 'count/replicasets.apps': '3', 'count/widgets.example.com': '1' }, { scopes: ['NotTerminating'] });
    const evs = evaluatorsFor(Object.keys(rq.spec!.hard!), builtin, (g) => g === 'apps');
    const pods = [pod({ containers: [res({ cpu: '500m' })] }), pod({ containers: [res({ cpu: '1' })] }), pod({ containers: [res({ cpu: '2' })], activeDeadlineSeconds: 5 })];
    const used = calculateUsage(rq, evs, (ev) => (ev.resource === 'pods' ? pods : ev.resource === 'replicasets' ? undefined : []), NOW);
    // configmaps are object counts: a scoped quota does not count them (0); replicasets could not be listed; widgets are not served.
    expect(toResourceList(used)).toEqual({ configmaps: '0', pods: '2', 'requests.cpu': '1500m' });
  });
});
