import { impersonatedUser, impersonationRequests, parseImpersonationHeaders, serviceAccountOf } from './impersonation.js';

const AUTHN = 'authentication.k8s.io';

describe('parseImpersonationHeaders', () => {
  test('no Impersonate-* header: nothing asked', () => {
    expect(parseImpersonationHeaders({ authorization: ['Bearer x'], accept: ['application/json'] })).toBeUndefined();
  });

  test('every header, repeated groups and extras kept per line, extra names lower-cased and percent-decoded', () => {
    expect(
      parseImpersonationHeaders({
        'impersonate-user': ['jane'],
        'impersonate-group': ['devs', 'ops'],
        'impersonate-uid': ['1234'],
        'impersonate-extra-scopes': ['view', 'edit'],
        'impersonate-extra-acme.com%2Fproject': ['p1'],
        'Impersonate-Extra-Bad%ZZ': ['kept'],
      }),
    ).toEqual({
      user: 'jane',
      groups: ['devs', 'ops'],
      uid: '1234',
      extra: { scopes: ['view', 'edit'], 'acme.com/project': ['p1'], 'bad%zz': ['kept'] },
    });
  });
});

describe('serviceAccountOf', () => {
  test.each<[string, { namespace: string; name: string } | undefined]>([
    ['system:serviceaccount:idp:bot', { namespace: 'idp', name: 'bot' }],
    ['system:serviceaccount:idp:bot.v2', { namespace: 'idp', name: 'bot.v2' }],
    ['system:serviceaccount:idp', undefined],
    ['system:serviceaccount:idp:bot:extra', undefined],
    ['system:serviceaccount:IDP:bot', undefined],
    ['system:serviceaccount::bot', undefined],
    ['jane', undefined],
  ])('%s', (username, want) => {
    expect(serviceAccountOf(username)).toEqual(want);
  });
});

describe('impersonationRequests', () => {
  test('a user, its groups, extras and uid each need impersonate on their own resource, in that order', () => {
    const reqs = impersonationRequests({ user: 'jane', groups: ['devs'], uid: 'u1', extra: { scopes: ['view', 'edit'] } }, AUTHN);
    expect(reqs.map((r) => [r.apiGroup, r.resource, r.subresource, r.namespace, r.name])).toEqual([
      ['', 'users', '', '', 'jane'],
      ['', 'groups', '', '', 'devs'],
      [AUTHN, 'userextras', 'scopes', '', 'view'],
      [AUTHN, 'userextras', 'scopes', '', 'edit'],
      [AUTHN, 'uids', '', '', 'u1'],
    ]);
  });

  test('a service-account username is checked as the serviceaccount in its namespace', () => {
    const [r] = impersonationRequests({ user: 'system:serviceaccount:idp:bot', groups: [], extra: {} }, AUTHN);
    expect(r).toMatchObject({ resource: 'serviceaccounts', namespace: 'idp', name: 'bot' });
  });

  test.each([
    ['a group', { groups: ['system:masters'], extra: {} }, 'requested [Impersonate-Group: system:masters] without impersonating a user'],
    ['an extra', { groups: [], extra: { scopes: ['x'] } }, 'requested [Impersonate-Extra-scopes: x] without impersonating a user'],
    ['a uid', { groups: [], extra: {}, uid: 'u' }, 'requested [Impersonate-Uid: u] without impersonating a user'],
  ])('%s without a user is refused', (_, h, message) => {
    expect(() => impersonationRequests(h, AUTHN)).toThrow(message);
  });
});

describe('impersonatedUser', () => {
  test.each([
    ['a user gets system:authenticated', { user: 'jane', groups: ['devs'], extra: {} }, { username: 'jane', groups: ['devs', 'system:authenticated'] }],
    ['system:authenticated is not doubled', { user: 'jane', groups: ['system:authenticated'], extra: {} }, { username: 'jane', groups: ['system:authenticated'] }],
    ['anonymous gets system:unauthenticated', { user: 'system:anonymous', groups: [], extra: {} }, { username: 'system:anonymous', groups: ['system:unauthenticated'] }],
    [
      'a service account without groups gets its fixed groups',
      { user: 'system:serviceaccount:idp:bot', groups: [], extra: {} },
      { username: 'system:serviceaccount:idp:bot', groups: ['system:serviceaccounts', 'system:serviceaccounts:idp', 'system:authenticated'] },
    ],
    [
      'a service account with groups keeps only those',
      { user: 'system:serviceaccount:idp:bot', groups: ['g'], extra: {} },
      { username: 'system:serviceaccount:idp:bot', groups: ['g', 'system:authenticated'] },
    ],
    [
      'uid and extra are carried',
      { user: 'jane', groups: [], uid: 'u1', extra: { scopes: ['view'] } },
      { username: 'jane', uid: 'u1', groups: ['system:authenticated'], extra: { scopes: ['view'] } },
    ],
  ])('%s', (_, h, want) => {
    expect(impersonatedUser(h)).toEqual(want);
  });
});
