import type { JsonObject } from '../meta/types.js';
import {
  META_V1,
  booleanProp,
  integerProp,
  objectSchema,
  refArrayProp,
  refProp,
  stringArrayProp,
  stringMapProp,
  stringProp,
} from './schema-builders.js';

/**
 * Definitions of the object-level meta/v1 types: ObjectMeta, ListMeta, OwnerReference,
 * ManagedFieldsEntry, FieldsV1, Time, MicroTime, LabelSelector(+Requirement). The list and map
 * markers follow upstream so that strategic merge and server-side apply agree with stock clients.
 */
export function metaObjectDefinitions(): Record<string, JsonObject> {
  return {
    [`${META_V1}.ObjectMeta`]: objectMeta(),
    [`${META_V1}.ListMeta`]: objectSchema('Metadata that synthetic resources such as lists carry.', {
      continue: stringProp('Opaque token to fetch the next page of a paged list; empty when no more items remain.'),
      remainingItemCount: integerProp(
        'Number of items after this page; set only for paged lists without selectors and may be an estimate.',
        'int64',
      ),
      resourceVersion: stringProp('Opaque version of the collection; pass it to watch to follow changes from here.'),
      selfLink: stringProp('Deprecated, always empty.'),
    }),
    [`${META_V1}.OwnerReference`]: objectSchema(
      'Identifies an object that owns this one. The owner must be in the same namespace or be cluster-scoped.',
      {
        apiVersion: stringProp('API version of the owner.', { default: '' }),
        blockOwnerDeletion: booleanProp(
          'When true and the owner has the foregroundDeletion finalizer, the owner cannot be removed before this reference is.',
        ),
        controller: booleanProp('True when this owner is the managing controller; at most one reference may be.'),
        kind: stringProp('Kind of the owner.', { default: '' }),
        name: stringProp('Name of the owner.', { default: '' }),
        uid: stringProp('UID of the owner.', { default: '' }),
      },
      { required: ['apiVersion', 'kind', 'name', 'uid'], extras: { 'x-kubernetes-map-type': 'atomic' } },
    ),
    [`${META_V1}.ManagedFieldsEntry`]: objectSchema(
      'Records which fields a workflow (field manager) set, and through which operation.',
      {
        apiVersion: stringProp('Version of the resource the field set applies to.'),
        fieldsType: stringProp('Format of the fields field; only "FieldsV1" exists.'),
        fieldsV1: refProp(`${META_V1}.FieldsV1`, 'The set of fields owned by this manager.'),
        manager: stringProp('Identifier of the workflow that manages these fields.'),
        operation: stringProp('Kind of operation that produced the entry: "Apply" or "Update".'),
        subresource: stringProp('Name of the subresource the object was updated through, empty for the main resource.'),
        time: refProp(`${META_V1}.Time`, 'When the entry last changed ownership or fields.'),
      },
    ),
    [`${META_V1}.FieldsV1`]: {
      description: 'A set of field paths in a trie of JSON-encoded path elements, for example "f:data" or "k:{...}".',
      type: 'object',
    },
    [`${META_V1}.Time`]: {
      description: 'A timestamp in RFC 3339 form with second precision.',
      type: 'string',
      format: 'date-time',
    },
    [`${META_V1}.MicroTime`]: {
      description: 'A timestamp in RFC 3339 form with microsecond precision.',
      type: 'string',
      format: 'date-time',
    },
    // Value types of other apimachinery packages that kinds embed; each has its own JSON decoding.
    'io.k8s.apimachinery.pkg.util.intstr.IntOrString': {
      description: 'Either an int32 or a string, kept as given (a port number or a port name, a count or a percentage).',
      type: 'string',
      format: 'int-or-string',
    },
    'io.k8s.apimachinery.pkg.api.resource.Quantity': {
      description:
        'A fixed-point amount with an optional suffix: binary (Ki, Mi, Gi, Ti, Pi, Ei), decimal (n, u, m, k, M, G, T, P, E) or an exponent (1e3). Stored in canonical form.',
      type: 'string',
    },
    [`${META_V1}.LabelSelector`]: objectSchema(
      'A label query. The requirements are ANDed; an empty selector matches everything, a null one nothing.',
      {
        matchExpressions: refArrayProp('Requirements on labels.', `${META_V1}.LabelSelectorRequirement`, {
          'x-kubernetes-list-type': 'atomic',
        }),
        matchLabels: stringMapProp('Exact key/value pairs, each equal to a matchExpressions "In" requirement with one value.'),
      },
      { extras: { 'x-kubernetes-map-type': 'atomic' } },
    ),
    [`${META_V1}.LabelSelectorRequirement`]: objectSchema(
      'A selector requirement: a key, an operator and values.',
      {
        key: stringProp('Label key the requirement applies to.', {
          default: '',
          'x-kubernetes-patch-merge-key': 'key',
          'x-kubernetes-patch-strategy': 'merge',
        }),
        operator: stringProp('Relation of the key to the values: In, NotIn, Exists or DoesNotExist.', { default: '' }),
        values: stringArrayProp('Values; non-empty for In and NotIn, empty for Exists and DoesNotExist.', {
          'x-kubernetes-list-type': 'atomic',
        }),
      },
      { required: ['key', 'operator'] },
    ),
  };
}

function objectMeta(): JsonObject {
  return objectSchema('Metadata every persisted object carries, including the fields users set when creating it.', {
    annotations: stringMapProp('Unstructured key/value data set by external tools; not queryable.'),
    // Opens as upstream's does: conformance checks `kubectl explain <crd>.metadata` for that phrase.
    creationTimestamp: refProp(`${META_V1}.Time`, 'CreationTimestamp is a timestamp of the server time at which the object was created (RFC 3339, UTC). Read-only.'),
    deletionGracePeriodSeconds: integerProp(
      'Seconds allowed for graceful termination before the object is removed. Read-only.',
      'int64',
    ),
    deletionTimestamp: refProp(
      `${META_V1}.Time`,
      'Time after which the object will be deleted; set by the server when deletion is requested. Read-only.',
    ),
    finalizers: stringArrayProp('Entries that must be empty before the object is removed from the registry.', {
      'x-kubernetes-list-type': 'set',
      'x-kubernetes-patch-strategy': 'merge',
    }),
    generateName: stringProp('Prefix the server uses to build a unique name when name is not set.'),
    generation: integerProp('Sequence number of a specific generation of the desired state. Read-only.', 'int64'),
    labels: stringMapProp('Key/value pairs used to organize and select objects.'),
    managedFields: refArrayProp(
      'Ownership of fields by workflows; maintained by the server.',
      `${META_V1}.ManagedFieldsEntry`,
      { 'x-kubernetes-list-type': 'atomic' },
    ),
    name: stringProp('Name, unique within a namespace. Cannot be updated.'),
    namespace: stringProp('Namespace the object lives in; empty for cluster-scoped objects. Cannot be updated.'),
    ownerReferences: refArrayProp('Objects this object depends on.', `${META_V1}.OwnerReference`, {
      'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'uid',
      'x-kubernetes-patch-strategy': 'merge',
    }),
    resourceVersion: stringProp('Opaque value that changes with every write; used for optimistic concurrency and watches.'),
    selfLink: stringProp('Deprecated, always empty.'),
    uid: stringProp('Unique identifier over time and space, set by the server on creation. Read-only.'),
  });
}
