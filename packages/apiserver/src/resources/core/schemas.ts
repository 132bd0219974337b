import {
  booleanProp,
  listSchema,
  mapProp,
  objectSchema,
  objectTypeMeta,
  refArrayProp,
  refProp,
  stringArrayProp,
  stringMapProp,
  stringProp,
  META_V1,
  type GvkMarker,
} from '@cluster/apimachinery';
import type { Definitions } from '../../registry/resource-info.js';

const CORE_V1 = 'io.k8s.api.core.v1';
const core = (kind: string): GvkMarker => ({ group: '', version: 'v1', kind });
const byteMap = (description: string) => mapProp(description, { type: 'string', format: 'byte' });

/**
 * OpenAPI v2-style definitions of the core/v1 kinds served here (ConfigMap, Namespace, Secret,
 * ServiceAccount, their lists, and the helper types they use). Merge with the meta/v1 definitions
 * before building documents. The core group is '' whatever `apiDomain` is; the parameter keeps the
 * signature uniform with the other groups' schema modules.
 */
export function coreDefinitions(apiDomain: string): Definitions {
  void apiDomain;
  return {
    [`${CORE_V1}.ConfigMap`]: objectSchema(
      'Non-confidential configuration data for consumption by other objects.',
      {
        ...objectTypeMeta(),
        binaryData: byteMap('Binary values (base64 in JSON). Keys must be valid config keys and must not also appear in data.'),
        data: stringMapProp('UTF-8 values. Keys consist of alphanumerics, "-", "_" or "." and must not also appear in binaryData.'),
        immutable: booleanProp('When true, data and binaryData cannot be changed; the field itself can only be set, not cleared.'),
      },
      { gvk: [core('ConfigMap')] },
    ),
    [`${CORE_V1}.ConfigMapList`]: listSchema(`${CORE_V1}.ConfigMap`, core('ConfigMapList'), 'The ConfigMaps.'),

    [`${CORE_V1}.Namespace`]: objectSchema(
      'A scope for names; every namespaced object lives in one.',
      {
        ...objectTypeMeta(),
        spec: refProp(`${CORE_V1}.NamespaceSpec`, 'Desired state of the namespace.', { default: {} }),
        status: refProp(`${CORE_V1}.NamespaceStatus`, 'Observed state of the namespace.', { default: {} }),
      },
      { gvk: [core('Namespace')] },
    ),
    [`${CORE_V1}.NamespaceList`]: listSchema(`${CORE_V1}.Namespace`, core('NamespaceList'), 'The Namespaces.'),
    [`${CORE_V1}.NamespaceSpec`]: objectSchema('Desired state of a Namespace.', {
      finalizers: stringArrayProp('Values that must be removed before the namespace is deleted from storage.', {
        'x-kubernetes-list-type': 'atomic',
      }),
    }),
    [`${CORE_V1}.NamespaceStatus`]: objectSchema('Observed state of a Namespace.', {
      conditions: refArrayProp('Latest observations of the namespace state.', `${CORE_V1}.NamespaceCondition`, {
        'x-kubernetes-list-map-keys': ['type'],
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-patch-merge-key': 'type',
        'x-kubernetes-patch-strategy': 'merge',
      }),
      phase: stringProp('Lifecycle phase of the namespace.', { enum: ['Active', 'Terminating'] }),
    }),
    [`${CORE_V1}.NamespaceCondition`]: objectSchema(
      'One observed condition of a Namespace.',
      {
        lastTransitionTime: refProp(`${META_V1}.Time`, 'When the condition last changed status.'),
        message: stringProp('Human-readable details of the last transition.'),
        reason: stringProp('Machine-readable, CamelCase reason of the last transition.'),
        status: stringProp('Status of the condition: True, False or Unknown.', { default: '' }),
        type: stringProp('Type of the condition.', { default: '' }),
      },
      { required: ['type', 'status'] },
    ),

    [`${CORE_V1}.Secret`]: objectSchema(
      'Secret data of a given type; values are limited to 1 MiB in total.',
      {
        ...objectTypeMeta(),
        data: byteMap('Secret values, base64 in JSON. Keys consist of alphanumerics, "-", "_" or ".".'),
        immutable: booleanProp('When true, data cannot be changed; the field itself can only be set, not cleared.'),
        stringData: stringMapProp('Write-only convenience: plain-text values merged into data on write; never returned.'),
        type: stringProp('Type of the secret, used to process its data, for example "Opaque".'),
      },
      { gvk: [core('Secret')] },
    ),
    [`${CORE_V1}.SecretList`]: listSchema(`${CORE_V1}.Secret`, core('SecretList'), 'The Secrets.'),

    [`${CORE_V1}.ServiceAccount`]: objectSchema(
      'An identity for processes, with the secrets it may use.',
      {
        ...objectTypeMeta(),
        automountServiceAccountToken: booleanProp('Whether workloads using this account get an API token mounted automatically.'),
        imagePullSecrets: refArrayProp(
          'Secrets in the same namespace used to pull images for workloads of this account.',
          `${CORE_V1}.LocalObjectReference`,
          { 'x-kubernetes-list-type': 'atomic' },
        ),
        secrets: refArrayProp('Deprecated: secrets of the account; prefer short-lived tokens.', `${CORE_V1}.ObjectReference`, {
          'x-kubernetes-patch-merge-key': 'name',
          'x-kubernetes-patch-strategy': 'merge',
        }),
      },
      { gvk: [core('ServiceAccount')] },
    ),
    [`${CORE_V1}.ServiceAccountList`]: listSchema(`${CORE_V1}.ServiceAccount`, core('ServiceAccountList'), 'The ServiceAccounts.'),

    [`${CORE_V1}.ObjectReference`]: objectSchema(
      'A reference to another object, possibly to a field within it.',
      {
        apiVersion: stringProp('API version of the referent.'),
        fieldPath: stringProp('Path of a field within the referent, for example "spec.containers{name}".'),
        kind: stringProp('Kind of the referent.'),
        name: stringProp('Name of the referent.'),
        namespace: stringProp('Namespace of the referent.'),
        resourceVersion: stringProp('Resource version of the referent the reference was made for.'),
        uid: stringProp('UID of the referent.'),
      },
      { extras: { 'x-kubernetes-map-type': 'atomic' } },
    ),
    [`${CORE_V1}.LocalObjectReference`]: objectSchema(
      'A reference by name to an object in the same namespace.',
      { name: stringProp('Name of the referent.', { default: '' }) },
      { extras: { 'x-kubernetes-map-type': 'atomic' } },
    ),
  };
}
