import { duplicate, formatQuantity, invalid, parseQuantity, scaledQuantityValue, type FieldErrorList, type QuantityAmount } from '@cluster/apimachinery';

type ResourceList = Record<string, string>;

interface LimitRangeItem {
  type?: string;
  max?: ResourceList;
  min?: ResourceList;
  default?: ResourceList;
  defaultRequest?: ResourceList;
  maxLimitRequestRatio?: ResourceList;
}

/** Upstream's MaxMilliValue (int64 max / 1000). */
const MAX_MILLI_VALUE = 9223372036854775807n / 1000n;

/** Resources that may not be overcommitted (upstream's IsOvercommitAllowed is false for them). */
function overcommitAllowed(name: string): boolean {
  const nativeName = !name.includes('/') || name.includes('kubernetes.io/');
  return nativeName && !name.startsWith('hugepages-');
}

const parsed = (list: ResourceList | undefined): Map<string, QuantityAmount> => {
  const out = new Map<string, QuantityAmount>();
  for (const [k, v] of Object.entries(list ?? {})) {
    const q = parseQuantity(v);
    if (q) out.set(k, q);
  }
  return out;
};

/**
 * The quantity rules of upstream's ValidateLimitRange: one item per type, and per resource
 * min <= defaultRequest <= default <= max, a maxLimitRequestRatio of at least 1 and at most
 * max/min, and default equal to defaultRequest for resources that cannot be overcommitted.
 */
export function validateLimitRangeQuantities(limits: readonly LimitRangeItem[]): FieldErrorList {
  const errs: FieldErrorList = [];
  const types = new Set<string>();
  limits.forEach((item, i) => {
    const path = `spec.limits[${i}]`;
    const type = item.type ?? '';
    if (types.has(type)) errs.push(duplicate(`${path}.type`, type));
    types.add(type);
    const min = parsed(item.min);
    const max = parsed(item.max);
    const defaults = item.type === 'Pod' ? new Map<string, QuantityAmount>() : parsed(item.default);
    const requests = item.type === 'Pod' ? new Map<string, QuantityAmount>() : parsed(item.defaultRequest);
    const ratios = parsed(item.maxLimitRequestRatio);
    const keys = [...new Set([...max.keys(), ...min.keys(), ...defaults.keys(), ...requests.keys(), ...ratios.keys()])].sort();
    for (const k of keys) {
      const [lo, hi, def, req, ratio] = [min.get(k), max.get(k), defaults.get(k), requests.get(k), ratios.get(k)];
      const text = (q: QuantityAmount) => formatQuantity(q);
      const at = (field: string) => `${path}.${field}[${k}]`;
      if (lo && hi && lo.nanos > hi.nanos) errs.push(invalid(at('min'), text(lo), `min value ${text(lo)} is greater than max value ${text(hi)}`));
      if (req && lo && lo.nanos > req.nanos) {
        errs.push(invalid(at('defaultRequest'), text(req), `min value ${text(lo)} is greater than default request value ${text(req)}`));
      }
      if (req && hi && req.nanos > hi.nanos) {
        errs.push(invalid(at('defaultRequest'), text(req), `default request value ${text(req)} is greater than max value ${text(hi)}`));
      }
      if (req && def && req.nanos > def.nanos) {
        errs.push(invalid(at('defaultRequest'), text(req), `default request value ${text(req)} is greater than default limit value ${text(def)}`));
      }
      if (def && lo && lo.nanos > def.nanos) errs.push(invalid(at('default'), text(lo), `min value ${text(lo)} is greater than default value ${text(def)}`));
      if (def && hi && def.nanos > hi.nanos) errs.push(invalid(at('default'), text(hi), `default value ${text(def)} is greater than max value ${text(hi)}`));
      if (ratio && ratio.nanos < 1_000_000_000n) errs.push(invalid(at('maxLimitRequestRatio'), text(ratio), `ratio ${text(ratio)} is less than 1`));
      if (ratio && lo && hi) {
        const whole = [ratio, lo, hi].map((q) => scaledQuantityValue(q, 0));
        const milli = whole.every((v) => v < MAX_MILLI_VALUE);
        const [r, l, h] = milli ? [ratio, lo, hi].map((q) => scaledQuantityValue(q, -3)) : whole;
        const ratioValue = milli ? Number(r) / 1000 : Number(r);
        const limit = Number(h) / Number(l);
        if (ratioValue > limit) {
          errs.push(invalid(at('maxLimitRequestRatio'), text(ratio), `ratio ${text(ratio)} is greater than max/min = ${limit.toFixed(6)}`));
        }
      }
      if (!overcommitAllowed(k) && def && req && def.nanos !== req.nanos) {
        errs.push(invalid(at('defaultRequest'), text(req), `default value ${text(def)} must equal to defaultRequest value ${text(req)} in ${k}`));
      }
    }
  });
  return errs;
}
