import { flowControlBootstrap, type FlowSchema } from '@cluster/apimachinery';
import type { UserInfo } from '../authn/user.js';
import { FlowControl } from './flow-control.js';
import { classify, flowDistinguisher, matchesNonResourceRule, matchesResourceRule, matchesSubject, sortFlowSchemas, type ClassifiedRequest } from './classify.js';

const user = (username: string, ...groups: string[]): UserInfo => ({ username, groups: [...groups, 'system:authenticated'] });
const res = (verb: string, apiGroup: string, resource: string, namespace = '', subresource = ''): ClassifiedRequest => ({
  isResourceRequest: true,
  path: '',
  verb,
  apiGroup,
  resource,
  subresource,
  namespace,
});
const nonRes = (verb: string, path: string): ClassifiedRequest => ({ isResourceRequest: false, path, verb, apiGroup: '', resource: '', subresource: '', namespace: '' });

describe('subjects', () => {
  test.each([
    [{ kind: 'User', user: { name: 'bob' } }, user('bob'), true],
    [{ kind: 'User', user: { name: 'bob' } }, user('alice'), false],
    [{ kind: 'User', user: { name: '*' } }, user('alice'), true],
    [{ kind: 'Group', group: { name: 'devs' } }, user('alice', 'devs'), true],
    [{ kind: 'Group', group: { name: 'devs' } }, user('alice', 'ops'), false],
    [{ kind: 'Group', group: { name: '*' } }, user('alice'), true],
    [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'ns1', name: 'sa' } }, user('system:serviceaccount:ns1:sa'), true],
    [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'ns1', name: 'sa' } }, user('system:serviceaccount:ns2:sa'), false],
    [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'ns1', name: '*' } }, user('system:serviceaccount:ns1:other'), true],
    [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'ns1', name: '*' } }, user('ns1:other'), false],
    [{ kind: 'Robot' }, user('bob'), false],
  ])('%j matches %j: %s', (subject, u, want) => expect(matchesSubject(subject, u)).toBe(want));
});

describe('resource rules', () => {
  const rule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps', 'pods/log'], namespaces: ['a'] };
  test.each([
    [rule, res('get', '', 'configmaps', 'a'), true],
    [rule, res('watch', '', 'configmaps', 'a'), false],
    [rule, res('get', 'apps', 'configmaps', 'a'), false],
    [rule, res('get', '', 'configmaps', 'b'), false],
    [rule, res('get', '', 'configmaps', ''), false],
    [rule, res('get', '', 'pods', 'a', 'log'), true],
    [rule, res('get', '', 'pods', 'a'), false],
    [{ ...rule, clusterScope: true, namespaces: [] }, res('get', '', 'configmaps', ''), true],
    [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }, res('delete', 'x', 'y', 'z'), true],
    [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }, res('delete', 'x', 'y', ''), false],
  ])('%j matches %j: %s', (r, req, want) => expect(matchesResourceRule(r, req)).toBe(want));
});

describe('non-resource rules', () => {
  test.each([
    [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }, nonRes('get', '/healthz'), true],
    [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }, nonRes('get', '/healthz/etcd'), false],
    [{ verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, nonRes('get', '/healthz/etcd'), true],
    [{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }, nonRes('get', '/apis'), false],
    [{ verbs: ['post'], nonResourceURLs: ['*'] }, nonRes('get', '/x'), false],
    [{ verbs: ['*'], nonResourceURLs: ['*'] }, nonRes('post', '/x'), true],
  ])('%j matches %j: %s', (r, req, want) => expect(matchesNonResourceRule(r, req)).toBe(want));
});

describe('classification over the bootstrap configuration', () => {
  const b = flowControlBootstrap('k8s.io');
  const sorted = sortFlowSchemas([...b.mandatoryFlowSchemas, ...b.suggestedFlowSchemas]);
  const control = new FlowControl({ apiDomain: 'k8s.io', serverConcurrencyLimit: 600, queueWaitLimitMs: 1000 });
  const pick = (u: UserInfo, req: ClassifiedRequest) => classify(sorted, u, req, () => true)?.metadata.name;
  test.each([
    ['admin', user('admin', 'system:masters'), res('list', '', 'secrets'), 'exempt'],
    ['probe', { username: 'system:anonymous', groups: ['system:unauthenticated'] }, nonRes('get', '/readyz'), 'probes'],
    ['node status', user('system:node:n1', 'system:nodes'), res('patch', '', 'nodes', '', 'status'), 'system-node-high'],
    ['node lease', user('system:node:n1', 'system:nodes'), res('update', 'coordination.k8s.io', 'leases', 'kube-node-lease'), 'system-node-high'],
    ['node other', user('system:node:n1', 'system:nodes'), res('get', '', 'secrets', 'default'), 'system-nodes'],
    ['controller lease', user('system:kube-controller-manager'), res('update', 'coordination.k8s.io', 'leases', 'cluster-system'), 'system-leader-election'],
    ['controller manager', user('system:kube-controller-manager'), res('list', 'apps', 'deployments'), 'kube-controller-manager'],
    ['system SA', user('system:serviceaccount:cluster-system:x', 'system:serviceaccounts'), res('list', '', 'pods'), 'kube-system-service-accounts'],
    ['other SA', user('system:serviceaccount:default:x', 'system:serviceaccounts'), res('list', '', 'pods'), 'service-accounts'],
    ['user', user('bob'), res('get', '', 'configmaps', 'default'), 'global-default'],
    ['anonymous', { username: 'system:anonymous', groups: ['system:unauthenticated'] }, nonRes('get', '/version'), 'global-default'],
  ])('%s -> %s', (_name, u, req, want) => {
    expect(pick(u, req)).toBe(want);
    // The compiled matchers of the request path decide the same.
    expect(control.classify(u, req)?.flowSchema).toBe(want);
  });

  test('a schema whose level is unusable is skipped: the next one matches', () => {
    const name = classify(sorted, user('bob'), res('get', '', 'configmaps', 'default'), (fs) => fs.metadata.name !== 'global-default')?.metadata.name;
    expect(name).toBe('catch-all');
  });

  test('matching order: precedence, then name', () => {
    const fs = (name: string, p: number): FlowSchema => ({ metadata: { name }, spec: { matchingPrecedence: p } });
    expect(sortFlowSchemas([fs('b', 10), fs('a', 10), fs('c', 5)]).map((f) => f.metadata.name)).toEqual(['c', 'a', 'b']);
  });

  test('distinguishers', () => {
    const req = res('get', '', 'configmaps', 'ns1');
    expect(flowDistinguisher({ metadata: {}, spec: { distinguisherMethod: { type: 'ByUser' } } }, user('bob'), req)).toBe('bob');
    expect(flowDistinguisher({ metadata: {}, spec: { distinguisherMethod: { type: 'ByNamespace' } } }, user('bob'), req)).toBe('ns1');
    expect(flowDistinguisher({ metadata: {}, spec: {} }, user('bob'), req)).toBe('');
  });
});
