import {
  addUsage,
  exceededNames,
  maskUsage,
  negativeNames,
  prettyPrintNames,
  prettyPrintUsage,
  quotaMatches,
  removeZeros,
  subtractNonNegative,
  toResourceList,
  toUsage,
  usageEquals,
  type KubeObject,
  type QuotaEvaluator,
  type QuotaOperation,
  type ResourceQuotaObject,
} from '@cluster/apimachinery';

/** One request as quota sees it. */
export interface QuotaRequest {
  operation: QuotaOperation;
  namespace: string;
  object: KubeObject;
  oldObject?: KubeObject;
}

/** A refusal: the message upstream's admission.NewForbidden wraps (403 Forbidden). */
export class QuotaRefusal extends Error {}

/**
 * Checks one request against the namespace's quotas (upstream's CheckRequest, without admission
 * configuration's limited resources): every quota that constrains the object must already have
 * usage for what it limits, the object must satisfy the evaluator's constraints, and the usage
 * it adds must fit under each quota's `status.hard`. Returns the quotas with the charge added to
 * `status.used` (the same array when nothing changes); throws QuotaRefusal. Pure: `quotas` are
 * not changed, charged quotas are copies.
 */
export function checkRequest(quotas: readonly ResourceQuotaObject[], req: QuotaRequest, ev: QuotaEvaluator, now: Date): readonly ResourceQuotaObject[] {
  if (!ev.handles(req.operation)) return quotas;
  const obj = req.object;
  const interesting: number[] = [];
  for (const [i, rq] of quotas.entries()) {
    let match: boolean;
    try {
      match = quotaMatches(ev, rq, obj);
    } catch (e) {
      throw new QuotaRefusal(`error matching scopes of quota ${rq.metadata.name ?? ''}, err: ${(e as Error).message}`);
    }
    if (!match) continue;
    const restricted = ev.matchingResources(Object.keys(rq.status?.hard ?? {}));
    const problem = ev.constraints(restricted, obj);
    if (problem) throw new QuotaRefusal(`failed quota: ${rq.metadata.name ?? ''}: ${problem}`);
    const used = rq.status?.used ?? {};
    if (restricted.some((r) => used[r] === undefined)) {
      throw new QuotaRefusal(`status unknown for quota: ${rq.metadata.name ?? ''}, resources: ${prettyPrintNames(restricted)}`);
    }
    interesting.push(i);
  }
  if (interesting.length === 0) return quotas;
  // Usage some evaluators measure from other objects of the namespace needs the namespace set.
  const input = obj.metadata.namespace ? obj : { ...obj, metadata: { ...obj.metadata, namespace: req.namespace } };
  let delta = ev.usage(input, now);
  const negative = negativeNames(delta);
  if (negative.length > 0) throw new QuotaRefusal(`quota usage is negative for resource(s): ${prettyPrintNames(negative)}`);
  if (req.operation === 'UPDATE') {
    if (!req.oldObject) throw new QuotaRefusal('unable to get previous usage since prior version of object was not found');
    // Charged by the difference unless this may be a create through update (no stored version).
    if (req.oldObject.metadata.resourceVersion) delta = subtractNonNegative(delta, ev.usage(req.oldObject, now));
  }
  delta = removeZeros(delta);
  if (delta.size === 0) return quotas;
  const out = [...quotas];
  for (const i of interesting) {
    const rq = out[i]!;
    const hard = toUsage(rq.status?.hard);
    const used = toUsage(rq.status?.used);
    const requested = maskUsage(delta, hard.keys());
    const next = addUsage(used, requested);
    const exceeded = exceededNames(maskUsage(next, requested.keys()), hard);
    if (exceeded.length > 0) {
      throw new QuotaRefusal(
        `exceeded quota: ${rq.metadata.name ?? ''}, requested: ${prettyPrintUsage(maskUsage(requested, exceeded))}, ` +
          `used: ${prettyPrintUsage(maskUsage(used, exceeded))}, limited: ${prettyPrintUsage(maskUsage(hard, exceeded))}`,
      );
    }
    if (!usageEquals(next, used)) out[i] = { ...rq, status: { ...rq.status, used: toResourceList(next) } };
  }
  return out;
}
