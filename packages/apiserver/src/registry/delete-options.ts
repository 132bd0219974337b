import { invalid, isJsonObject, newInvalid, notSupported, type FieldError, type JsonObject, type StatusError } from '@cluster/apimachinery';
import type { DeleteRequest } from './registry-types.js';

/** What a delete is asked for: the registry's delete options without the requester. */
export type DeleteOptions = Pick<DeleteRequest, 'dryRun' | 'preconditions' | 'propagationPolicy' | 'gracePeriodSeconds'>;

/** Options read so far (from a query) that a DeleteOptions object is read over. */
export interface DeleteOptionsBase extends DeleteOptions {
  /** The deprecated orphanDependents, still sent by old Go clients. */
  orphanDependents?: boolean;
}

const PROPAGATION_POLICIES = ['Orphan', 'Background', 'Foreground'];

/**
 * Reads a meta/v1 DeleteOptions object (a DELETE's body, an Eviction's deleteOptions) over `base`,
 * whose values it overrides, and appends to `errs` what upstream's ValidateDeleteOptions refuses:
 * a dryRun value other than All, orphanDependents beside a propagationPolicy, an unknown policy.
 * orphanDependents becomes the Orphan policy (true) or Background (false). Changes only `errs`.
 */
export function readDeleteOptions(body: JsonObject | undefined, errs: FieldError[], base: DeleteOptionsBase = { dryRun: false }): DeleteOptions {
  const { orphanDependents: baseOrphan, ...out } = base;
  let orphanDependents = baseOrphan;
  if (body) {
    if (typeof body.propagationPolicy === 'string') out.propagationPolicy = body.propagationPolicy;
    if (typeof body.gracePeriodSeconds === 'number') out.gracePeriodSeconds = body.gracePeriodSeconds;
    if (typeof body.orphanDependents === 'boolean') orphanDependents = body.orphanDependents;
    if (Array.isArray(body.dryRun)) {
      for (const v of body.dryRun) {
        if (v !== 'All') errs.push(notSupported('dryRun', v, ['All']));
      }
      if (body.dryRun.length > 0) out.dryRun = true;
    }
    const pre = body.preconditions;
    if (isJsonObject(pre)) {
      out.preconditions = {};
      if (typeof pre.uid === 'string') out.preconditions.uid = pre.uid;
      if (typeof pre.resourceVersion === 'string') out.preconditions.resourceVersion = pre.resourceVersion;
    }
  }
  if (orphanDependents !== undefined) {
    if (out.propagationPolicy !== undefined) {
      errs.push(invalid('propagationPolicy', out.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
    } else {
      out.propagationPolicy = orphanDependents ? 'Orphan' : 'Background';
    }
  }
  if (out.propagationPolicy !== undefined && !PROPAGATION_POLICIES.includes(out.propagationPolicy)) {
    errs.push(notSupported('propagationPolicy', out.propagationPolicy, PROPAGATION_POLICIES));
  }
  return out;
}

/** 422 Invalid on meta.k8s.io DeleteOptions, as upstream answers options ValidateDeleteOptions refuses. */
export function invalidDeleteOptions(errs: FieldError[]): StatusError {
  return newInvalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', errs);
}
