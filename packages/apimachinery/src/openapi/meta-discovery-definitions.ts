import type { JsonObject } from '../meta/types.js';
import {
  META_V1,
  apiVersionProp,
  booleanProp,
  kindProp,
  objectSchema,
  refArrayProp,
  refProp,
  stringArrayProp,
  stringProp,
} from './schema-builders.js';

/**
 * Definitions of the legacy discovery documents: APIVersions, APIGroupList, APIGroup,
 * GroupVersionForDiscovery, ServerAddressByClientCIDR, APIResourceList and APIResource.
 */
export function metaDiscoveryDefinitions(): Record<string, JsonObject> {
  const core = (kind: string) => [{ group: '', version: 'v1', kind }];
  const cidrs = refArrayProp(
    'Client CIDRs mapped to the server address they should use; clients pick the first match.',
    `${META_V1}.ServerAddressByClientCIDR`,
    { 'x-kubernetes-list-type': 'atomic' },
  );
  return {
    [`${META_V1}.APIVersions`]: objectSchema(
      'The versions served under /api.',
      {
        apiVersion: apiVersionProp(),
        kind: kindProp(),
        serverAddressByClientCIDRs: cidrs,
        versions: stringArrayProp('Versions served under /api.', { 'x-kubernetes-list-type': 'atomic' }),
      },
      { required: ['versions', 'serverAddressByClientCIDRs'], gvk: core('APIVersions') },
    ),
    [`${META_V1}.APIGroupList`]: objectSchema(
      'The groups served under /apis.',
      {
        apiVersion: apiVersionProp(),
        groups: refArrayProp('Groups served.', `${META_V1}.APIGroup`, { 'x-kubernetes-list-type': 'atomic' }),
        kind: kindProp(),
      },
      { required: ['groups'], gvk: core('APIGroupList') },
    ),
    [`${META_V1}.APIGroup`]: objectSchema(
      'One API group: its name, versions and preferred version.',
      {
        apiVersion: apiVersionProp(),
        kind: kindProp(),
        name: stringProp('Name of the group.', { default: '' }),
        preferredVersion: refProp(`${META_V1}.GroupVersionForDiscovery`, 'Version clients should use.', { default: {} }),
        serverAddressByClientCIDRs: cidrs,
        versions: refArrayProp('Versions served in the group.', `${META_V1}.GroupVersionForDiscovery`, {
          'x-kubernetes-list-type': 'atomic',
        }),
      },
      { required: ['name', 'versions'], gvk: core('APIGroup') },
    ),
    [`${META_V1}.GroupVersionForDiscovery`]: objectSchema(
      'A group/version string and its version, so clients need not split it.',
      {
        groupVersion: stringProp('"group/version".', { default: '' }),
        version: stringProp('The version alone.', { default: '' }),
      },
      { required: ['groupVersion', 'version'] },
    ),
    [`${META_V1}.ServerAddressByClientCIDR`]: objectSchema(
      'Address of the server for clients in a CIDR.',
      {
        clientCIDR: stringProp('CIDR the entry applies to.', { default: '' }),
        serverAddress: stringProp('host:port (or host) clients in the CIDR should use.', { default: '' }),
      },
      { required: ['clientCIDR', 'serverAddress'] },
    ),
    [`${META_V1}.APIResourceList`]: objectSchema(
      'The resources served in one group version.',
      {
        apiVersion: apiVersionProp(),
        groupVersion: stringProp('Group version the list is for.', { default: '' }),
        kind: kindProp(),
        resources: refArrayProp('Resources served, with their scope and verbs.', `${META_V1}.APIResource`, {
          'x-kubernetes-list-type': 'atomic',
        }),
      },
      { required: ['groupVersion', 'resources'], gvk: core('APIResourceList') },
    ),
    [`${META_V1}.APIResource`]: objectSchema(
      'A resource name, its kind, scope and verbs.',
      {
        categories: stringArrayProp('Groupings the resource belongs to, such as "all".', {
          'x-kubernetes-list-type': 'atomic',
        }),
        group: stringProp('Group of the kind when it differs from the list (for example a subresource).'),
        kind: stringProp('Kind of the resource.', { default: '' }),
        name: stringProp('Plural name of the resource, or "resource/subresource".', { default: '' }),
        namespaced: booleanProp('Whether the resource is namespaced.', { default: false }),
        shortNames: stringArrayProp('Short aliases clients accept.', { 'x-kubernetes-list-type': 'atomic' }),
        singularName: stringProp('Singular name of the resource.', { default: '' }),
        storageVersionHash: stringProp('Opaque hash of the storage version; compare for equality only.'),
        verbs: stringArrayProp('Verbs served: get, list, watch, create, update, patch, delete, deletecollection.'),
        version: stringProp('Version of the kind when it differs from the list (for example a subresource).'),
      },
      { required: ['name', 'singularName', 'namespaced', 'kind', 'verbs'] },
    ),
  };
}
