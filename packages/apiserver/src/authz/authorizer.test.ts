import type { RequestInfo } from '../request/request-info.js';
import type { UserInfo } from '../authn/user.js';
import { alwaysAllow, alwaysDeny, privilegedGroup, UnionAuthorizer, type Authorizer, type Verdict } from './authorizer.js';

const info: RequestInfo = {
  isResourceRequest: true, path: '/api/v1/namespaces/a/configmaps/x', verb: 'get', apiPrefix: 'api', apiGroup: '', apiVersion: 'v1', namespace: 'a', resource: 'configmaps', subresource: '', name: 'x', parts: [],
};
const user = (...groups: string[]): UserInfo => ({ username: 'u', groups });

/** An authorizer that answers only through a promise (as one that must ask elsewhere would). */
const onlyAsync = (d: Verdict): Authorizer => ({ authorize: async () => d });
const fixed = (d: Verdict): Authorizer => ({ authorize: async () => d, authorizeNow: () => d });

describe('UnionAuthorizer.authorizeNow', () => {
  test.each<[string, Authorizer[], UserInfo, Verdict | undefined]>([
    ['the first allow decides', [privilegedGroup, alwaysAllow], user(), { decision: 'allow', reason: '' }],
    ['the privileged group first', [privilegedGroup, alwaysDeny], user('system:masters'), { decision: 'allow', reason: '' }],
    ['a deny decides', [privilegedGroup, alwaysDeny, alwaysAllow], user(), { decision: 'deny', reason: '' }],
    ['no opinion from all keeps the last reason', [fixed({ decision: 'no-opinion', reason: 'r1' }), fixed({ decision: 'no-opinion', reason: 'r2' })], user(), { decision: 'no-opinion', reason: 'r2' }],
    ['one that cannot answer at once: no answer', [privilegedGroup, onlyAsync({ decision: 'allow', reason: '' })], user(), undefined],
    ['one that cannot answer after a decision: the decision', [alwaysAllow, onlyAsync({ decision: 'deny', reason: '' })], user(), { decision: 'allow', reason: '' }],
  ])('%s, and the same as authorize', async (_name, members, u, want) => {
    const union = new UnionAuthorizer(members);
    const now = union.authorizeNow({ user: u, info });
    expect(now).toEqual(want);
    if (now) expect(now).toEqual(await union.authorize({ user: u, info }));
  });
});
