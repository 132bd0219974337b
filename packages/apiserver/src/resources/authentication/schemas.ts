import {
  booleanProp,
  mapProp,
  objectSchema,
  objectTypeMeta,
  refProp,
  stringArrayProp,
  stringProp,
} from '@cluster/apimachinery';
import type { Definitions } from '../../registry/resource-info.js';

const AUTHN_V1 = 'io.k8s.api.authentication.v1';
const atomic = { 'x-kubernetes-list-type': 'atomic' } as const;

/** OpenAPI definitions of the authentication/v1 review kinds: TokenReview and SelfSubjectReview. */
export function authenticationDefinitions(apiDomain: string): Definitions {
  const gvk = (kind: string) => [{ group: `authentication.${apiDomain}`, version: 'v1', kind }];
  return {
    [`${AUTHN_V1}.TokenReview`]: objectSchema(
      'Attempts to authenticate a token to a known user.',
      {
        ...objectTypeMeta(),
        spec: refProp(`${AUTHN_V1}.TokenReviewSpec`, 'The token to review.', { default: {} }),
        status: refProp(`${AUTHN_V1}.TokenReviewStatus`, 'Whether the token authenticates, filled in by the server.', { default: {} }),
      },
      { required: ['spec'], gvk: gvk('TokenReview') },
    ),
    [`${AUTHN_V1}.TokenReviewSpec`]: objectSchema('The token to review.', {
      audiences: stringArrayProp('Audiences the token should be valid for; defaults to the API server audiences.', atomic),
      token: stringProp('The opaque bearer token.'),
    }),
    [`${AUTHN_V1}.TokenReviewStatus`]: objectSchema('The result of a token review.', {
      audiences: stringArrayProp('The requested audiences the token is valid for.', atomic),
      authenticated: booleanProp('True when the token authenticates a user.'),
      error: stringProp('Why the token did not authenticate.'),
      user: refProp(`${AUTHN_V1}.UserInfo`, 'The user the token authenticates.', { default: {} }),
    }),
    [`${AUTHN_V1}.UserInfo`]: objectSchema('The identity of an authenticated user.', {
      extra: mapProp('Extra attributes the authenticator provides.', { type: 'array', items: { type: 'string', default: '' } }),
      groups: stringArrayProp('Groups the user belongs to.', atomic),
      uid: stringProp('A unique value for the user across time.'),
      username: stringProp('The name of the user.'),
    }),
    [`${AUTHN_V1}.SelfSubjectReview`]: objectSchema(
      'Returns the identity the server sees for the request (kubectl auth whoami).',
      {
        ...objectTypeMeta(),
        status: refProp(`${AUTHN_V1}.SelfSubjectReviewStatus`, 'The user, filled in by the server.', { default: {} }),
      },
      { gvk: gvk('SelfSubjectReview') },
    ),
    [`${AUTHN_V1}.SelfSubjectReviewStatus`]: objectSchema('The result of a self-subject review.', {
      userInfo: refProp(`${AUTHN_V1}.UserInfo`, 'The user attributes of the requester.', { default: {} }),
    }),
  };
}
