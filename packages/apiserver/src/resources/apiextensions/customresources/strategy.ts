import {
  applyDefaults,
  invalid,
  newInvalid,
  StatusError,
  evaluateSimpleJsonPath,
  parseSimpleJsonPath,
  validateAgainstSchema,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type CustomResourceColumnDefinition,
  type FieldErrorList,
  type JSONSchemaProps,
  type JsonObject,
  type JsonValue,
  type KubeObject,
} from '@cluster/apimachinery';
import type { ResourceStrategy, SubresourceStrategy, TableColumnDefinition } from '../../../registry/strategy.js';
import { nameColumn } from '../../../tables/columns.js';
import { ageOf } from '../../../tables/human-duration.js';

/** What a custom resource's behaviour depends on: one served version of its CRD. */
export interface CustomResourceVersionSpec {
  namespaced: boolean;
  schema: JSONSchemaProps | undefined;
  statusSubresource: boolean;
  columns: readonly CustomResourceColumnDefinition[];
  /** The CRD is being deleted: no new objects (upstream answers 405). */
  terminating?: boolean;
  /** Where the scale subresource reads and writes replicas, when it is served. */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
}

/** The value at a simple JSON path (`.spec.replicas`), if any. */
function readPath(obj: KubeObject, path: string | undefined): JsonValue | undefined {
  const steps = path ? parseSimpleJsonPath(path) : undefined;
  return steps ? evaluateSimpleJsonPath(obj as unknown as JsonValue, steps)[0] : undefined;
}

/** Sets the value at a dotted path of fields, creating objects on the way. Mutates obj. */
function writePath(obj: KubeObject, path: string, value: JsonValue): void {
  const fields = path.split('.').filter(Boolean);
  let at = obj as unknown as JsonObject;
  for (const f of fields.slice(0, -1)) {
    const next = at[f];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) at[f] = {};
    at = at[f] as JsonObject;
  }
  at[fields[fields.length - 1]!] = value;
}

/** The scale subresource (autoscaling/v1 Scale) over the CRD's replica paths. */
function scaleSubresource(v: CustomResourceVersionSpec, metaOptions: { namespaced: boolean; nameValidator: 'subdomain' }): SubresourceStrategy {
  const paths = v.scale!;
  return {
    view: {
      toView(obj) {
        const { name, namespace, uid, resourceVersion, creationTimestamp } = obj.metadata;
        const selector = readPath(obj, paths.labelSelectorPath);
        return {
          metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
          spec: { replicas: readPath(obj, paths.specReplicasPath) ?? 0 },
          status: { replicas: readPath(obj, paths.statusReplicasPath) ?? 0, ...(typeof selector === 'string' ? { selector } : {}) },
        };
      },
      fromView(view, parent) {
        const replicas = (view['spec'] as { replicas?: unknown } | undefined)?.replicas ?? 0;
        if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
          throw newInvalid({ group: 'autoscaling', kind: 'Scale' }, parent.metadata.name ?? '', [invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
        }
        const next = structuredClone(parent);
        writePath(next, paths.specReplicasPath, replicas);
        next.metadata.resourceVersion = view.metadata.resourceVersion;
        return next;
      },
    },
    // `requested` is the parent fromView made: only the replicas at the spec path move over.
    merge(requested, current) {
      const next = structuredClone(current);
      writePath(next, paths.specReplicasPath, readPath(requested, paths.specReplicasPath) ?? 0);
      // A scale is a spec change: generation counts it as the main resource would.
      if (specPart(next) !== specPart(current)) next.metadata.generation = (current.metadata.generation ?? 1) + 1;
      return next;
    },
    validateUpdate: (obj, old) => [...validateObjectMetaUpdate(obj.metadata, old.metadata, metaOptions), ...validateContent(obj, v.schema)],
  };
}

const TYPE_META = new Set(['apiVersion', 'kind', 'metadata']);

/** The object without apiVersion, kind and metadata, which the schema does not govern. */
function content(obj: KubeObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) if (!TYPE_META.has(k) && v !== undefined) out[k] = v as JsonValue;
  return out;
}

function contentSchema(schema: JSONSchemaProps): JSONSchemaProps {
  const properties = { ...(schema.properties ?? {}) };
  for (const k of TYPE_META) delete properties[k];
  return { ...schema, properties, required: (schema.required ?? []).filter((r) => !TYPE_META.has(r)) };
}

/** Fills schema defaults into the object's content (metadata untouched). Mutates obj. */
export function defaultObject(obj: KubeObject, schema: JSONSchemaProps | undefined): void {
  if (!schema) return;
  const defaulted = applyDefaults(content(obj), contentSchema(schema)) as JsonObject;
  Object.assign(obj, defaulted);
}

function validateContent(obj: KubeObject, schema: JSONSchemaProps | undefined): FieldErrorList {
  return schema ? validateAgainstSchema(content(obj), contentSchema(schema), '') : [];
}

/** Everything but metadata and status: what a generation counts changes of. */
function specPart(obj: KubeObject): string {
  const { metadata: _m, status: _s, ...rest } = obj;
  return JSON.stringify(rest);
}

const DEFAULT_COLUMNS: CustomResourceColumnDefinition[] = [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];

/** One cell of a printer column: the selected value(s), as upstream's table convertor prints them. */
function cell(obj: KubeObject, column: CustomResourceColumnDefinition): unknown {
  const steps = parseSimpleJsonPath(column.jsonPath ?? '');
  if (!steps) return null;
  const values = evaluateSimpleJsonPath(obj as unknown as JsonValue, steps);
  if (values.length === 0) return null;
  if (values.length === 1) {
    const v = values[0]!;
    // Upstream shows times as their age, as the built-in Age columns do.
    if (column.type === 'date') return typeof v === 'string' ? ageOf(v, new Date()) : null;
    if (column.type === 'string' && typeof v !== 'string') return typeof v === 'object' ? JSON.stringify(v) : String(v);
    return v;
  }
  return values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(',');
}

/**
 * The behaviour of one served version of a custom resource: schema defaulting and validation
 * (422 naming the field), generation counting, status only through `status` when that subresource
 * is served, and Table columns from additionalPrinterColumns.
 */
export function customResourceStrategy(v: CustomResourceVersionSpec): ResourceStrategy {
  const metaOptions = { namespaced: v.namespaced, nameValidator: 'subdomain' as const };
  const status: SubresourceStrategy = {
    merge(requested, current) {
      // Upstream's CR status strategy keeps the stored metadata, except the managed fields the
      // write (an apply) tracked.
      const next: KubeObject = { ...current };
      if (requested.metadata.managedFields !== undefined) next.metadata = { ...current.metadata, managedFields: requested.metadata.managedFields };
      if (requested['status'] === undefined) delete next['status'];
      else next['status'] = requested['status'];
      defaultObject(next, v.schema);
      return next;
    },
    validateUpdate: (obj, old) => [...validateObjectMetaUpdate(obj.metadata, old.metadata, metaOptions), ...validateContent(obj, v.schema)],
  };
  const columns = v.columns.length > 0 ? v.columns : DEFAULT_COLUMNS;
  const tableColumns: TableColumnDefinition[] = [
    nameColumn,
    ...columns.map((c) => ({
      name: c.name ?? '',
      type: (c.type ?? 'string') as TableColumnDefinition['type'],
      format: c.format ?? '',
      description: c.description ?? '',
      priority: c.priority ?? 0,
    })),
  ];
  return {
    namespaceScoped: v.namespaced,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    prepareForCreate(obj) {
      if (v.terminating) {
        const message = 'create not allowed while custom resource definition is terminating';
        throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'MethodNotAllowed', code: 405 });
      }
      if (v.statusSubresource) delete obj['status'];
      obj.metadata.generation = 1;
      defaultObject(obj, v.schema);
    },
    prepareForUpdate(obj, old) {
      if (v.statusSubresource) {
        if (old['status'] === undefined) delete obj['status'];
        else obj['status'] = old['status'];
      }
      defaultObject(obj, v.schema);
      const changed = v.statusSubresource ? specPart(obj) !== specPart(old) : JSON.stringify(content(obj)) !== JSON.stringify(content(old));
      obj.metadata.generation = (old.metadata.generation ?? 1) + (changed ? 1 : 0);
    },
    validate: (obj) => [...validateObjectMeta(obj.metadata, metaOptions), ...validateContent(obj, v.schema)],
    validateUpdate: (obj, old) => [...validateObjectMetaUpdate(obj.metadata, old.metadata, metaOptions), ...validateContent(obj, v.schema)],
    subresources: {
      ...(v.statusSubresource ? { status } : {}),
      ...(v.scale ? { scale: scaleSubresource(v, metaOptions) } : {}),
    },
    table: {
      columns: tableColumns,
      cells: (obj) => [obj.metadata.name ?? '', ...columns.map((c) => cell(obj, c))],
    },
  };
}
