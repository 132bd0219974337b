import type { ResourceRegistration } from '../registry/registration.js';
import type { Definitions } from '../registry/resource-info.js';
import { configMaps } from './core/configmaps/register.js';
import { namespaces } from './core/namespaces/register.js';
import { coreDefinitions } from './core/schemas.js';
import { secrets } from './core/secrets/register.js';
import { serviceAccounts } from './core/serviceaccounts/register.js';
import type { TokenRequestDeps } from './core/serviceaccounts/token-request.js';
import { tokenRequestDefinitions } from './core/serviceaccounts/token-request-schemas.js';
import { certificateSigningRequests } from './certificates/certificatesigningrequests/register.js';
import { certificatesDefinitions } from './certificates/schemas.js';
import { leases } from './coordination/leases/register.js';
import { coordinationDefinitions } from './coordination/schemas.js';
import { clusterRoles, roles } from './rbac/roles/register.js';
import { clusterRoleBindings, roleBindings } from './rbac/rolebindings/register.js';
import { rbacDefinitions } from './rbac/schemas.js';

/** Every resource this server serves: adding one is one strategy module plus one line here. */
export function builtinResources(apiDomain: string, identity: { tokens?: TokenRequestDeps } = {}): ResourceRegistration[] {
  return [
    namespaces,
    configMaps,
    secrets(apiDomain),
    serviceAccounts(apiDomain, identity.tokens),
    leases(apiDomain),
    certificateSigningRequests(apiDomain),
    ...rbacResources(apiDomain),
  ];
}

/** OpenAPI definitions of every served kind (meta/v1 comes from apimachinery). */
export function builtinDefinitions(apiDomain: string): Definitions {
  return {
    ...coreDefinitions(apiDomain),
    ...tokenRequestDefinitions(apiDomain),
    ...coordinationDefinitions(apiDomain),
    ...rbacDefinitions(apiDomain),
    ...certificatesDefinitions(apiDomain),
  };
}

function rbacResources(apiDomain: string): ResourceRegistration[] {
  return [roles(apiDomain), roleBindings(apiDomain), clusterRoles(apiDomain), clusterRoleBindings(apiDomain)];
}
