import { isDeepStrictEqual } from 'node:util';
import {
  invalid,
  validateImmutableField,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldErrorList,
  type KubeObject,
} from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';
import { ageOf } from '../../../tables/human-duration.js';
import { column } from '../workload/table.js';
import { reshapeInPlace } from '../../core/pod-spec/go-shape.js';

interface ControllerRevision extends KubeObject {
  data?: unknown;
  revision?: number;
}

const metaOptions = { namespaced: true, nameValidator: 'subdomain' as const };

function validateRevision(obj: ControllerRevision): FieldErrorList {
  const r = obj.revision ?? 0;
  return r < 0 ? [invalid('revision', r, 'must be greater than or equal to 0')] : [];
}

function controllerOf(obj: ControllerRevision): string {
  const owner = obj.metadata.ownerReferences?.find((o) => o.controller);
  if (!owner) return '<none>';
  const group = owner.apiVersion.includes('/') ? owner.apiVersion.slice(0, owner.apiVersion.indexOf('/')) : '';
  return `${owner.kind.toLowerCase()}${group ? `.${group}` : ''}/${owner.name}`;
}

/** ControllerRevision behaviour (apps/v1): immutable snapshots; data never changes. */
export const controllerRevisionStrategy = {
  namespaceScoped: true,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForCreate: (obj: ControllerRevision) => reshapeInPlace(obj),
  prepareForUpdate: (obj: ControllerRevision) => reshapeInPlace(obj),
  validate: (obj: ControllerRevision) => [...validateObjectMeta(obj.metadata, metaOptions), ...validateRevision(obj)],
  validateUpdate: (obj: ControllerRevision, old: ControllerRevision) => [
    ...validateObjectMetaUpdate(obj.metadata, old.metadata, metaOptions),
    ...validateRevision(obj),
    ...validateImmutableField(obj.data, old.data, 'data', isDeepStrictEqual),
  ],
  table: {
    columns: [nameColumn, column('Controller', 'string', 'The controller that owns the revision.'), column('Revision', 'integer', 'Revision number.'), ageColumn],
    cells: (obj: ControllerRevision) => [obj.metadata.name ?? '', controllerOf(obj), obj.revision ?? 0, ageOf(obj.metadata.creationTimestamp, new Date())],
  },
} satisfies ResourceStrategy<ControllerRevision>;
