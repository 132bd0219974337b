import { newBadRequest, type KubeObject } from '@cluster/apimachinery';
import type { HandlerResult, RequestScope } from './scope.js';
import { decodeObjectBody } from './decode-body.js';
import { managerFor, parseWriteQuery } from './options.js';
import { withTypeMeta } from './get.js';

/** POST to a collection: 201 with the stored object (200 under dry run is still 201, as upstream). */
export async function createResource(scope: RequestScope): Promise<HandlerResult> {
  const opts = parseWriteQuery(scope.query, 'CreateOptions');
  const reg = scope.registry;
  if (scope.info.subresource) return createSubresource(scope, opts.dryRun);
  const { object: body, warnings: decodeWarnings } = decodeObjectBody(scope, reg.info.kind, reg.apiVersion(), opts.fieldValidation);
  scope.onRequestObject?.(body);
  if (reg.operations.virtual) {
    checkBodyNamespace(scope, body);
    const answer = await reg.operations.virtual.create({ user: scope.user, namespace: scope.info.namespace, dryRun: opts.dryRun }, body);
    // A Status answer (core/v1 bindings) is sent as is, as for subresource creaters.
    const object = answer.kind === 'Status' && answer.apiVersion === 'v1' ? answer : withTypeMeta(scope, answer);
    return { code: 201, object, warnings: decodeWarnings };
  }
  const created = await reg.create(scope.info.namespace, body, {
    dryRun: opts.dryRun,
    fieldManager: managerFor(opts, scope.userAgent),
    user: scope.user,
    report: scope.report,
  });
  const warnings = [...decodeWarnings, ...(reg.strategy.warnings?.(created) ?? [])];
  return { code: 201, object: withTypeMeta(scope, created), warnings };
}

/**
 * POST to `<object>/<subresource>` (serviceaccounts/token): the body is of the subresource's own
 * kind; the parent must exist (404 otherwise); the creater's answer is returned with 201.
 */
async function createSubresource(scope: RequestScope, dryRun: boolean): Promise<HandlerResult> {
  const reg = scope.registry;
  const name = scope.info.subresource;
  const creater = reg.operations.subresourceCreaters?.[name];
  const sub = reg.info.subresources?.find((s) => s.name === name);
  if (!creater || !sub) throw newBadRequest(`subresource ${name} does not accept create`);
  const group = sub.group ?? reg.info.group;
  const apiVersion = `${group ? `${group}/` : ''}${sub.version ?? reg.info.version}`;
  const { object: body, warnings } = decodeObjectBody(scope, sub.kind, apiVersion, 'Warn', sub.definitionName, sub.alsoAcceptedVersions);
  scope.onRequestObject?.(body);
  const parent = await reg.get(scope.info.namespace, scope.info.name);
  await reg.admitSubresourceCreate(scope.info.namespace, scope.info.name, name, body, { dryRun, user: scope.user, report: scope.report });
  const answer = await creater.create({ user: scope.user, namespace: scope.info.namespace, name: scope.info.name, dryRun }, parent, body);
  // A creater may answer with a Status (pods/eviction), sent as is with 201, as upstream's create handler does.
  const object = answer.kind === 'Status' && answer.apiVersion === 'v1' ? answer : { ...answer, apiVersion, kind: sub.kind };
  return { code: 201, object, warnings };
}

/** A namespaced virtual object names the namespace of its URL or none (as upstream's create does). */
function checkBodyNamespace(scope: RequestScope, body: KubeObject): void {
  const ns = body.metadata.namespace;
  if (scope.registry.info.namespaced) {
    if (ns && ns !== scope.info.namespace) {
      throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    body.metadata.namespace = scope.info.namespace;
  }
}
