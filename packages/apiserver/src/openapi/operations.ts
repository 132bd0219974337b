import type { GroupVersionKind } from '@cluster/apimachinery';
import type { ResourceInfo, SubresourceInfo, Verb } from '../registry/resource-info.js';
import {
  DELETE_COLLECTION_PARAMETERS,
  DELETE_PARAMETERS,
  NAMESPACE_PARAMETER,
  PATCH_PARAMETERS,
  QUERY,
  WRITE_PARAMETERS,
  listParameters,
  nameParameter,
  type ParameterSpec,
} from './parameters.js';

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';
/** Values of `x-kubernetes-action`, as upstream. */
export type KubeAction = 'get' | 'list' | 'put' | 'patch' | 'post' | 'delete' | 'deletecollection' | 'watch' | 'watchlist';

/** Patch media types the server accepts, in upstream's order. */
export const PATCH_MEDIA_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;

/** Response media types advertised by default. */
export const DEFAULT_PRODUCES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'] as const;

export const STATUS_DEFINITION = 'io.k8s.apimachinery.pkg.apis.meta.v1.Status';
export const DELETE_OPTIONS_DEFINITION = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';
export const PATCH_DEFINITION = 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch';
export const WATCH_EVENT_DEFINITION = 'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent';

/** One HTTP operation, independent of the OpenAPI version it is rendered in. */
export interface OperationSpec {
  method: HttpMethod;
  action: KubeAction;
  operationId: string;
  description: string;
  tag: string;
  gvk: GroupVersionKind;
  parameters: ParameterSpec[];
  body?: { definition: string; required: boolean; patch: boolean };
  responses: { code: number; description: string; definition: string }[];
  produces: string[];
}

/** One path with its path-level parameters and operations. */
export interface PathSpec {
  path: string;
  group: string;
  version: string;
  parameters: ParameterSpec[];
  operations: OperationSpec[];
}

/** Options shared by the OpenAPI builders. */
export interface OperationOptions {
  /** Domain suffix trimmed from group names in operation ids and tags (default `k8s.io`). */
  apiDomain?: string;
  /** Response media types (default {@link DEFAULT_PRODUCES}); `;stream=watch` forms are derived. */
  produces?: readonly string[];
  /** Also describe the deprecated `/watch/` paths (default false). */
  legacyWatchPaths?: boolean;
}

const OK = (definition: string) => ({ code: 200, description: 'OK', definition });
const CREATED = (definition: string) => ({ code: 201, description: 'Created', definition });
const ACCEPTED = (definition: string) => ({ code: 202, description: 'Accepted', definition });

/**
 * Every path and operation a set of resources serves: collection, item, all-namespaces and
 * subresource paths, each operation only for the verbs the resource declares. Throws when a
 * resource's definitionName does not end with its kind (the list definition is derived from it).
 * Paths are sorted.
 */
export function resourcePaths(resources: readonly ResourceInfo[], options: OperationOptions = {}): PathSpec[] {
  const paths: PathSpec[] = [];
  for (const r of resources) paths.push(...pathsOf(r, options));
  return paths.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** `/api/v1` or `/apis/<group>/<version>`. */
export function groupVersionPrefix(group: string, version: string): string {
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

/** The list definition of a resource: its definitionName with the kind replaced by listKind. */
export function listDefinitionName(r: ResourceInfo): string {
  if (!r.definitionName.endsWith(`.${r.kind}`)) {
    throw new Error(`definitionName ${r.definitionName} of ${r.resource} does not end with kind ${r.kind}`);
  }
  return `${r.definitionName.slice(0, -r.kind.length)}${r.listKind}`;
}

function pathsOf(r: ResourceInfo, options: OperationOptions): PathSpec[] {
  const ctx = new Context(r, options);
  const has = (v: Verb) => r.verbs.includes(v);
  const prefix = groupVersionPrefix(r.group, r.version);
  const scope = r.namespaced ? `${prefix}/namespaces/{namespace}` : prefix;
  const scopeParams = r.namespaced ? [NAMESPACE_PARAMETER] : [];
  const itemParams = [nameParameter(r.kind), ...scopeParams];
  const ns = r.namespaced ? 'Namespaced' : '';
  const out: PathSpec[] = [];
  const add = (path: string, parameters: ParameterSpec[], operations: (OperationSpec | undefined)[]) => {
    const ops = operations.filter((o): o is OperationSpec => o !== undefined);
    if (ops.length > 0) out.push({ path, group: r.group, version: r.version, parameters: [...parameters, QUERY.pretty], operations: ops });
  };

  add(`${scope}/${r.resource}`, scopeParams, [
    has('list') ? ctx.list(`list${ctx.gv}${ns}${r.kind}`) : undefined,
    has('create') ? ctx.write('post', 'post', `create${ctx.gv}${ns}${r.kind}`, r.definitionName, `create a ${r.kind}`) : undefined,
    has('deletecollection') ? ctx.deleteCollection(`delete${ctx.gv}Collection${ns}${r.kind}`) : undefined,
  ]);
  add(`${scope}/${r.resource}/{name}`, itemParams, [
    has('get') ? ctx.read(`read${ctx.gv}${ns}${r.kind}`, r.definitionName, `read the named ${r.kind}`) : undefined,
    has('update') ? ctx.write('put', 'put', `replace${ctx.gv}${ns}${r.kind}`, r.definitionName, `replace the named ${r.kind}`) : undefined,
    has('patch') ? ctx.write('patch', 'patch', `patch${ctx.gv}${ns}${r.kind}`, r.definitionName, `partially update the named ${r.kind}`) : undefined,
    has('delete') ? ctx.delete(`delete${ctx.gv}${ns}${r.kind}`) : undefined,
  ]);
  if (r.namespaced && has('list')) add(`${prefix}/${r.resource}`, [], [ctx.list(`list${ctx.gv}${r.kind}ForAllNamespaces`)]);
  if (options.legacyWatchPaths && has('watch')) {
    const watchScope = r.namespaced ? `${prefix}/watch/namespaces/{namespace}` : `${prefix}/watch`;
    const watchParams = listParameters(true);
    add(`${watchScope}/${r.resource}`, [...scopeParams, ...watchParams], [ctx.watch('watchlist', `watch${ctx.gv}${ns}${r.kind}List`)]);
    add(`${watchScope}/${r.resource}/{name}`, [...itemParams, ...watchParams], [ctx.watch('watch', `watch${ctx.gv}${ns}${r.kind}`)]);
    if (r.namespaced) add(`${prefix}/watch/${r.resource}`, watchParams, [ctx.watch('watchlist', `watch${ctx.gv}${r.kind}ListForAllNamespaces`)]);
  }
  for (const sub of r.subresources ?? []) {
    add(`${scope}/${r.resource}/{name}/${sub.name}`, itemParams, subresourceOperations(ctx.forSubresource(sub), r, sub, ns));
  }
  return out;
}

function subresourceOperations(ctx: Context, r: ResourceInfo, sub: SubresourceInfo, ns: string): (OperationSpec | undefined)[] {
  const has = (v: Verb) => sub.verbs.includes(v);
  const id = `${ctx.gv}${ns}${r.kind}${upperFirst(sub.name)}`;
  const def = sub.definitionName;
  return [
    has('get') ? ctx.read(`read${id}`, def, `read ${sub.name} of the named ${r.kind}`) : undefined,
    has('create') ? ctx.write('post', 'post', `create${id}`, def, `create ${sub.name} of a ${r.kind}`) : undefined,
    has('update') ? ctx.write('put', 'put', `replace${id}`, def, `replace ${sub.name} of the named ${r.kind}`) : undefined,
    has('patch') ? ctx.write('patch', 'patch', `patch${id}`, def, `partially update ${sub.name} of the named ${r.kind}`) : undefined,
  ];
}

/** Builds the operations of one resource (or subresource); holds what they share. */
class Context {
  readonly gv: string;
  readonly tag: string;
  constructor(
    private readonly r: ResourceInfo,
    private readonly options: OperationOptions,
    private readonly gvk: GroupVersionKind = { group: r.group, version: r.version, kind: r.kind },
  ) {
    const groupName = groupIdentifier(r.group, options.apiDomain ?? 'k8s.io');
    this.gv = `${upperFirst(groupName)}${upperFirst(r.version)}`;
    this.tag = `${groupName}_${r.version}`;
  }

  forSubresource(sub: SubresourceInfo): Context {
    return new Context(this.r, this.options, {
      group: sub.group ?? this.r.group,
      version: sub.version ?? this.r.version,
      kind: sub.kind,
    });
  }

  private produces(stream: boolean): string[] {
    const base = [...(this.options.produces ?? DEFAULT_PRODUCES)];
    if (!stream) return base;
    return [...base, ...base.filter((m) => !m.includes('yaml')).map((m) => `${m};stream=watch`)];
  }

  private op(method: HttpMethod, action: KubeAction, operationId: string, description: string, rest: Partial<OperationSpec>): OperationSpec {
    return {
      method,
      action,
      operationId,
      description,
      tag: this.tag,
      gvk: { ...this.gvk },
      parameters: [],
      responses: [],
      produces: this.produces(false),
      ...rest,
    };
  }

  list(operationId: string): OperationSpec {
    const watchable = this.r.verbs.includes('watch');
    return this.op('get', 'list', operationId, `list${watchable ? ' or watch' : ''} objects of kind ${this.r.kind}`, {
      parameters: listParameters(watchable),
      responses: [OK(listDefinitionName(this.r))],
      produces: this.produces(watchable),
    });
  }

  watch(action: 'watch' | 'watchlist', operationId: string): OperationSpec {
    return this.op('get', action, operationId, `watch changes to ${this.r.kind} objects (deprecated: use watch=true on a list)`, {
      responses: [OK(WATCH_EVENT_DEFINITION)],
      produces: this.produces(true),
    });
  }

  read(operationId: string, definition: string, description: string): OperationSpec {
    return this.op('get', 'get', operationId, description, { responses: [OK(definition)] });
  }

  write(method: 'post' | 'put' | 'patch', action: KubeAction, operationId: string, definition: string, description: string): OperationSpec {
    const patch = method === 'patch';
    const responses = [OK(definition), CREATED(definition)];
    if (method === 'post') responses.push(ACCEPTED(definition));
    return this.op(method, action, operationId, description, {
      parameters: [...(patch ? PATCH_PARAMETERS : WRITE_PARAMETERS)],
      body: { definition: patch ? PATCH_DEFINITION : definition, required: true, patch },
      responses,
    });
  }

  delete(operationId: string): OperationSpec {
    return this.op('delete', 'delete', operationId, `delete a ${this.r.kind}`, {
      parameters: [...DELETE_PARAMETERS],
      body: { definition: DELETE_OPTIONS_DEFINITION, required: false, patch: false },
      responses: [OK(STATUS_DEFINITION), ACCEPTED(STATUS_DEFINITION)],
    });
  }

  deleteCollection(operationId: string): OperationSpec {
    return this.op('delete', 'deletecollection', operationId, `delete a collection of ${this.r.kind}`, {
      parameters: [...DELETE_COLLECTION_PARAMETERS],
      body: { definition: DELETE_OPTIONS_DEFINITION, required: false, patch: false },
      responses: [OK(STATUS_DEFINITION)],
    });
  }
}

/** `core`, `apps`, `rbacAuthorization` (group with the API domain trimmed, dots camel-cased). */
export function groupIdentifier(group: string, apiDomain: string): string {
  if (group === '') return 'core';
  const trimmed = group.endsWith(`.${apiDomain}`) ? group.slice(0, -apiDomain.length - 1) : group;
  return trimmed
    .split(/[.-]/)
    .filter((p) => p !== '')
    .map((p, i) => (i === 0 ? p : upperFirst(p)))
    .join('');
}

function upperFirst(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
