import type { HandlerResult, RequestScope } from './scope.js';

/** GET of one object; resourceVersion per SPEC 4.4 (unset: most recent; other: not older than). */
export async function getResource(scope: RequestScope): Promise<HandlerResult> {
  const rv = scope.query.get('resourceVersion') ?? '';
  const obj = await scope.registry.get(scope.info.namespace, scope.info.name, rv === '0' ? '' : rv);
  return { code: 200, object: withTypeMeta(scope, obj) };
}

/** Stamps apiVersion/kind of the served version on an object read from storage. */
export function withTypeMeta<T extends { apiVersion?: string; kind?: string }>(scope: RequestScope, obj: T): T {
  obj.apiVersion = scope.registry.apiVersion();
  obj.kind = scope.registry.info.kind;
  return obj;
}
