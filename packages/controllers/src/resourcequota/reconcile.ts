import {
  countedResource,
  desiredQuotaStatus,
  podCharged,
  quotaServiceType,
  toResourceList,
  toUsage,
  usageEquals,
  type KubeObject,
  type QuotaEvaluator,
  type QuotaPod,
  type ResourceQuotaObject,
  type Usage,
} from '@cluster/apimachinery';

/** What to write to a quota: nothing, or its status through the status subresource. */
export type QuotaStatusPlan = { op: 'none' } | { op: 'update'; object: ResourceQuotaObject };

/**
 * The status write that makes `status.hard` equal `spec.hard` and `status.used` hold the usage
 * just observed (`observed`, from calculateUsage) merged over the last observation and limited to
 * the hard names, as upstream's syncResourceQuota. Nothing when both already hold those values
 * (compared as quantities, so another writer's formatting does not cause a write). Pure.
 */
export function planQuotaStatus(rq: ResourceQuotaObject, observed: Usage): QuotaStatusPlan {
  const { hard, used } = desiredQuotaStatus(rq, observed);
  const haveHard = rq.status?.hard;
  const haveUsed = rq.status?.used;
  const dirty = !haveHard || !haveUsed || !usageEquals(hard, toUsage(haveHard)) || !usageEquals(used, toUsage(haveUsed));
  if (!dirty) return { op: 'none' };
  const object = structuredClone(rq);
  object.status = { hard: toResourceList(hard), used: toResourceList(used) };
  return { op: 'update', object };
}

/**
 * Whether a quota seen changed needs its usage computed now: its limits are not yet in status, or
 * it limits something measurable that has no usage yet (upstream's addQuota priority rules; plain
 * status changes, such as admission's charges, are not recomputed).
 */
export function quotaNeedsSync(rq: ResourceQuotaObject, measurable: (name: string) => boolean): boolean {
  if (!rq.status?.hard || !usageEquals(toUsage(rq.spec?.hard), toUsage(rq.status.hard))) return true;
  const used = rq.status.used ?? {};
  return Object.keys(rq.status.hard).some((name) => used[name] === undefined && measurable(name));
}

/** The quotas of a namespace that count `ev`'s resource, whose usage a change of it may alter. */
export function quotasToReplenish(quotas: readonly ResourceQuotaObject[], ev: QuotaEvaluator): ResourceQuotaObject[] {
  return quotas.filter((rq) => ev.matchingResources(Object.keys(rq.status?.hard ?? {})).length > 0);
}

/** The group resources whose objects the quotas count: `group/resource` keys. */
export function resourcesCounted(quotas: readonly ResourceQuotaObject[], builtin: readonly QuotaEvaluator[]): Set<string> {
  const out = new Set<string>();
  for (const rq of quotas) {
    const hard = Object.keys(rq.spec?.hard ?? {});
    for (const ev of builtin) if (ev.matchingResources(hard).length > 0) out.add(`${ev.group}/${ev.resource}`);
    for (const name of hard) {
      const gr = countedResource(name);
      if (gr) out.add(`${gr.group}/${gr.resource}`);
    }
  }
  return out;
}

/**
 * What a watched object's change means for quota (the replenishment rules of upstream's quota
 * monitor): a deletion always gives usage back; a pod that stops being charged (terminal phase,
 * past its deletion grace) or a service whose quota type changes may too. `last` is what was
 * remembered of the object (whether charged, its type), undefined when never seen; the answer
 * says whether to recompute and what to remember now.
 */
export function replenishment(
  resource: string,
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  obj: KubeObject,
  last: string | undefined,
  now: Date,
): { replenish: boolean; remember: string | undefined } {
  if (type === 'DELETED') return { replenish: true, remember: undefined };
  if (resource === 'pods') {
    const state = podCharged(obj as QuotaPod, now) ? 'charged' : 'free';
    return { replenish: type === 'MODIFIED' && state === 'free' && last !== 'free', remember: state };
  }
  if (resource === 'services') {
    const state = quotaServiceType(obj) || 'ClusterIP';
    return { replenish: type === 'MODIFIED' && last !== state, remember: state };
  }
  return { replenish: false, remember: undefined };
}
