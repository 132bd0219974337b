import type { JsonObject } from '../meta/types.js';
import {
  META_V1,
  apiVersionProp,
  integerProp,
  kindProp,
  objectSchema,
  refArrayProp,
  refProp,
  stringArrayProp,
  stringProp,
  booleanProp,
  type GvkMarker,
} from './schema-builders.js';

/** A served group/version; '' is the core group. */
export interface GroupVersion {
  group: string;
  version: string;
}

/** Definition name of the opaque embedded object (watch events carry objects of any kind). */
export const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';

/**
 * Definitions of the request/response meta/v1 types: Status (+Details, Cause), DeleteOptions,
 * Preconditions, WatchEvent, Patch, and runtime.RawExtension. DeleteOptions and WatchEvent are
 * registered in every served group version, as upstream does, so their GVK lists name them all.
 */
export function metaRequestDefinitions(groupVersions: readonly GroupVersion[]): Record<string, JsonObject> {
  const everywhere = (kind: string): GvkMarker[] => groupVersions.map((gv) => ({ ...gv, kind }));
  return {
    [`${META_V1}.Status`]: objectSchema(
      'Result of an operation that does not return an object, such as an error.',
      {
        apiVersion: apiVersionProp(),
        code: integerProp('HTTP status code of this status; 0 when not set.', 'int32'),
        details: refProp(`${META_V1}.StatusDetails`, 'Extra data about the reason; its shape depends on the reason.'),
        kind: kindProp(),
        message: stringProp('Human-readable description of the status.'),
        metadata: refProp(`${META_V1}.ListMeta`, 'Standard list metadata.', { default: {} }),
        reason: stringProp('Machine-readable reason for a Failure status; empty when no reason is known.'),
        status: stringProp('Outcome of the operation: "Success" or "Failure".'),
      },
      { gvk: [{ group: '', version: 'v1', kind: 'Status' }] },
    ),
    [`${META_V1}.StatusDetails`]: objectSchema(
      'Extra data of a Status: which object it concerns and the individual causes.',
      {
        causes: refArrayProp('Individual causes of the failure, for example one per invalid field.', `${META_V1}.StatusCause`, {
          'x-kubernetes-list-type': 'atomic',
        }),
        group: stringProp('Group of the resource the status concerns.'),
        kind: stringProp('Kind (or resource) the status concerns.'),
        name: stringProp('Name of the object the status concerns, when there is one.'),
        retryAfterSeconds: integerProp('Seconds a client should wait before retrying, when set.', 'int32'),
        uid: stringProp('UID of the object the status concerns, when there is one.'),
      },
    ),
    [`${META_V1}.StatusCause`]: objectSchema('One cause of a failure, often tied to a field.', {
      field: stringProp('Path of the field that caused the error, for example "metadata.name"; may be empty.'),
      message: stringProp('Human-readable explanation of the cause.'),
      reason: stringProp('Machine-readable cause, for example FieldValueInvalid.'),
    }),
    [`${META_V1}.DeleteOptions`]: objectSchema(
      'Options of a delete request.',
      {
        apiVersion: apiVersionProp(),
        dryRun: stringArrayProp('When set, the request is processed but not persisted; the only value is "All".', {
          'x-kubernetes-list-type': 'atomic',
        }),
        gracePeriodSeconds: integerProp('Seconds before the object is deleted; zero deletes immediately.', 'int64'),
        ignoreStoreReadErrorWithClusterBreakingPotential: booleanProp(
          'Deletes an object that cannot be read from storage; dangerous and off by default.',
        ),
        kind: kindProp(),
        orphanDependents: booleanProp('Deprecated: use propagationPolicy. When true, dependents are orphaned.'),
        preconditions: refProp(`${META_V1}.Preconditions`, 'Conditions that must hold for the deletion to proceed; 409 otherwise.'),
        propagationPolicy: stringProp('How dependents are garbage collected: Orphan, Background or Foreground.'),
      },
      { gvk: everywhere('DeleteOptions') },
    ),
    [`${META_V1}.Preconditions`]: objectSchema('Conditions an operation requires before it is carried out.', {
      resourceVersion: stringProp('Required resource version of the target.'),
      uid: stringProp('Required UID of the target.'),
    }),
    [`${META_V1}.WatchEvent`]: objectSchema(
      'One event of a watch stream.',
      {
        object: refProp(
          RAW_EXTENSION,
          'The object: the new state for ADDED and MODIFIED, the last state for DELETED, a Status for ERROR, and an object carrying only a resourceVersion for BOOKMARK.',
        ),
        type: stringProp('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.', { default: '' }),
      },
      { required: ['type', 'object'], gvk: everywhere('WatchEvent') },
    ),
    [`${META_V1}.Patch`]: {
      description: 'A patch document; its format is given by the request Content-Type.',
      type: 'object',
    },
    [RAW_EXTENSION]: {
      description: 'An embedded object of any kind, carried as raw JSON.',
      type: 'object',
    },
  };
}
