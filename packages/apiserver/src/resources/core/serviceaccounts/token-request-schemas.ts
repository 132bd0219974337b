import {
  integerProp,
  objectSchema,
  objectTypeMeta,
  refProp,
  stringArrayProp,
  stringProp,
  META_V1,
} from '@cluster/apimachinery';
import type { Definitions } from '../../../registry/resource-info.js';

const AUTHN_V1 = 'io.k8s.api.authentication.v1';

/**
 * OpenAPI definitions of authentication/v1 TokenRequest, the kind of serviceaccounts/token. Kept
 * apart from the review kinds of the same group, which are defined with their own resources.
 */
export function tokenRequestDefinitions(apiDomain: string): Definitions {
  const gvk = { group: `authentication.${apiDomain}`, version: 'v1', kind: 'TokenRequest' };
  return {
    [`${AUTHN_V1}.TokenRequest`]: objectSchema(
      'Requests a token for a given service account.',
      {
        ...objectTypeMeta(),
        spec: refProp(`${AUTHN_V1}.TokenRequestSpec`, 'What the token is requested for.', { default: {} }),
        status: refProp(`${AUTHN_V1}.TokenRequestStatus`, 'The issued token, filled in by the server.', { default: {} }),
      },
      { required: ['spec'], gvk: [gvk] },
    ),
    [`${AUTHN_V1}.TokenRequestSpec`]: objectSchema(
      'Parameters of a requested token.',
      {
        audiences: stringArrayProp(
          'Intended audiences of the token; a token is valid for a recipient that identifies itself with at least one of them. Defaults to the API server audiences.',
          { 'x-kubernetes-list-type': 'atomic' },
        ),
        boundObjectRef: refProp(`${AUTHN_V1}.BoundObjectReference`, 'An object the token is bound to: the token is valid only while it exists.'),
        expirationSeconds: integerProp('Requested duration of validity; at least 600 seconds (default 3600).', 'int64'),
      },
      { required: ['audiences'] },
    ),
    [`${AUTHN_V1}.TokenRequestStatus`]: objectSchema(
      'The result of a token request.',
      {
        expirationTimestamp: refProp(`${META_V1}.Time`, 'Time of expiration of the returned token.'),
        token: stringProp('The opaque bearer token.', { default: '' }),
      },
      { required: ['token', 'expirationTimestamp'] },
    ),
    [`${AUTHN_V1}.BoundObjectReference`]: objectSchema('A reference to an object a token is bound to.', {
      apiVersion: stringProp('API version of the referent.'),
      kind: stringProp('Kind of the referent: Pod or Secret.'),
      name: stringProp('Name of the referent.'),
      uid: stringProp('UID of the referent.'),
    }),
  };
}
