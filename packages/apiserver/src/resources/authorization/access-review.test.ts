import { accessReviewStatus, reviewedRequest, reviewedUser, rulesReviewStatus, validateAccessReview, type AccessReview, type AccessReviewKind } from './access-review.js';

const res = { namespace: 'ns', verb: 'list', resource: 'configmaps' };
const review = (spec: object, metadata: object = {}): AccessReview => ({ metadata, spec }) as AccessReview;
const fields = (r: AccessReview, kind: AccessReviewKind) => validateAccessReview(r, kind).map((e) => `${e.field}: ${e.detail}`);

describe('validateAccessReview', () => {
  test.each<[string, AccessReview, AccessReviewKind, string[]]>([
    ['a resource check for a user', review({ user: 'bob', resourceAttributes: res }), 'SubjectAccessReview', []],
    ['a non-resource check for a group', review({ groups: ['g'], nonResourceAttributes: { path: '/x', verb: 'get' } }), 'SubjectAccessReview', []],
    [
      'both attributes',
      review({ user: 'bob', resourceAttributes: res, nonResourceAttributes: { path: '/x', verb: 'get' } }),
      'SubjectAccessReview',
      ['spec.nonResourceAttributes: cannot be specified in combination with resourceAttributes'],
    ],
    ['no attributes', review({ user: 'bob' }), 'SubjectAccessReview', ['spec.resourceAttributes: exactly one of nonResourceAttributes or resourceAttributes must be specified']],
    ['neither user nor groups', review({ resourceAttributes: res, groups: [] }), 'SubjectAccessReview', ['spec.user: at least one of user or group must be specified']],
    ['a self review needs no user', review({ resourceAttributes: res }), 'SelfSubjectAccessReview', []],
    ['metadata with a name', review({ resourceAttributes: res }, { name: 'x' }), 'SelfSubjectAccessReview', ['metadata: must be empty']],
    ['a null creationTimestamp is empty metadata', review({ resourceAttributes: res }, { creationTimestamp: null }), 'SelfSubjectAccessReview', []],
    ['a set creationTimestamp is not', review({ resourceAttributes: res }, { creationTimestamp: '2024-01-01T00:00:00Z' }), 'SelfSubjectAccessReview', ['metadata: must be empty']],
    ['a local review in its namespace', review({ user: 'bob', resourceAttributes: res }, { namespace: 'ns' }), 'LocalSubjectAccessReview', []],
    [
      'a local review for another namespace',
      review({ user: 'bob', resourceAttributes: { ...res, namespace: 'other' } }, { namespace: 'ns' }),
      'LocalSubjectAccessReview',
      ['spec.resourceAttributes.namespace: must match metadata.namespace'],
    ],
    [
      'a local non-resource review',
      review({ user: 'bob', nonResourceAttributes: { path: '/x', verb: 'get' } }, { namespace: 'ns' }),
      'LocalSubjectAccessReview',
      ['spec.nonResourceAttributes: disallowed on this kind of request'],
    ],
    ['a local review with a name', review({ user: 'bob', resourceAttributes: res }, { namespace: 'ns', name: 'n' }), 'LocalSubjectAccessReview', ['metadata: must be empty except for namespace']],
  ])('%s', (_, r, kind, want) => {
    expect(fields(r, kind)).toEqual(want);
  });
});

describe('reviewed attributes', () => {
  test('the user is exactly the one named, with no implied groups', () => {
    expect(reviewedUser({ user: 'bob', groups: ['g'], uid: 'u', extra: { k: ['v'] } })).toEqual({ username: 'bob', groups: ['g'], uid: 'u', extra: { k: ['v'] } });
    expect(reviewedUser({ groups: ['g'] })).toEqual({ username: '', groups: ['g'] });
  });

  test('a resource check; an empty version means all versions', () => {
    expect(reviewedRequest({ resourceAttributes: { ...res, group: 'apps', subresource: 'status', name: 'n' } })).toMatchObject({
      isResourceRequest: true,
      verb: 'list',
      apiGroup: 'apps',
      apiVersion: '*',
      resource: 'configmaps',
      subresource: 'status',
      namespace: 'ns',
      name: 'n',
    });
  });

  test('a non-resource check', () => {
    expect(reviewedRequest({ nonResourceAttributes: { path: '/healthz', verb: 'get' } })).toMatchObject({ isResourceRequest: false, path: '/healthz', verb: 'get' });
  });
});

describe('statuses', () => {
  test.each([
    ['allow', 'RBAC: allowed', { allowed: true, reason: 'RBAC: allowed' }],
    ['no-opinion', '', { allowed: false }],
    ['deny', 'nope', { allowed: false, denied: true, reason: 'nope' }],
  ] as const)('%s', (decision, reason, want) => {
    expect(accessReviewStatus(decision, reason)).toEqual(want);
  });

  test('rules split into resource and non-resource rules', () => {
    const status = rulesReviewStatus({
      rules: [
        { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
        { verbs: ['get'], nonResourceURLs: ['/healthz'] },
        { verbs: ['*'], apiGroups: ['*'], resources: ['*'], nonResourceURLs: ['*'] },
      ],
      incomplete: true,
      evaluationError: 'x',
    });
    expect(status).toEqual({
      resourceRules: [
        { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
        { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      ],
      nonResourceRules: [
        { verbs: ['get'], nonResourceURLs: ['/healthz'] },
        { verbs: ['*'], nonResourceURLs: ['*'] },
      ],
      incomplete: true,
      evaluationError: 'x',
    });
  });
});

