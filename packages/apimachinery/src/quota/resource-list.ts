import { formatQuantity, parseQuantity, type QuantityAmount } from '../schema/quantity.js';

/** A ResourceList as it is written in objects: resource name to quantity text. */
export type ResourceList = Record<string, string>;

/** A ResourceList with its quantities parsed; the arithmetic below works on these. */
export type Usage = Map<string, QuantityAmount>;

const ONE: QuantityAmount = { nanos: 1_000_000_000n, format: 'DecimalSI' };
const ZERO: QuantityAmount = { nanos: 0n, format: 'DecimalSI' };

/** `n` as a DecimalSI count (upstream's resource.NewQuantity(n, DecimalSI)). */
export const countOf = (n: number): QuantityAmount => (n === 1 ? ONE : n === 0 ? ZERO : { nanos: BigInt(n) * 1_000_000_000n, format: 'DecimalSI' });

/** Parses every entry; entries that are not quantities are left out (validation refuses them on write). */
export function toUsage(list: ResourceList | undefined | null): Usage {
  const out: Usage = new Map();
  for (const [k, v] of Object.entries(list ?? {})) {
    const q = typeof v === 'string' ? parseQuantity(v) : undefined;
    if (q) out.set(k, q);
  }
  return out;
}

/** The written form, in name order, each quantity canonical (upstream's Quantity.String). */
export function toResourceList(usage: Usage): ResourceList {
  const out: ResourceList = {};
  for (const k of [...usage.keys()].sort()) out[k] = formatQuantity(usage.get(k)!);
  return out;
}

/** Upstream's Quantity.Add: a zero amount takes the other's format. */
function plus(a: QuantityAmount, b: QuantityAmount): QuantityAmount {
  return { nanos: a.nanos + b.nanos, format: a.nanos === 0n ? b.format : a.format };
}

/** a + b per resource (quota.Add). */
export function addUsage(a: Usage, b: Usage): Usage {
  const out: Usage = new Map(a);
  for (const [k, v] of b) {
    const have = out.get(k);
    out.set(k, have ? plus(have, v) : v);
  }
  return out;
}

/** The larger of a and b per resource (quota.Max). */
export function maxUsage(a: Usage, b: Usage): Usage {
  const out: Usage = new Map(a);
  for (const [k, v] of b) {
    const have = out.get(k);
    if (!have || have.nanos <= v.nanos) out.set(k, v);
  }
  return out;
}

/** a - b per resource, never below zero; every name of b appears (quota.SubtractWithNonNegativeResult). */
export function subtractNonNegative(a: Usage, b: Usage): Usage {
  const out: Usage = new Map();
  for (const [k, v] of a) {
    const other = b.get(k);
    const nanos = other ? v.nanos - other.nanos : v.nanos;
    out.set(k, nanos > 0n ? { nanos, format: v.format } : ZERO);
  }
  for (const k of b.keys()) if (!out.has(k)) out.set(k, ZERO);
  return out;
}

/** Only the entries named (quota.Mask). */
export function maskUsage(usage: Usage, names: Iterable<string>): Usage {
  const keep = names instanceof Set ? (names as Set<string>) : new Set(names);
  const out: Usage = new Map();
  for (const [k, v] of usage) if (keep.has(k)) out.set(k, v);
  return out;
}

/** Same names with equal values (quota.Equals; formats may differ). */
export function usageEquals(a: Usage, b: Usage): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const other = b.get(k);
    if (!other || other.nanos !== v.nanos) return false;
  }
  return true;
}

/** The names of `limits` that `usage` exceeds; empty when within (quota.LessThanOrEqual). */
export function exceededNames(usage: Usage, limits: Usage): string[] {
  const out: string[] = [];
  for (const [k, limit] of limits) {
    const used = usage.get(k);
    if (used && used.nanos > limit.nanos) out.push(k);
  }
  return out;
}

/** Names with a negative amount (quota.IsNegative). */
export function negativeNames(usage: Usage): string[] {
  return [...usage].filter(([, v]) => v.nanos < 0n).map(([k]) => k);
}

/** Without the zero amounts (quota.RemoveZeros). */
export function removeZeros(usage: Usage): Usage {
  return new Map([...usage].filter(([, v]) => v.nanos !== 0n));
}

/** `name=value` pairs in name order, joined by commas (the admission plugin's prettyPrint). */
export function prettyPrintUsage(usage: Usage): string {
  return [...usage.keys()]
    .sort()
    .map((k) => `${k}=${formatQuantity(usage.get(k)!)}`)
    .join(',');
}

/** Names sorted and joined by commas (prettyPrintResourceNames). */
export function prettyPrintNames(names: Iterable<string>): string {
  return [...names].sort().join(',');
}
