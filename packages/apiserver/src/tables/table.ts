import type { KubeObject, ListMeta } from '@cluster/apimachinery';
import type { ResourceStrategy, TableColumnDefinition } from '../registry/strategy.js';
import { nameColumn } from './columns.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

const defaultColumns: TableColumnDefinition[] = [
  nameColumn,
  { name: 'Created At', type: 'date', format: '', description: 'The time at which the object was created.', priority: 0 },
];

export interface TableOptions {
  metaApiVersion: string; // meta.<apiDomain>/v1
  includeObject: IncludeObject;
}

/** The object embedded in a row: nothing, PartialObjectMetadata, or the whole object. */
function rowObject(obj: KubeObject, apiVersion: string, opts: TableOptions): KubeObject | undefined {
  switch (opts.includeObject) {
    case 'None':
      return undefined;
    case 'Object':
      return obj;
    default:
      return { kind: 'PartialObjectMetadata', apiVersion: opts.metaApiVersion, metadata: obj.metadata };
  }
}

/**
 * Builds a Table (SPEC 2.6) from objects: the strategy's columns, or the default Name/Created At.
 * `apiVersion` is the resource's group/version, stamped on embedded objects.
 */
export function toTable(
  objects: KubeObject[],
  listMeta: ListMeta,
  strategy: ResourceStrategy,
  opts: TableOptions,
  apiVersion: string,
  kind: string,
): KubeObject {
  const custom = strategy.table;
  const rows = objects.map((o) => {
    const full = o.apiVersion ? o : { apiVersion, kind, ...o };
    const cells = custom ? custom.cells(o) : [o.metadata.name ?? '', o.metadata.creationTimestamp ?? null];
    const row: Record<string, unknown> = { cells };
    const embedded = rowObject(full, apiVersion, opts);
    if (embedded) row.object = embedded;
    return row;
  });
  return {
    kind: 'Table',
    apiVersion: opts.metaApiVersion,
    metadata: listMeta as KubeObject['metadata'],
    columnDefinitions: custom ? custom.columns : defaultColumns,
    rows,
  };
}
