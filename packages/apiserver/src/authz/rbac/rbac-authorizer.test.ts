import type { RequestInfo } from '../../request/request-info.js';
import type { UserInfo } from '../../authn/user.js';
import type { RegistrySet } from '../../registry/registry-set.js';
import { RbacAuthorizer } from './rbac-authorizer.js';
import { escalationMessage } from './escalation.js';
import type { BindingObject, RoleObject, Subject } from './types.js';

const G = 'rbac.authorization.k8s.io';
const noRegistries = (): RegistrySet => {
  throw new Error('not used');
};
const info = (verb: string, resource: string, namespace = '', name = ''): RequestInfo => ({
  isResourceRequest: true, path: '', verb, apiPrefix: 'api', apiGroup: '', apiVersion: 'v1', namespace, resource, subresource: '', name, parts: [],
});
const u = (username: string, ...groups: string[]): UserInfo => ({ username, groups });
const crole = (name: string, resources: string[]): RoleObject => ({ metadata: { name }, rules: [{ verbs: ['get'], apiGroups: [''], resources }] });
const bind = (name: string, ref: { kind: string; name: string }, subjects: Subject[], namespace?: string): BindingObject => ({
  metadata: { name, ...(namespace ? { namespace } : {}) },
  roleRef: { apiGroup: G, ...ref },
  subjects,
});

function authorizer(): RbacAuthorizer {
  const a = new RbacAuthorizer(noRegistries, { apiDomain: 'k8s.io' });
  a.index.replaceAll('clusterroles', [crole('cm', ['configmaps']), crole('ns', ['namespaces'])]);
  a.index.replaceAll('roles', [{ metadata: { name: 'sec', namespace: 'a' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }] }]);
  a.index.replaceAll('clusterrolebindings', [
    bind('ns-group', { kind: 'ClusterRole', name: 'ns' }, [{ kind: 'Group', apiGroup: G, name: 'readers' }]),
    bind('sa-no-ns', { kind: 'ClusterRole', name: 'cm' }, [{ kind: 'ServiceAccount', name: 'lost' }]),
  ]);
  a.index.replaceAll('rolebindings', [
    bind('cm-in-a', { kind: 'ClusterRole', name: 'cm' }, [{ kind: 'User', apiGroup: G, name: 'ann' }, { kind: 'ServiceAccount', name: 'bot' }], 'a'),
    bind('sec-in-a', { kind: 'Role', name: 'sec' }, [{ kind: 'Group', apiGroup: G, name: 'system:unauthenticated' }], 'a'),
    bind('dangling', { kind: 'Role', name: 'gone' }, [{ kind: 'User', apiGroup: G, name: 'dan' }], 'a'),
  ]);
  return a;
}

describe('RbacAuthorizer', () => {
  test.each<[string, UserInfo, RequestInfo, string]>([
    ['role binding grants a cluster role in its namespace', u('ann'), info('get', 'configmaps', 'a'), 'allow'],
    ['not in another namespace', u('ann'), info('get', 'configmaps', 'b'), 'no-opinion'],
    ['not cluster-wide', u('ann'), info('get', 'configmaps'), 'no-opinion'],
    ['service account defaults to the binding namespace', u('system:serviceaccount:a:bot'), info('get', 'configmaps', 'a'), 'allow'],
    ['service account of another namespace', u('system:serviceaccount:b:bot'), info('get', 'configmaps', 'a'), 'no-opinion'],
    ['cluster binding SA without namespace matches nobody', u('system:serviceaccount::lost'), info('get', 'configmaps'), 'no-opinion'],
    ['cluster binding by group, any namespace', u('x', 'readers'), info('get', 'namespaces', 'zzz'), 'allow'],
    ['cluster binding by group, cluster scope', u('x', 'readers'), info('get', 'namespaces'), 'allow'],
    ['anonymous only by explicit grant', u('system:anonymous', 'system:unauthenticated'), info('get', 'secrets', 'a'), 'allow'],
    ['anonymous gets nothing else', u('system:anonymous', 'system:unauthenticated'), info('get', 'configmaps', 'a'), 'no-opinion'],
  ])('%s', async (_name, user, req, want) => {
    expect((await authorizer().authorize({ user, info: req })).decision).toBe(want);
  });

  test('a binding to a missing role gives the reason upstream gives', async () => {
    const d = await authorizer().authorize({ user: u('dan'), info: info('get', 'pods', 'a') });
    expect(d).toEqual({ decision: 'no-opinion', reason: `RBAC: role.${G} "gone" not found` });
  });

  test('changes invalidate the cached rule sets', async () => {
    const a = authorizer();
    const req = { user: u('eve'), info: info('get', 'configmaps', 'a') };
    expect((await a.authorize(req)).decision).toBe('no-opinion');
    const b = bind('eve', { kind: 'ClusterRole', name: 'cm' }, [{ kind: 'User', apiGroup: G, name: 'eve' }], 'a');
    a.index.upsert('rolebindings', b);
    expect((await a.authorize(req)).decision).toBe('allow');
    a.index.remove('rolebindings', b);
    expect((await a.authorize(req)).decision).toBe('no-opinion');
  });

  test('authorizeNow gives authorize\'s very answer, reason included, for every case', async () => {
    const a = authorizer();
    const cases: Array<[UserInfo, RequestInfo]> = [
      [u('ann'), info('get', 'configmaps', 'a')],
      [u('ann'), info('get', 'configmaps', 'b')],
      [u('ann'), info('get', 'configmaps')],
      [u('x', 'readers'), info('get', 'namespaces', 'zzz')],
      [u('dan'), info('get', 'pods', 'a')],
      [u('system:anonymous', 'system:unauthenticated'), info('get', 'secrets', 'a')],
    ];
    for (const [user, req] of cases) expect(a.authorizeNow({ user, info: req })).toEqual(await a.authorize({ user, info: req }));
  });

  test('authorizeNow sees every RBAC change at once, for a user object kept across requests', () => {
    const a = authorizer();
    // One object per connection, as the client-certificate authenticator keeps it.
    const eve = u('eve');
    const req = { user: eve, info: info('get', 'configmaps', 'a') };
    const other = { user: eve, info: info('get', 'configmaps', 'b') };
    expect(a.authorizeNow(req)?.decision).toBe('no-opinion');
    const b = bind('eve', { kind: 'ClusterRole', name: 'cm' }, [{ kind: 'User', apiGroup: G, name: 'eve' }], 'a');
    a.index.upsert('rolebindings', b);
    expect(a.authorizeNow(req)?.decision).toBe('allow');
    expect(a.authorizeNow(other)?.decision).toBe('no-opinion');
    // The role behind the binding loses the resource: denied at once.
    a.index.upsert('clusterroles', crole('cm', ['secrets']));
    expect(a.authorizeNow(req)?.decision).toBe('no-opinion');
    a.index.upsert('clusterroles', crole('cm', ['configmaps']));
    expect(a.authorizeNow(req)?.decision).toBe('allow');
    a.index.remove('rolebindings', b);
    expect(a.authorizeNow(req)?.decision).toBe('no-opinion');
  });

  test('a kept decision never answers for another name when a rule names objects, nor for another verb, resource or namespace', () => {
    const a = authorizer();
    const zed = u('zed');
    const onlyX: RoleObject = { metadata: { name: 'only-x' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['x'] }] };
    a.index.upsert('clusterroles', onlyX);
    a.index.upsert('rolebindings', bind('zed', { kind: 'ClusterRole', name: 'only-x' }, [{ kind: 'User', apiGroup: G, name: 'zed' }], 'a'));
    const ask = (verb: string, resource: string, namespace: string, name: string) => a.authorizeNow({ user: zed, info: info(verb, resource, namespace, name) })?.decision;
    for (let round = 0; round < 2; round++) {
      expect(ask('get', 'configmaps', 'a', 'x')).toBe('allow');
      expect(ask('get', 'configmaps', 'a', 'y')).toBe('no-opinion');
      expect(ask('list', 'configmaps', 'a', '')).toBe('no-opinion');
      expect(ask('get', 'secrets', 'a', 'x')).toBe('no-opinion');
      expect(ask('get', 'configmaps', 'b', 'x')).toBe('no-opinion');
    }
    // The rule stops naming objects: every name is allowed at once, for the same user object.
    a.index.upsert('clusterroles', { ...onlyX, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }] });
    expect(ask('get', 'configmaps', 'a', 'y')).toBe('allow');
    // ... and names count again once it names one.
    a.index.upsert('clusterroles', onlyX);
    expect(ask('get', 'configmaps', 'a', 'y')).toBe('no-opinion');
    expect(ask('get', 'configmaps', 'a', 'x')).toBe('allow');
  });

  test('a user object with other groups gets its own decisions', () => {
    const a = authorizer();
    const plain = u('x');
    const reader = u('x', 'readers');
    expect(a.authorizeNow({ user: plain, info: info('get', 'namespaces') })?.decision).toBe('no-opinion');
    expect(a.authorizeNow({ user: reader, info: info('get', 'namespaces') })?.decision).toBe('allow');
    expect(a.authorizeNow({ user: plain, info: info('get', 'namespaces') })?.decision).toBe('no-opinion');
  });

  test('authorizeNow does not answer before the RBAC kinds are listed', async () => {
    let listed!: () => void;
    const pending = new Promise<void>((resolve) => (listed = resolve));
    const a = authorizer();
    // As start() leaves it while its informers list.
    Object.assign(a, { synced: pending.then(() => Object.assign(a, { listed: true })) });
    const req = { user: u('ann'), info: info('get', 'configmaps', 'a') };
    expect(a.authorizeNow(req)).toBeUndefined();
    const later = a.authorize(req);
    listed();
    expect((await later).decision).toBe('allow');
    expect(a.authorizeNow(req)?.decision).toBe('allow');
  });

  test('rulesFor lists cluster and namespace rules, incomplete on a dangling binding', async () => {
    const a = authorizer();
    expect(await a.rulesFor(u('ann', 'readers'), 'a')).toEqual({
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['namespaces'] }, { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }],
      incomplete: false,
    });
    expect(await a.rulesFor(u('ann'), '')).toEqual({ rules: [], incomplete: false });
    expect((await a.rulesFor(u('dan'), 'a')).incomplete).toBe(true);
  });
});

describe('escalationMessage', () => {
  test('undefined when covered; upstream text otherwise', () => {
    const owner = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }];
    expect(escalationMessage(u('x'), owner, owner)).toBeUndefined();
    expect(escalationMessage(u('x', 'g1', 'g2'), owner, [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }, { verbs: ['get'], nonResourceURLs: ['/x'] }])).toBe(
      'user "x" (groups=["g1" "g2"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n{NonResourceURLs:["/x"], Verbs:["get"]}',
    );
  });
});
