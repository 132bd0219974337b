import type { HandlerResult, RequestScope } from './scope.js';
import { decodeObjectBody } from './decode-body.js';
import { managerFor, parseWriteQuery } from './options.js';
import { withTypeMeta } from './get.js';
import { authorizeCreateFor } from './authorize-create.js';
import { subresourceView, updateView } from './subresource-view.js';

/** PUT of one object: 200 on update, 201 when it created the object (SPEC 4.3). */
export async function updateResource(scope: RequestScope): Promise<HandlerResult> {
  const opts = parseWriteQuery(scope.query, 'UpdateOptions');
  const view = subresourceView(scope);
  if (view) return updateView(scope, view, opts);
  const reg = scope.registry;
  const { object: body, warnings: decodeWarnings } = decodeObjectBody(scope, reg.info.kind, reg.apiVersion(), opts.fieldValidation);
  const { object, created } = await reg.update(scope.info.namespace, scope.info.name, body, {
    dryRun: opts.dryRun,
    subresource: scope.info.subresource || undefined,
    fieldManager: managerFor(opts, scope.userAgent),
    user: scope.user,
    report: scope.report,
    beforeCreate: authorizeCreateFor(scope),
  });
  const warnings = [...decodeWarnings, ...(reg.strategy.warnings?.(object) ?? [])];
  return { code: created ? 201 : 200, object: withTypeMeta(scope, object), warnings };
}
