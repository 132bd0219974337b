import { newBadRequest, newNotFound, newUnsupportedMediaType, parsePatchJson, type KubeObject, type PatchType } from '@cluster/apimachinery';
import type { SubresourceInfo } from '../registry/resource-info.js';
import type { SubresourceView } from '../registry/strategy.js';
import { checkObjectShape, decodeObjectBody } from './decode-body.js';
import { managerFor, parseWriteQuery, type WriteQuery } from './options.js';
import { APPLY_PATCH_TYPE, PATCH_TYPES, applyPatchOfType } from './patch-types.js';
import type { HandlerResult, RequestScope } from './scope.js';

/** A subresource served as an object of its own kind, with what the handlers need of it. */
export interface ViewTarget {
  info: SubresourceInfo;
  view: SubresourceView;
  apiVersion: string;
}

/** The view of the request's subresource, when it is one (e.g. deployments/scale). */
export function subresourceView(scope: RequestScope): ViewTarget | undefined {
  const name = scope.info.subresource;
  if (!name) return undefined;
  const view = scope.registry.strategy.subresources?.[name]?.view;
  const info = scope.registry.info.subresources?.find((s) => s.name === name);
  if (!view || !info) return undefined;
  const group = info.group ?? scope.registry.info.group;
  const version = info.version ?? scope.registry.info.version;
  return { info, view, apiVersion: group ? `${group}/${version}` : version };
}

function present(target: ViewTarget, parent: KubeObject): KubeObject {
  return { ...target.view.toView(parent), apiVersion: target.apiVersion, kind: target.info.kind };
}

/** GET of the view, built from the stored parent. */
export async function getView(scope: RequestScope, target: ViewTarget, resourceVersion: string): Promise<HandlerResult> {
  const parent = await scope.registry.get(scope.info.namespace, scope.info.name, resourceVersion);
  return { code: 200, object: present(target, parent) };
}

/** PUT of the view: its writable part goes into the stored parent, under the usual preconditions. */
export async function updateView(scope: RequestScope, target: ViewTarget, opts: WriteQuery): Promise<HandlerResult> {
  const { object: body, warnings } = decodeObjectBody(scope, target.info.kind, target.apiVersion, opts.fieldValidation, target.info.definitionName);
  const { name, namespace } = scope.info;
  if (body.metadata.name !== name) {
    throw newBadRequest(`the name of the object (${body.metadata.name ?? ''}) does not match the name on the URL (${name})`);
  }
  const reg = scope.registry;
  const { object } = await reg.patch(
    namespace,
    name,
    (current) => {
      if (!current) throw newNotFound(reg.groupResource, name);
      return target.view.fromView(body, current);
    },
    { dryRun: opts.dryRun, subresource: scope.info.subresource, fieldManager: managerFor(opts, scope.userAgent), user: scope.user, report: scope.report },
  );
  return { code: 200, object: present(target, object), warnings };
}

/** PATCH of the view: the patch applies to the view of the stored parent, then goes back into it. */
export async function patchView(scope: RequestScope, target: ViewTarget, media: string): Promise<HandlerResult> {
  if (media === APPLY_PATCH_TYPE) throw newUnsupportedMediaType(media, PATCH_TYPES.filter((t) => t !== APPLY_PATCH_TYPE));
  const opts = parseWriteQuery(scope.query, 'PatchOptions');
  const type = media as PatchType;
  const patch = parsePatchJson((scope.body ?? Buffer.alloc(0)).toString('utf8'), type);
  const reg = scope.registry;
  const { name, namespace } = scope.info;
  const { object } = await reg.patch(
    namespace,
    name,
    (current) => {
      if (!current) throw newNotFound(reg.groupResource, name);
      const patched = applyPatchOfType(type, present(target, current), patch, undefined);
      const view = checkObjectShape(patched, target.info.kind, target.apiVersion);
      return target.view.fromView(view, current);
    },
    { dryRun: opts.dryRun, subresource: scope.info.subresource, fieldManager: managerFor(opts, scope.userAgent), user: scope.user, report: scope.report },
  );
  return { code: 200, object: present(target, object) };
}
