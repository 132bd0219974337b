import { auditLevelFor, parseAuditPolicy, ruleMatches, type AuditAttributes, type PolicyRule } from './policy.js';

const res = (over: Partial<AuditAttributes> = {}): AuditAttributes => ({
  username: 'alice',
  groups: ['devs', 'system:authenticated'],
  verb: 'get',
  isResourceRequest: true,
  apiGroup: '',
  resource: 'configmaps',
  subresource: '',
  namespace: 'default',
  name: 'x',
  path: '/api/v1/namespaces/default/configmaps/x',
  ...over,
});
const url = (path: string, verb = 'get'): AuditAttributes => res({ isResourceRequest: false, path, verb, resource: '', namespace: '', name: '', apiGroup: '' });

describe('ruleMatches', () => {
  test.each<[string, Omit<PolicyRule, 'level'>, AuditAttributes, boolean]>([
    ['an empty rule matches everything', {}, res(), true],
    ['users', { users: ['bob'] }, res(), false],
    ['userGroups', { userGroups: ['devs'] }, res(), true],
    ['verbs', { verbs: ['list', 'watch'] }, res(), false],
    ['namespaces', { namespaces: ['kube'] }, res(), false],
    ['"" namespace means cluster-scoped', { namespaces: [''] }, res({ namespace: '', resource: 'namespaces' }), true],
    ['resources by group', { resources: [{ group: 'apps' }] }, res(), false],
    ['resources by name', { resources: [{ group: '', resources: ['configmaps'] }] }, res(), true],
    ['a subresource needs its own entry', { resources: [{ resources: ['pods'] }] }, res({ resource: 'pods', subresource: 'log' }), false],
    ['resource/subresource', { resources: [{ resources: ['pods/log'] }] }, res({ resource: 'pods', subresource: 'log' }), true],
    ['*/subresource', { resources: [{ resources: ['*/status'] }] }, res({ resource: 'pods', subresource: 'status' }), true],
    ['resource/*', { resources: [{ resources: ['pods/*'] }] }, res({ resource: 'pods', subresource: 'exec' }), true],
    ['resourceNames', { resources: [{ resources: ['configmaps'], resourceNames: ['y'] }] }, res(), false],
    ['a resource rule never matches a URL', { resources: [{ resources: ['*'] }] }, url('/healthz'), false],
    ['a URL rule never matches a resource', { nonResourceURLs: ['*'] }, res(), false],
    ['URL prefix', { nonResourceURLs: ['/health*'] }, url('/healthz'), true],
    ['URL exact', { nonResourceURLs: ['/version'] }, url('/versions'), false],
  ])('%s', (_, rule, attrs, want) => {
    expect(ruleMatches({ level: 'Metadata', ...rule }, attrs)).toBe(want);
  });
});

describe('auditLevelFor', () => {
  const policy = parseAuditPolicy(
    [
      'apiVersion: audit.k8s.io/v1',
      'kind: Policy',
      'omitStages: [RequestReceived]',
      'rules:',
      '- level: None',
      '  users: [system:kube-proxy]',
      '- level: RequestResponse',
      '  resources: [{group: "", resources: [configmaps]}]',
      '  omitStages: [ResponseStarted]',
      '- level: Metadata',
    ].join('\n'),
    'k8s.io',
  );

  test('the first matching rule wins, with the policy\'s and the rule\'s omitted stages', () => {
    const r = auditLevelFor(policy, res());
    expect(r.level).toBe('RequestResponse');
    expect([...r.omitStages].sort()).toEqual(['RequestReceived', 'ResponseStarted']);
    expect(auditLevelFor(policy, res({ username: 'system:kube-proxy' })).level).toBe('None');
    expect(auditLevelFor(policy, url('/healthz')).level).toBe('Metadata');
  });

  test('no matching rule is None', () => {
    const p = parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  verbs: [create]\n', 'k8s.io');
    expect(auditLevelFor(p, res()).level).toBe('None');
  });
});

describe('parseAuditPolicy refuses', () => {
  test.each([
    ['another kind', 'apiVersion: audit.k8s.io/v1\nkind: Config\nrules: [{level: None}]', 'expected kind Policy'],
    ['another group', 'apiVersion: audit.example.com/v1\nkind: Policy\nrules: [{level: None}]', 'expected kind Policy in audit.k8s.io/v1'],
    ['no rules', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []', 'at least one rule'],
    ['an unknown level', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Everything}]', 'rules[0].level: unknown level "Everything"'],
    ['an unknown stage', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, omitStages: [Done]}]', 'unknown stage "Done"'],
    ['a mixed rule', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, namespaces: [a], nonResourceURLs: [/x]}]', 'both regular resources and non-resource URLs'],
    ['a * inside a URL', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, nonResourceURLs: ["/a*b"]}]', '* only allowed at the end'],
    ['bad YAML', 'rules: [', 'audit policy:'],
  ])('%s', (_, text, message) => {
    expect(() => parseAuditPolicy(text, 'k8s.io')).toThrow(message);
  });
});
