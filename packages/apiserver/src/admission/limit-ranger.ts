import { formatQuantity, newForbidden, parseQuantity, scaledQuantityValue, type KubeObject, type QuantityAmount } from '@cluster/apimachinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';

type ResourceList = Record<string, string>;

/** The parts of a LimitRange the plugin reads. */
export interface LimitRangeItem {
  type?: string;
  min?: ResourceList;
  max?: ResourceList;
  default?: ResourceList;
  defaultRequest?: ResourceList;
  maxLimitRequestRatio?: ResourceList;
}
export interface LimitRangeObject extends KubeObject {
  spec?: { limits?: LimitRangeItem[] };
}

interface ContainerResources {
  name?: string;
  resources?: { limits?: ResourceList; requests?: ResourceList; [field: string]: unknown };
}
interface PodShape extends KubeObject {
  spec?: { containers?: ContainerResources[]; initContainers?: ContainerResources[]; overhead?: ResourceList };
}

/** Lists a namespace's LimitRanges as of now (a most-recent read: every write before it is seen). */
export type LimitRangeLister = (namespace: string) => Promise<LimitRangeObject[]>;

/**
 * Upstream's LimitRanger admission for pods (PersistentVolumeClaims are not served here): on pod
 * create, each container gets the `default` limits and `defaultRequest` requests of the
 * namespace's Container limit ranges for the resources it does not set (noted in the
 * `<apiDomain>/limit-ranger` annotation), then every Container and Pod range's min, max and
 * maxLimitRequestRatio must hold, else 403 Forbidden naming each violation. Subresources and
 * updates are not checked (pod containers' resources cannot change). Unlike upstream's informer
 * (plus a 30 s live-lookup cache), ranges are read most-recent, so a range just created, changed
 * or deleted applies to the very next pod.
 */
export function limitRanger(list: LimitRangeLister, apiDomain: string): AdmissionPlugin {
  // One read per request: the validating phase checks the ranges the mutating phase applied.
  const read = new WeakMap<AdmissionAttributes, Promise<LimitRangeObject[]>>();
  const rangesFor = (a: AdmissionAttributes): Promise<LimitRangeObject[]> => {
    let ranges = read.get(a);
    if (!ranges) read.set(a, (ranges = list(a.namespace)));
    return ranges;
  };
  const applies = (a: AdmissionAttributes): boolean =>
    a.operation === 'CREATE' && !a.subresource && a.resource.group === '' && a.resource.resource === 'pods' && !!a.namespace && !!a.object;
  return {
    name: 'LimitRanger',
    admit(a) {
      if (!applies(a)) return;
      return (async () => {
        for (const range of await rangesFor(a)) applyDefaults(a.object as PodShape, range, apiDomain);
      })();
    },
    validate(a) {
      if (!applies(a)) return;
      return (async () => {
        const errs: string[] = [];
        for (const range of await rangesFor(a)) errs.push(...violations(a.object as PodShape, range));
        if (errs.length > 0) throw newForbidden({ group: a.resource.group, resource: a.resource.resource }, a.name, aggregate(errs));
      })();
    },
  };
}

/** Upstream's utilerrors.Aggregate text: one message alone, several deduplicated in brackets. */
function aggregate(errs: string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? (unique[0] as string) : `[${unique.join(', ')}]`;
}

/** Sets unset container limits and requests from the range's Container defaults. Mutates pod. */
export function applyDefaults(pod: PodShape, range: LimitRangeObject, apiDomain: string): void {
  const limits: ResourceList = {};
  const requests: ResourceList = {};
  for (const item of range.spec?.limits ?? []) {
    if (item.type !== 'Container') continue;
    Object.assign(requests, item.defaultRequest ?? {});
    Object.assign(limits, item.default ?? {});
  }
  if (Object.keys(limits).length === 0 && Object.keys(requests).length === 0) return;
  const notes: string[] = [];
  const merge = (containers: ContainerResources[] | undefined, prefix: string) => {
    for (const c of containers ?? []) {
      const res = (c.resources ??= {});
      const setLimits = Object.keys(limits).filter((k) => (res.limits ?? {})[k] === undefined).sort();
      const setRequests = Object.keys(requests).filter((k) => (res.requests ?? {})[k] === undefined).sort();
      if (setLimits.length) res.limits = { ...res.limits, ...Object.fromEntries(setLimits.map((k) => [k, limits[k] as string])) };
      if (setRequests.length) res.requests = { ...res.requests, ...Object.fromEntries(setRequests.map((k) => [k, requests[k] as string])) };
      if (setRequests.length) notes.push(`${setRequests.join(', ')} request for ${prefix} ${c.name ?? ''}`);
      if (setLimits.length) notes.push(`${setLimits.join(', ')} limit for ${prefix} ${c.name ?? ''}`);
    }
  };
  merge(pod.spec?.containers, 'container');
  merge(pod.spec?.initContainers, 'init container');
  if (notes.length > 0) {
    pod.metadata.annotations = { ...pod.metadata.annotations, [`${apiDomain}/limit-ranger`]: `LimitRanger plugin set: ${notes.join('; ')}` };
  }
}

/** Every min, max and maxLimitRequestRatio of the range the pod breaks, in upstream's words. */
export function violations(pod: PodShape, range: LimitRangeObject): string[] {
  const errs: string[] = [];
  for (const item of range.spec?.limits ?? []) {
    if (item.type === 'Container') {
      for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
        errs.push(...checkItem(item, 'Container', amounts(c.resources?.requests), amounts(c.resources?.limits)));
      }
    } else if (item.type === 'Pod') {
      const { requests, limits } = podTotals(pod);
      errs.push(...checkItem(item, 'Pod', requests, limits));
    }
  }
  return errs;
}

type Amounts = Map<string, QuantityAmount>;

function amounts(list: ResourceList | undefined): Amounts {
  const out: Amounts = new Map();
  for (const [k, v] of Object.entries(list ?? {})) {
    const a = parseQuantity(v);
    if (a) out.set(k, a);
  }
  return out;
}

const add = (a: QuantityAmount | undefined, b: QuantityAmount): QuantityAmount => (a ? { nanos: a.nanos + b.nanos, format: a.nanos === 0n ? b.format : a.format } : b);

/** The pod's effective requests and limits: containers summed, each init container's if larger, plus overhead. */
function podTotals(pod: PodShape): { requests: Amounts; limits: Amounts } {
  const requests: Amounts = new Map();
  const limits: Amounts = new Map();
  for (const c of pod.spec?.containers ?? []) {
    for (const [k, v] of amounts(c.resources?.requests)) requests.set(k, add(requests.get(k), v));
    for (const [k, v] of amounts(c.resources?.limits)) limits.set(k, add(limits.get(k), v));
  }
  for (const c of pod.spec?.initContainers ?? []) {
    for (const [k, v] of amounts(c.resources?.requests)) if (v.nanos > (requests.get(k)?.nanos ?? -1n)) requests.set(k, v);
    for (const [k, v] of amounts(c.resources?.limits)) if (v.nanos > (limits.get(k)?.nanos ?? -1n)) limits.set(k, v);
  }
  for (const [k, v] of amounts(pod.spec?.overhead)) {
    requests.set(k, add(requests.get(k), v));
    const limit = limits.get(k);
    if (limit) limits.set(k, add(limit, v));
  }
  return { requests, limits };
}

/** Resources in name order (upstream walks Go maps, in no fixed order). */
function sortedAmounts(list: ResourceList | undefined): Amounts {
  return new Map([...amounts(list)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function checkItem(item: LimitRangeItem, type: string, requests: Amounts, limits: Amounts): string[] {
  const errs: string[] = [];
  for (const [k, enforced] of sortedAmounts(item.min)) errs.push(...minConstraint(type, k, enforced, requests.get(k), limits.get(k)));
  for (const [k, enforced] of sortedAmounts(item.max)) errs.push(...maxConstraint(type, k, enforced, requests.get(k), limits.get(k)));
  for (const [k, enforced] of sortedAmounts(item.maxLimitRequestRatio)) errs.push(...ratioConstraint(type, k, enforced, requests.get(k), limits.get(k)));
  return errs;
}

/** Upstream's MaxMilliValue: milli-values are compared unless one would overflow an int64. */
const MAX_MILLI_VALUE = 9223372036854775807n / 1000n;
const ZERO: QuantityAmount = { nanos: 0n, format: 'DecimalSI' };

/** Upstream's requestLimitEnforcedValues: the three values at milli precision when all fit. */
function compared(req: QuantityAmount | undefined, lim: QuantityAmount | undefined, enforced: QuantityAmount): [bigint, bigint, bigint] {
  const values = [req ?? ZERO, lim ?? ZERO, enforced];
  const whole = values.map((v) => scaledQuantityValue(v, 0));
  if (whole.every((v) => v <= MAX_MILLI_VALUE)) return values.map((v) => scaledQuantityValue(v, -3)) as [bigint, bigint, bigint];
  return whole as [bigint, bigint, bigint];
}

function minConstraint(type: string, name: string, enforced: QuantityAmount, req?: QuantityAmount, lim?: QuantityAmount): string[] {
  const [r, l, e] = compared(req, lim, enforced);
  const min = `minimum ${name} usage per ${type} is ${formatQuantity(enforced)}`;
  if (!req) return [`${min}.  No request is specified`];
  if (r < e) return [`${min}, but request is ${formatQuantity(req)}`];
  if (lim && l < e) return [`${min}, but limit is ${formatQuantity(lim)}`];
  return [];
}

function maxConstraint(type: string, name: string, enforced: QuantityAmount, req?: QuantityAmount, lim?: QuantityAmount): string[] {
  const [r, l, e] = compared(req, lim, enforced);
  const max = `maximum ${name} usage per ${type} is ${formatQuantity(enforced)}`;
  if (!lim) return [`${max}.  No limit is specified`];
  if (l > e) return [`${max}, but limit is ${formatQuantity(lim)}`];
  if (req && r > e) return [`${max}, but request is ${formatQuantity(req)}`];
  return [];
}

function ratioConstraint(type: string, name: string, enforced: QuantityAmount, req?: QuantityAmount, lim?: QuantityAmount): string[] {
  const [r, l] = compared(req, lim, enforced);
  const ratio = `${name} max limit to request ratio per ${type} is ${formatQuantity(enforced)}`;
  if (!req || r === 0n) return [`${ratio}, but no request is specified or request is 0`];
  if (!lim || l === 0n) return [`${ratio}, but no limit is specified or limit is 0`];
  const observed = Number(l) / Number(r);
  const enforcedValue = scaledQuantityValue(enforced, 0);
  // Upstream compares ratio x 1000 against the milli-value when that fits, else the whole values.
  const [seen, allowed] = enforcedValue <= MAX_MILLI_VALUE ? [observed * 1000, Number(scaledQuantityValue(enforced, -3))] : [observed, Number(enforcedValue)];
  return seen > allowed ? [`${ratio}, but provided ratio is ${observed.toFixed(6)}`] : [];
}
