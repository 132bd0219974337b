import {
  applyPatch as applyServerSide,
  applyPatchWarnings,
  checkAgainstSchema,
  decodeApplyPatch,
  validatePatchedObject,
  newBadRequest,
  newNotFound,
  newUnsupportedMediaType,
  parsePatchJson,
  validateApplyRequest,
  validatePatchOptions,
  type JsonObject,
  type PatchKind,
  type PatchType,
} from '@cluster/apimachinery';
import { authorizeCreateFor } from './authorize-create.js';
import type { GenericRegistry } from '../registry/generic-registry.js';
import type { HandlerResult, RequestScope } from './scope.js';
import { checkObjectShape, requestMediaType } from './decode-body.js';
import { managerFor, parseWriteQuery, type WriteQuery } from './options.js';
import { withTypeMeta } from './get.js';
import { patchView, subresourceView } from './subresource-view.js';
import { APPLY_PATCH_TYPE, PATCH_TYPES, applyPatchOfType } from './patch-types.js';

export { APPLY_PATCH_TYPE, PATCH_TYPES, applyPatchOfType } from './patch-types.js';

/**
 * PATCH of one object (SPEC 4.8): merge, JSON and strategic merge patches, and server-side apply.
 * Patches are applied to the stored object inside the optimistic-concurrency loop, so a racing
 * write re-applies the patch to the newer object instead of losing either change.
 */
export async function patchResource(scope: RequestScope): Promise<HandlerResult> {
  const media = requestMediaType(scope.contentType, '', PATCH_TYPES);
  if (!PATCH_TYPES.includes(media)) throw newUnsupportedMediaType(media, PATCH_TYPES);
  // Custom resources have no Go types to carry patch strategies: upstream refuses strategic merge.
  if (scope.registry.info.customResource && media === 'application/strategic-merge-patch+json') {
    throw newUnsupportedMediaType(media, PATCH_TYPES.filter((t) => t !== 'application/strategic-merge-patch+json'));
  }
  const view = subresourceView(scope);
  if (view) return patchView(scope, view, media);
  const opts = parseWriteQuery(scope.query, 'PatchOptions');
  const reg = scope.registry;
  const forceSet = scope.query.has('force');
  const body = (scope.body ?? Buffer.alloc(0)).toString('utf8');
  const fieldWarnings: string[] = [];
  const result =
    media === APPLY_PATCH_TYPE
      ? await serverSideApply(scope, body, opts, forceSet, fieldWarnings)
      : await mergingPatch(scope, media as PatchType, body, opts, forceSet, fieldWarnings);
  const warnings = [...fieldWarnings, ...(reg.strategy.warnings?.(result.object) ?? [])];
  return { code: result.created ? 201 : 200, object: withTypeMeta(scope, result.object), warnings };
}

const PATCH_KINDS: Record<PatchType, PatchKind> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
};

async function mergingPatch(scope: RequestScope, type: PatchType, body: string, opts: WriteQuery, forceSet: boolean, warnings: string[]) {
  validatePatchOptions({ isApply: false, fieldManager: opts.fieldManager, forceSet, apiDomain: scope.apiDomain });
  const patch = parsePatchJson(body, type);
  const reg = scope.registry;
  const { name, namespace } = scope.info;
  return reg.patch(
    namespace,
    name,
    (current) => {
      if (!current) throw newNotFound(reg.groupResource, name);
      let patched = applyPatchOfType(type, current, patch, reg.schemas?.patchMeta);
      checkPatchedIdentity(patched, reg.info.kind, name, namespace);
      if (reg.schemas) {
        // The patched result is decoded as a request body would be: types checked, unknown fields dropped.
        const checked = validatePatchedObject({
          patchKind: PATCH_KINDS[type],
          patchText: body,
          patched,
          definitions: reg.schemas.definitions,
          rootName: reg.schemas.definitionName,
          directive: opts.fieldValidation,
        });
        patched = checked.object;
        warnings.splice(0, warnings.length, ...checked.warnings);
      }
      return checkObjectShape(patched, reg.info.kind, reg.apiVersion());
    },
    { dryRun: opts.dryRun, subresource: scope.info.subresource || undefined, fieldManager: managerFor(opts, scope.userAgent), user: scope.user, report: scope.report },
  );
}

/**
 * A patch may change an object, not which object it is: the patched result must still carry its
 * kind, apiVersion and metadata, with the name (and namespace) of the URL. Removing or replacing
 * any of them (`$patch: delete` or `replace` at the root or on metadata, a JSON patch removing
 * `/metadata/name`, a merge patch nulling `kind`) is 400 BadRequest, with upstream's checkName
 * message for names, and nothing is written.
 */
export function checkPatchedIdentity(patched: unknown, kind: string, name: string, namespace: string): void {
  const obj = patched as Record<string, unknown> | null;
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw newBadRequest(`the object provided is unrecognized (must be of type ${kind}): the patched object is not an object`);
  }
  for (const field of ['kind', 'apiVersion'] as const) {
    if (typeof obj[field] !== 'string' || obj[field] === '') {
      throw newBadRequest(`the object provided is unrecognized (must be of type ${kind}): Object '${field === 'kind' ? 'Kind' : 'apiVersion'}' is missing in the patched object`);
    }
  }
  const meta = obj['metadata'];
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) {
    throw newBadRequest(`the name of the object () does not match the name on the URL (${name})`);
  }
  const m = meta as Record<string, unknown>;
  const objName = typeof m['name'] === 'string' ? m['name'] : '';
  if (objName !== name) throw newBadRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
  const objNamespace = typeof m['namespace'] === 'string' ? m['namespace'] : '';
  if (namespace && objNamespace && objNamespace !== namespace) {
    throw newBadRequest(`the namespace of the object (${objNamespace}) does not match the namespace on the URL (${namespace})`);
  }
}

/** SPEC 4.8 apply: YAML partial object, fieldManager required, conflicts 409 unless force; creates when absent. */
async function serverSideApply(scope: RequestScope, body: string, opts: WriteQuery, forceSet: boolean, warnings: string[]) {
  const decoded = decodeApplyPatch(body);
  const applied = decoded.object;
  validateApplyRequest(applied, opts.fieldManager, scope.apiDomain, forceSet);
  const reg: GenericRegistry = scope.registry;
  const { name, namespace } = scope.info;
  const schemas = reg.schemas;
  if (!schemas) throw newUnsupportedMediaType(APPLY_PATCH_TYPE, PATCH_TYPES.filter((t) => t !== APPLY_PATCH_TYPE));
  const result = await reg.patch(
    namespace,
    name,
    (current) => {
      const { object } = applyServerSide({
        live: current as unknown as JsonObject | undefined,
        applied,
        manager: opts.fieldManager,
        force: opts.force,
        schema: schemas.structured,
        apiVersion: reg.apiVersion(),
        kind: reg.info.kind,
        subresource: scope.info.subresource || undefined,
        now: new Date(),
      });
      const pruned = pruneUnknownFields(object, schemas.definitions, schemas.definitionName, opts.fieldValidation, warnings);
      const shaped = checkObjectShape(pruned, reg.info.kind, reg.apiVersion());
      if (!shaped.metadata.name) shaped.metadata.name = name;
      return shaped;
    },
    {
      dryRun: opts.dryRun,
      createIfMissing: !scope.info.subresource,
      subresource: scope.info.subresource || undefined,
      apply: true,
      user: scope.user,
      report: scope.report,
      beforeCreate: authorizeCreateFor(scope),
    },
  );
  // Upstream checks strictness of the apply body last, so conflicts are reported first.
  warnings.unshift(...applyPatchWarnings(decoded, opts.fieldValidation));
  return result;
}

/**
 * Drops fields the schema does not know from an applied result; Strict refuses them (400) and
 * Warn reports each as `unknown field "path"`, as a create body would.
 */
function pruneUnknownFields(
  object: JsonObject,
  definitions: Record<string, JsonObject>,
  rootName: string,
  directive: WriteQuery['fieldValidation'],
  warnings: string[],
): JsonObject {
  const check = checkAgainstSchema(object, definitions, rootName);
  if (check.decodeError) throw newBadRequest(check.decodeError.goMessage);
  const unknown = check.unknownFields.map((f) => `unknown field ${JSON.stringify(f)}`);
  if (unknown.length && directive === 'Strict') throw newBadRequest(`strict decoding error: ${unknown.join(', ')}`);
  if (directive === 'Warn') warnings.splice(0, warnings.length, ...unknown);
  return check.value as JsonObject;
}
