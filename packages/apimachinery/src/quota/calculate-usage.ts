import type { KubeObject } from '../meta/types.js';
import { objectCountEvaluator, usageOfItems, type QuotaEvaluator, type ResourceQuotaObject } from './evaluator.js';
import { addUsage, maskUsage, toUsage, type Usage } from './resource-list.js';

/** The group resource a `count/<resource>[.<group>]` name counts, or undefined for other names. */
export function countedResource(name: string): { group: string; resource: string } | undefined {
  if (!name.startsWith('count/')) return undefined;
  const rest = name.slice('count/'.length);
  const dot = rest.indexOf('.');
  return dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}

/**
 * The evaluators measuring some resource `hard` names: the built-in ones that match, and an
 * object count for each `count/<resource>.<group>` of a resource `served` knows (upstream's
 * controller has an evaluator per discovered resource).
 */
export function evaluatorsFor(hard: readonly string[], builtin: readonly QuotaEvaluator[], served: (group: string, resource: string) => boolean): QuotaEvaluator[] {
  const out = builtin.filter((e) => e.matchingResources(hard).length > 0);
  const known = new Set(builtin.map((e) => `${e.resource}.${e.group}`));
  for (const name of hard) {
    const gr = countedResource(name);
    if (!gr || known.has(`${gr.resource}.${gr.group}`) || !served(gr.group, gr.resource)) continue;
    known.add(`${gr.resource}.${gr.group}`);
    out.push(objectCountEvaluator(gr.group, gr.resource));
  }
  return out;
}

/**
 * The quota's usage as observed in the namespace (quota.CalculateUsage): for each `spec.hard`
 * name some evaluator measures, the sum over the listed objects in the quota's scopes. `items`
 * answers an evaluator's objects, or undefined when they could not be listed: its names are then
 * left out (the caller keeps their last observed values). Pure.
 */
export function calculateUsage(
  rq: ResourceQuotaObject,
  evaluators: readonly QuotaEvaluator[],
  items: (ev: QuotaEvaluator) => readonly KubeObject[] | undefined,
  now: Date,
): Usage {
  const hard = Object.keys(rq.spec?.hard ?? {});
  const matched = new Set<string>();
  for (const ev of evaluators) for (const n of ev.matchingResources(hard)) matched.add(n);
  let used: Usage = new Map();
  for (const ev of evaluators) {
    const mine = ev.matchingResources([...matched]);
    if (mine.length === 0) continue;
    const listed = items(ev);
    if (!listed) {
      for (const n of mine) matched.delete(n);
      continue;
    }
    used = addUsage(used, usageOfItems(ev, listed, rq, mine, now));
  }
  return maskUsage(used, matched);
}

/** The status a quota should have, given fresh usage: `hard` from spec, `used` merged and masked to it. */
export function desiredQuotaStatus(rq: ResourceQuotaObject, observed: Usage): { hard: Usage; used: Usage } {
  const hard = toUsage(rq.spec?.hard);
  const used = toUsage(rq.status?.used);
  for (const [k, v] of observed) used.set(k, v);
  return { hard, used: maskUsage(used, hard.keys()) };
}
