import type { HandlerResult, RequestScope } from './scope.js';
import { parseDeleteOptions } from './options.js';
import { decodeDeleteOptionsBody } from './delete-options-body.js';
import { withTypeMeta } from './get.js';
import { parseListQuery } from './list-options.js';
import { selectionPredicate } from './selectors.js';
import { successStatus } from '@cluster/apimachinery';

/**
 * DELETE of one object: a Success Status naming it when it is gone, or the object itself (200)
 * while finalizers hold it (SPEC 3.1), as upstream's default store answers.
 */
export async function deleteResource(scope: RequestScope): Promise<HandlerResult> {
  const opts = parseDeleteOptions(scope.query, decodeDeleteOptionsBody(scope));
  const reg = scope.registry;
  const res = await reg.delete(scope.info.namespace, scope.info.name, { ...opts, user: scope.user, report: scope.report });
  if (!res.deleted) return { code: 200, object: withTypeMeta(scope, res.object) };
  return { code: 200, object: reg.deletedStatus(res.object) };
}

/** DELETE of a collection: deletes what the selectors pick; 200 with a Success Status (SPEC 4.3). */
export async function deleteCollection(scope: RequestScope): Promise<HandlerResult> {
  const opts = parseDeleteOptions(scope.query, decodeDeleteOptionsBody(scope));
  const q = parseListQuery(scope.query, false);
  const predicate = selectionPredicate(scope.registry, q.labelSelector, q.fieldSelector);
  await scope.registry.deleteCollection(scope.info.namespace, { predicate, hasSelector: predicate !== undefined }, { ...opts, user: scope.user, report: scope.report });
  return { code: 200, object: successStatus() };
}
