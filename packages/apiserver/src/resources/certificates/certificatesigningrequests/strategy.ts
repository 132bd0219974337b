import type { ResourceStrategy, StrategyContext, SubresourceStrategy } from '../../../registry/strategy.js';
import { requestedMeta } from '../../../registry/status-update.js';
import { formatTime } from '../../../registry/object-meta.js';
import { csrTable } from '../tables.js';
import type { CertificateSigningRequest, CsrCondition } from '../types.js';
import { validateCsr, validateCsrStatusUpdate, validateCsrUpdate } from '../validation.js';

/**
 * Upstream's condition timestamp defaulting: an absent lastUpdateTime becomes now; an absent
 * lastTransitionTime keeps the old one when the stored condition of that type had the same status,
 * else becomes now. Returns new conditions; changes neither argument.
 */
export function defaultConditionTimes(conditions: CsrCondition[], old: CsrCondition[], now: Date): CsrCondition[] {
  const stamp = formatTime(now);
  return conditions.map((c) => {
    const next = { ...c };
    if (!next.lastUpdateTime) next.lastUpdateTime = stamp;
    if (!next.lastTransitionTime) {
      const before = old.find((o) => o.type === c.type);
      next.lastTransitionTime = before && before.status === c.status && before.lastTransitionTime ? before.lastTransitionTime : stamp;
    }
    return next;
  });
}

/**
 * Upstream's preserveConditionInstances for Approved and Denied on a `status` update: when the
 * update has as many conditions of the type as the stored object, the stored ones are kept as they
 * were (a signer cannot retouch an approval); when it added or removed some, validation refuses
 * it. Returns new conditions; changes neither argument.
 */
export function preserveApprovalConditions(conditions: CsrCondition[], old: CsrCondition[]): CsrCondition[] {
  const next = [...conditions];
  for (const type of ['Approved', 'Denied']) {
    const before = old.filter((c) => c.type === type);
    const at = next.flatMap((c, i) => (c.type === type ? [i] : []));
    if (at.length !== before.length) continue;
    at.forEach((i, k) => (next[i] = structuredClone(before[k]!)));
  }
  return next;
}

/** The requester, recorded in the spec on create (upstream's PrepareForCreate). Mutates `csr`. */
function recordRequester(csr: CertificateSigningRequest, ctx: StrategyContext): void {
  const spec = { ...csr.spec };
  delete spec.username;
  delete spec.uid;
  delete spec.groups;
  delete spec.extra;
  const user = ctx.user;
  if (user) {
    spec.username = user.username;
    if (user.uid) spec.uid = user.uid;
    if (user.groups.length) spec.groups = [...user.groups];
    if (user.extra && Object.keys(user.extra).length) spec.extra = structuredClone(user.extra);
  }
  csr.spec = spec;
}

/**
 * CertificateSigningRequest behaviour: cluster-scoped; the requester recorded on create; spec
 * immutable; status ignored on the main resource and changed only through `status` (the certificate
 * and conditions other than Approved and Denied) and `approval` (conditions only). `now` stamps
 * condition times.
 */
export function csrStrategy(apiDomain: string, now: () => Date = () => new Date()) {
  const status: SubresourceStrategy<CertificateSigningRequest> = {
    merge(requested, current) {
      const next = { ...requested.status };
      const old = current.status?.conditions ?? [];
      next.conditions = defaultConditionTimes(preserveApprovalConditions(next.conditions ?? [], old), old, now());
      return { ...current, metadata: requestedMeta(requested, current), status: next };
    },
    validateUpdate: (obj, old) => validateCsrStatusUpdate(obj, old, apiDomain, 'status'),
  };
  const approval: SubresourceStrategy<CertificateSigningRequest> = {
    merge(requested, current) {
      const conditions = defaultConditionTimes(requested.status?.conditions ?? [], current.status?.conditions ?? [], now());
      return { ...current, metadata: requestedMeta(requested, current), status: { ...current.status, conditions } };
    },
    validateUpdate: (obj, old) => validateCsrStatusUpdate(obj, old, apiDomain, 'approval'),
  };
  return {
    namespaceScoped: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForCreate(obj: CertificateSigningRequest, ctx: StrategyContext) {
      recordRequester(obj, ctx);
      obj.status = {};
    },
    prepareForUpdate(obj: CertificateSigningRequest, old: CertificateSigningRequest) {
      obj.status = old.status ?? {};
    },
    validate: (obj: CertificateSigningRequest) => validateCsr(obj, apiDomain),
    validateUpdate: (obj: CertificateSigningRequest, old: CertificateSigningRequest) => validateCsrUpdate(obj, old, apiDomain),
    selectableFields: (obj: CertificateSigningRequest) => ({ 'spec.signerName': obj.spec?.signerName ?? '' }),
    subresources: { status, approval },
    table: csrTable,
  } satisfies ResourceStrategy<CertificateSigningRequest>;
}
