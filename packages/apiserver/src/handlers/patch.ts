import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  newUnsupportedMediaType,
  parsePatchJson,
  type JsonValue,
  type KubeObject,
  type PatchType,
} from '@cluster/apimachinery';
import { parseMediaType } from '../negotiation/media-type.js';
import type { HandlerResult, RequestScope } from './scope.js';
import { checkObjectShape } from './decode-body.js';
import { parseWriteQuery } from './options.js';
import { withTypeMeta } from './get.js';
import { newNotFound } from '@cluster/apimachinery';

export const PATCH_TYPES: readonly PatchType[] = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

/**
 * PATCH of one object (SPEC 4.8): merge, JSON and strategic merge patches are applied to the
 * stored object inside the optimistic-concurrency loop, so a racing write re-applies the patch to
 * the newer object instead of losing either change.
 */
export async function patchResource(scope: RequestScope): Promise<HandlerResult> {
  const media = parseMediaType(scope.contentType ?? '').type;
  if (!(PATCH_TYPES as readonly string[]).includes(media)) {
    throw newUnsupportedMediaType(media, PATCH_TYPES);
  }
  const patchType = media as PatchType;
  const opts = parseWriteQuery(scope.query, 'PatchOptions');
  const patch = parsePatchJson((scope.body ?? Buffer.alloc(0)).toString('utf8'), patchType);
  const reg = scope.registry;
  const { name, namespace } = scope.info;
  const { object } = await reg.patch(
    namespace,
    name,
    (current) => {
      if (!current) throw newNotFound(reg.groupResource, name);
      const patched = applyPatch(patchType, current, patch, reg.patchMeta);
      return checkObjectShape(patched, reg.info.kind, reg.apiVersion());
    },
    { dryRun: opts.dryRun, subresource: scope.info.subresource || undefined },
  );
  const warnings = reg.strategy.warnings?.(object) ?? [];
  return { code: 200, object: withTypeMeta(scope, object), warnings };
}

function applyPatch(
  type: PatchType,
  current: KubeObject,
  patch: JsonValue,
  patchMeta: Parameters<typeof applyStrategicMergePatch>[2],
): JsonValue {
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
