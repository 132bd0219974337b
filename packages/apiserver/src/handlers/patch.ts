import { parse as parseYaml } from 'yaml';
import {
  applyJsonPatch,
  applyMergePatch,
  applyPatch as applyServerSide,
  applyStrategicMergePatch,
  isJsonObject,
  newBadRequest,
  newNotFound,
  newUnsupportedMediaType,
  parsePatchJson,
  validateApplyRequest,
  validatePatchOptions,
  type JsonObject,
  type JsonValue,
  type KubeObject,
  type PatchSchema,
  type PatchType,
} from '@cluster/apimachinery';
import { parseMediaType } from '../negotiation/media-type.js';
import type { GenericRegistry } from '../registry/generic-registry.js';
import type { HandlerResult, RequestScope } from './scope.js';
import { checkObjectShape } from './decode-body.js';
import { managerFor, parseWriteQuery, type WriteQuery } from './options.js';
import { withTypeMeta } from './get.js';

export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

export const PATCH_TYPES: readonly string[] = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  APPLY_PATCH_TYPE,
];

/**
 * PATCH of one object (SPEC 4.8): merge, JSON and strategic merge patches, and server-side apply.
 * Patches are applied to the stored object inside the optimistic-concurrency loop, so a racing
 * write re-applies the patch to the newer object instead of losing either change.
 */
export async function patchResource(scope: RequestScope): Promise<HandlerResult> {
  const media = parseMediaType(scope.contentType ?? '').type;
  if (!PATCH_TYPES.includes(media)) throw newUnsupportedMediaType(media, PATCH_TYPES);
  const opts = parseWriteQuery(scope.query, 'PatchOptions');
  const reg = scope.registry;
  const forceSet = scope.query.has('force');
  const body = (scope.body ?? Buffer.alloc(0)).toString('utf8');
  const result =
    media === APPLY_PATCH_TYPE
      ? await serverSideApply(scope, body, opts, forceSet, scope.apiDomain)
      : await mergingPatch(scope, media as PatchType, body, opts, forceSet, scope.apiDomain);
  const warnings = reg.strategy.warnings?.(result.object) ?? [];
  return { code: result.created ? 201 : 200, object: withTypeMeta(scope, result.object), warnings };
}

async function mergingPatch(scope: RequestScope, type: PatchType, body: string, opts: WriteQuery, forceSet: boolean, apiDomain: string) {
  validatePatchOptions({ isApply: false, fieldManager: opts.fieldManager, forceSet, apiDomain });
  const patch = parsePatchJson(body, type);
  const reg = scope.registry;
  const { name, namespace } = scope.info;
  return reg.patch(
    namespace,
    name,
    (current) => {
      if (!current) throw newNotFound(reg.groupResource, name);
      const patched = applyPatchOfType(type, current, patch, reg.schemas?.patchMeta);
      return checkObjectShape(patched, reg.info.kind, reg.apiVersion());
    },
    { dryRun: opts.dryRun, subresource: scope.info.subresource || undefined, fieldManager: managerFor(opts, scope.userAgent) },
  );
}

/** SPEC 4.8 apply: YAML partial object, fieldManager required, conflicts 409 unless force; creates when absent. */
async function serverSideApply(scope: RequestScope, body: string, opts: WriteQuery, forceSet: boolean, apiDomain: string) {
  let applied: unknown;
  try {
    applied = parseYaml(body);
  } catch (e) {
    throw newBadRequest(`error decoding YAML: ${(e as Error).message}`);
  }
  if (!isJsonObject(applied)) throw newBadRequest('the apply patch must be a YAML or JSON object');
  validateApplyRequest(applied, opts.fieldManager, apiDomain, forceSet);
  const reg: GenericRegistry = scope.registry;
  const { name, namespace } = scope.info;
  const schemas = reg.schemas;
  if (!schemas) throw newUnsupportedMediaType(APPLY_PATCH_TYPE, PATCH_TYPES.filter((t) => t !== APPLY_PATCH_TYPE));
  return reg.patch(
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
      const shaped = checkObjectShape(object, reg.info.kind, reg.apiVersion());
      if (!shaped.metadata.name) shaped.metadata.name = name;
      return shaped;
    },
    { dryRun: opts.dryRun, createIfMissing: !scope.info.subresource, subresource: scope.info.subresource || undefined, apply: true },
  );
}

function applyPatchOfType(type: PatchType, current: KubeObject, patch: JsonValue, patchMeta: PatchSchema | undefined): JsonValue {
  const original = current as unknown as JsonValue;
  switch (type) {
    case 'application/json-patch+json':
      return applyJsonPatch(original, patch);
    case 'application/merge-patch+json':
      return applyMergePatch(original, patch);
    case 'application/strategic-merge-patch+json':
      return applyStrategicMergePatch(original, patch, patchMeta);
  }
}
