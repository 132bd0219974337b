/** A request parameter as both OpenAPI renderers need it. */
export interface ParameterSpec {
  name: string;
  in: 'query' | 'path';
  type: 'string' | 'boolean' | 'integer';
  description: string;
  required?: boolean;
}

const q = (name: string, type: ParameterSpec['type'], description: string): ParameterSpec => ({
  name,
  in: 'query',
  type,
  description,
});

/** Every query parameter the generic handlers understand, by name. */
export const QUERY = {
  pretty: q('pretty', 'string', "If 'true', the output is indented."),
  dryRun: q('dryRun', 'string', 'When present, the request is fully processed but nothing is persisted. The only value is "All".'),
  fieldManager: q(
    'fieldManager',
    'string',
    'Name of the actor making the change, at most 128 printable characters. Required for apply patches.',
  ),
  fieldValidation: q(
    'fieldValidation',
    'string',
    'How to treat unknown or duplicate fields in the body: Ignore (drop them), Warn (drop them and send a Warning header each; the default) or Strict (fail the request).',
  ),
  force: q('force', 'boolean', 'Apply only: take ownership of fields that conflict with other managers. Must be unset for other patch types.'),
  labelSelector: q('labelSelector', 'string', 'Only return objects whose labels match this selector. Defaults to everything.'),
  fieldSelector: q('fieldSelector', 'string', 'Only return objects whose fields match this selector. Defaults to everything.'),
  limit: q(
    'limit',
    'integer',
    'Maximum number of items to return. When more exist, metadata.continue is set; all pages are served from the same snapshot. Not supported with watch.',
  ),
  continue: q(
    'continue',
    'string',
    'Token from a previous page of the same list. An expired token is answered with 410 Gone. Not supported with watch.',
  ),
  resourceVersion: q('resourceVersion', 'string', 'Constrains which resource version the request may be served from. Defaults to unset.'),
  resourceVersionMatch: q(
    'resourceVersionMatch',
    'string',
    'How resourceVersion applies to a list: Exact or NotOlderThan. Set it whenever resourceVersion is set on a list.',
  ),
  watch: q('watch', 'boolean', 'Stream add, update and delete notifications instead of returning a list. Specify resourceVersion.'),
  allowWatchBookmarks: q(
    'allowWatchBookmarks',
    'boolean',
    'Ask for BOOKMARK events. The server sends them at its discretion; ignored when not watching.',
  ),
  sendInitialEvents: q(
    'sendInitialEvents',
    'boolean',
    'With watch=true, first send synthetic ADDED events for the current state, then a bookmark marking their end.',
  ),
  timeoutSeconds: q('timeoutSeconds', 'integer', 'Upper bound of the duration of a list or watch call, whatever the activity.'),
  gracePeriodSeconds: q('gracePeriodSeconds', 'integer', 'Seconds before the object is deleted; zero deletes immediately.'),
  orphanDependents: q('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy. When true, dependents are orphaned.'),
  propagationPolicy: q('propagationPolicy', 'string', 'How dependents are garbage collected: Orphan, Background or Foreground.'),
  ignoreStoreReadErrorWithClusterBreakingPotential: q(
    'ignoreStoreReadErrorWithClusterBreakingPotential',
    'boolean',
    'Delete an object that cannot be read from storage. Dangerous; off by default.',
  ),
} satisfies Record<string, ParameterSpec>;

/** The `{name}` path parameter of an item path. */
export function nameParameter(kind: string): ParameterSpec {
  return { name: 'name', in: 'path', type: 'string', required: true, description: `Name of the ${kind}.` };
}

/** The `{namespace}` path parameter of a namespaced path. */
export const NAMESPACE_PARAMETER: ParameterSpec = {
  name: 'namespace',
  in: 'path',
  type: 'string',
  required: true,
  description: 'Namespace of the objects: a scope for names and authorization.',
};

const WATCH_ONLY = [QUERY.allowWatchBookmarks, QUERY.sendInitialEvents, QUERY.watch];

/** Query parameters of a list (GET on a collection); watch ones only when the resource is watchable. */
export function listParameters(watchable: boolean): ParameterSpec[] {
  const base = [
    QUERY.continue,
    QUERY.fieldSelector,
    QUERY.labelSelector,
    QUERY.limit,
    QUERY.resourceVersion,
    QUERY.resourceVersionMatch,
    QUERY.timeoutSeconds,
  ];
  return sortByName(watchable ? [...base, ...WATCH_ONLY] : base);
}

/** Query parameters of create and replace. */
export const WRITE_PARAMETERS: readonly ParameterSpec[] = [QUERY.dryRun, QUERY.fieldManager, QUERY.fieldValidation];

/** Query parameters of patch: the write ones plus `force` (kubectl looks for fieldValidation here). */
export const PATCH_PARAMETERS: readonly ParameterSpec[] = [QUERY.dryRun, QUERY.fieldManager, QUERY.fieldValidation, QUERY.force];

/** Query parameters of delete. */
export const DELETE_PARAMETERS: readonly ParameterSpec[] = [
  QUERY.dryRun,
  QUERY.gracePeriodSeconds,
  QUERY.ignoreStoreReadErrorWithClusterBreakingPotential,
  QUERY.orphanDependents,
  QUERY.propagationPolicy,
];

/** Query parameters of deletecollection: delete options plus list selection. */
export const DELETE_COLLECTION_PARAMETERS: readonly ParameterSpec[] = sortByName([
  ...DELETE_PARAMETERS,
  ...listParameters(false),
  QUERY.sendInitialEvents,
]);

function sortByName(params: ParameterSpec[]): ParameterSpec[] {
  return params.sort((a, b) => a.name.localeCompare(b.name));
}
