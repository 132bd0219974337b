import type { ResourceRegistration } from '../../../registry/registration.js';
import { serviceAccountStrategy } from './strategy.js';
import { tokenRequestCreater, type TokenRequestDeps } from './token-request.js';

/**
 * core/v1 serviceaccounts, with the `token` subresource (authentication/v1 TokenRequest) when a
 * token issuer is configured.
 */
export function serviceAccounts(apiDomain: string, tokens?: TokenRequestDeps): ResourceRegistration {
  return {
    info: {
      group: '',
      version: 'v1',
      resource: 'serviceaccounts',
      singularName: 'serviceaccount',
      kind: 'ServiceAccount',
      listKind: 'ServiceAccountList',
      namespaced: true,
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['sa'],
      definitionName: 'io.k8s.api.core.v1.ServiceAccount',
      subresources: tokens
        ? [
            {
              name: 'token',
              group: `authentication.${apiDomain}`,
              version: 'v1',
              kind: 'TokenRequest',
              verbs: ['create'],
              definitionName: 'io.k8s.api.authentication.v1.TokenRequest',
            },
          ]
        : undefined,
    },
    strategy: serviceAccountStrategy,
    subresourceCreaters: tokens ? { token: tokenRequestCreater(tokens) } : undefined,
  };
}
