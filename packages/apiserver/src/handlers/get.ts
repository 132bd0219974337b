import type { SubresourceView } from '../registry/strategy.js';
import type { HandlerResult, RequestScope } from './scope.js';

/** GET of one object; resourceVersion per SPEC 4.4 (unset: most recent; other: not older than). */
export async function getResource(scope: RequestScope): Promise<HandlerResult> {
  const rv = scope.query.get('resourceVersion') ?? '';
  const obj = await scope.registry.get(scope.info.namespace, scope.info.name, rv);
  const view = subresourceView(scope);
  return { code: 200, object: view ? view.toView(obj) : withTypeMeta(scope, obj) };
}

/** The view of the requested subresource when it is served as a kind of its own (scale). */
export function subresourceView(scope: RequestScope): SubresourceView | undefined {
  return scope.info.subresource ? scope.registry.strategy.subresources?.[scope.info.subresource]?.view : undefined;
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
