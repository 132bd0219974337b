import { ruleAllows, type RuleRequest } from './matching.js';
import type { PolicyRule } from './types.js';

const res = (verb: string, apiGroup: string, resource: string, subresource = '', name = ''): RuleRequest => ({
  isResourceRequest: true, verb, apiGroup, resource, subresource, name, path: '',
});
const url = (verb: string, path: string): RuleRequest => ({ isResourceRequest: false, verb, apiGroup: '', resource: '', subresource: '', name: '', path });

describe('ruleAllows (upstream RuleAllows)', () => {
  test.each<[string, PolicyRule, RuleRequest, boolean]>([
    ['exact', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('get', '', 'pods'), true],
    ['other verb', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('list', '', 'pods'), false],
    ['verb *', { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, res('delete', '', 'pods'), true],
    ['other group', { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] }, res('get', '', 'pods'), false],
    ['group *', { verbs: ['get'], apiGroups: ['*'], resources: ['pods'] }, res('get', 'apps', 'pods'), true],
    ['resource *', { verbs: ['get'], apiGroups: [''], resources: ['*'] }, res('get', '', 'secrets', 'status'), true],
    ['resource does not cover subresource', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('get', '', 'pods', 'log'), false],
    ['resource/subresource', { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, res('get', '', 'pods', 'log'), true],
    ['resource/subresource not the resource', { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, res('get', '', 'pods'), false],
    ['*/subresource', { verbs: ['get'], apiGroups: [''], resources: ['*/status'] }, res('get', '', 'nodes', 'status'), true],
    ['*/subresource other sub', { verbs: ['get'], apiGroups: [''], resources: ['*/status'] }, res('get', '', 'nodes', 'proxy'), false],
    ['*/subresource not a resource', { verbs: ['get'], apiGroups: [''], resources: ['*/status'] }, res('get', '', 'nodes'), false],
    ['resourceNames hit', { verbs: ['get'], apiGroups: [''], resources: ['cm'], resourceNames: ['a'] }, res('get', '', 'cm', '', 'a'), true],
    ['resourceNames miss', { verbs: ['get'], apiGroups: [''], resources: ['cm'], resourceNames: ['a'] }, res('get', '', 'cm', '', 'b'), false],
    ['resourceNames never allow list', { verbs: ['list'], apiGroups: [''], resources: ['cm'], resourceNames: ['a'] }, res('list', '', 'cm'), false],
    ['resourceNames never allow create', { verbs: ['create'], apiGroups: [''], resources: ['cm'], resourceNames: ['a'] }, res('create', '', 'cm'), false],
    ['url exact', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, url('get', '/healthz'), true],
    ['url not a prefix', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, url('get', '/healthz/etcd'), false],
    ['url star suffix', { verbs: ['get'], nonResourceURLs: ['/healthz*'] }, url('get', '/healthz/etcd'), true],
    ['url *', { verbs: ['get'], nonResourceURLs: ['*'] }, url('get', '/anything'), true],
    ['url verb', { verbs: ['get'], nonResourceURLs: ['*'] }, url('post', '/anything'), false],
    ['resource rule never grants a URL', { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, url('get', '/version'), false],
    ['URL rule never grants a resource', { verbs: ['*'], nonResourceURLs: ['*'] }, res('get', '', 'pods'), false],
  ])('%s', (_name, rule, req, want) => {
    expect(ruleAllows(req, rule)).toBe(want);
  });
});
