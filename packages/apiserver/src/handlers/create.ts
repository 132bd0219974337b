import type { HandlerResult, RequestScope } from './scope.js';
import { decodeObjectBody } from './decode-body.js';
import { managerFor, parseWriteQuery } from './options.js';
import { withTypeMeta } from './get.js';

/** POST to a collection: 201 with the stored object (200 under dry run is still 201, as upstream). */
export async function createResource(scope: RequestScope): Promise<HandlerResult> {
  const opts = parseWriteQuery(scope.query, 'CreateOptions');
  const reg = scope.registry;
  const { object: body, warnings: decodeWarnings } = decodeObjectBody(scope, reg.info.kind, reg.apiVersion(), opts.fieldValidation);
  const created = await reg.create(scope.info.namespace, body, {
    dryRun: opts.dryRun,
    fieldManager: managerFor(opts, scope.userAgent),
  });
  const warnings = [...decodeWarnings, ...(reg.strategy.warnings?.(created) ?? [])];
  return { code: 201, object: withTypeMeta(scope, created), warnings };
}
