import {
  listSchema,
  objectSchema,
  objectTypeMeta,
  refArrayProp,
  refProp,
  stringArrayProp,
  stringProp,
  META_V1,
  type GvkMarker,
} from '@cluster/apimachinery';
import type { Definitions } from '../../registry/resource-info.js';
import { rbacGroup } from '../../authz/rbac/types.js';

const RBAC_V1 = 'io.k8s.api.rbac.v1';
const atomic = { 'x-kubernetes-list-type': 'atomic' } as const;

/** OpenAPI definitions of rbac/v1 (Role, ClusterRole, RoleBinding, ClusterRoleBinding), group under `apiDomain`. */
export function rbacDefinitions(apiDomain: string): Definitions {
  const gvk = (kind: string): GvkMarker => ({ group: rbacGroup(apiDomain), version: 'v1', kind });
  const rules = refArrayProp('Rules of this role.', `${RBAC_V1}.PolicyRule`, atomic);
  const subjects = refArrayProp('The subjects the role applies to.', `${RBAC_V1}.Subject`, atomic);
  const roleRef = refProp(`${RBAC_V1}.RoleRef`, 'The role granted; cannot be changed once set.', { default: {} });
  const defs: Definitions = {
    [`${RBAC_V1}.PolicyRule`]: objectSchema(
      'A rule: verbs allowed on resources (or non-resource URLs).',
      {
        apiGroups: stringArrayProp('API groups of the resources; "" is the core group, "*" all groups.', atomic),
        nonResourceURLs: stringArrayProp('Partial URLs a user may access (only in ClusterRoles); "*" suffix matches a prefix.', atomic),
        resourceNames: stringArrayProp('Optional allow-list of object names.', atomic),
        resources: stringArrayProp('Resources the rule applies to; "*" all, "*/sub" a subresource of all.', atomic),
        verbs: stringArrayProp('Verbs allowed; "*" all.', atomic),
      },
      { required: ['verbs'] },
    ),
    [`${RBAC_V1}.AggregationRule`]: objectSchema('How a ClusterRole is aggregated from others.', {
      clusterRoleSelectors: refArrayProp('Selectors of the ClusterRoles whose rules are combined into this one.', `${META_V1}.LabelSelector`, atomic),
    }),
    [`${RBAC_V1}.Subject`]: objectSchema(
      'A user, group or service account a binding applies to.',
      {
        apiGroup: stringProp('API group of the subject: "" for ServiceAccount, the RBAC group for User and Group.'),
        kind: stringProp('"User", "Group" or "ServiceAccount".'),
        name: stringProp('Name of the subject.'),
        namespace: stringProp('Namespace of a ServiceAccount subject.'),
      },
      { required: ['kind', 'name'], extras: { 'x-kubernetes-map-type': 'atomic' } },
    ),
    [`${RBAC_V1}.RoleRef`]: objectSchema(
      'The role a binding grants.',
      {
        apiGroup: stringProp('API group of the referenced role.'),
        kind: stringProp('"Role" or "ClusterRole".'),
        name: stringProp('Name of the referenced role.'),
      },
      { required: ['apiGroup', 'kind', 'name'], extras: { 'x-kubernetes-map-type': 'atomic' } },
    ),
    [`${RBAC_V1}.Role`]: objectSchema('A namespaced set of rules, granted by a RoleBinding.', { ...objectTypeMeta(), rules }, { gvk: [gvk('Role')] }),
    [`${RBAC_V1}.ClusterRole`]: objectSchema(
      'A cluster-wide set of rules, granted by a RoleBinding or ClusterRoleBinding.',
      {
        ...objectTypeMeta(),
        rules,
        aggregationRule: refProp(`${RBAC_V1}.AggregationRule`, 'When set, the rules are computed by the server from matching ClusterRoles.'),
      },
      { gvk: [gvk('ClusterRole')] },
    ),
    [`${RBAC_V1}.RoleBinding`]: objectSchema(
      'Grants a Role or ClusterRole to subjects within a namespace.',
      { ...objectTypeMeta(), subjects, roleRef },
      { required: ['roleRef'], gvk: [gvk('RoleBinding')] },
    ),
    [`${RBAC_V1}.ClusterRoleBinding`]: objectSchema(
      'Grants a ClusterRole to subjects cluster-wide.',
      { ...objectTypeMeta(), subjects, roleRef },
      { required: ['roleRef'], gvk: [gvk('ClusterRoleBinding')] },
    ),
  };
  for (const kind of ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']) {
    defs[`${RBAC_V1}.${kind}List`] = listSchema(`${RBAC_V1}.${kind}`, gvk(`${kind}List`), `The ${kind}s.`);
  }
  return defs;
}
