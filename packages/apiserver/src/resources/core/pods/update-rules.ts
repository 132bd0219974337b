import { isDeepStrictEqual } from 'node:util';
import { forbidden, type FieldErrorList } from '@cluster/apimachinery';
import type { Container, PodSpec, Toleration } from '../pod-spec/types.js';

/** Upstream's message for a pod update that changes an immutable part of the spec. */
export const POD_SPEC_IMMUTABLE_MSG =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,' +
  '`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),' +
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

function withImagesOf(next: Container[] | undefined, old: Container[] | undefined): Container[] | undefined {
  if (!next || !old || next.length !== old.length) return next;
  return next.map((c, i) => ({ ...c, image: old[i]!.image }));
}

function tolerationsOnlyAdded(next: Toleration[] | undefined, old: Toleration[] | undefined): boolean {
  const remaining = [...(next ?? [])];
  return (old ?? []).every((o) => {
    const at = remaining.findIndex((n) => isDeepStrictEqual(n, o));
    if (at < 0) return false;
    remaining.splice(at, 1);
    return true;
  });
}

/**
 * Upstream's ValidatePodUpdate rule: after an update, the spec may differ from the stored one only
 * in container images, activeDeadlineSeconds, added tolerations and a previously negative grace
 * period. Ephemeral containers change only through their own subresource.
 */
export function validatePodSpecUpdate(next: PodSpec | undefined, old: PodSpec | undefined): FieldErrorList {
  const a = { ...(next ?? {}) };
  const b = old ?? {};
  a.containers = withImagesOf(a.containers, b.containers);
  a.initContainers = withImagesOf(a.initContainers, b.initContainers);
  a.activeDeadlineSeconds = b.activeDeadlineSeconds;
  if (tolerationsOnlyAdded(a.tolerations, b.tolerations)) a.tolerations = b.tolerations;
  if ((b.terminationGracePeriodSeconds ?? 0) < 0 && a.terminationGracePeriodSeconds === 1) {
    a.terminationGracePeriodSeconds = b.terminationGracePeriodSeconds;
  }
  return isDeepStrictEqual(dropUndefined(a), dropUndefined(b)) ? [] : [forbidden('spec', POD_SPEC_IMMUTABLE_MSG)];
}

function dropUndefined(spec: PodSpec): PodSpec {
  return Object.fromEntries(Object.entries(spec).filter(([, v]) => v !== undefined));
}
