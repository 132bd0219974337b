import type { HandlerResult, RequestScope } from './scope.js';
import { getView, subresourceView } from './subresource-view.js';

/** GET of one object; resourceVersion per SPEC 4.4 (unset: most recent; other: not older than). */
export async function getResource(scope: RequestScope): Promise<HandlerResult> {
  const rv = scope.query.get('resourceVersion') ?? '';
  const view = subresourceView(scope);
  if (view) return getView(scope, view, rv);
  const obj = await scope.registry.get(scope.info.namespace, scope.info.name, rv);
  return { code: 200, object: withTypeMeta(scope, obj) };
}

/**
 * The object with apiVersion/kind of the served version. Objects from the watch cache are shared
 * by every reader and watcher, so a differing one is copied, never changed in place.
 */
export function withTypeMeta<T extends { apiVersion?: string; kind?: string }>(scope: RequestScope, obj: T): T {
  const apiVersion = scope.registry.apiVersion();
  const kind = scope.registry.info.kind;
  if (obj.apiVersion === apiVersion && obj.kind === kind) return obj;
  return { ...obj, apiVersion, kind };
}
