import type { Container, PodSpec } from '../pod-spec/types.js';

const COMPUTE = ['cpu', 'memory'] as const;

/**
 * Upstream's pod QoS class: BestEffort when no container requests or limits cpu or memory;
 * Guaranteed when every container limits both and requests equal limits; Burstable otherwise.
 * Quantities are compared in canonical form (the decoder canonicalizes them).
 */
export function podQosClass(spec: PodSpec | undefined): 'BestEffort' | 'Burstable' | 'Guaranteed' {
  const containers: Container[] = [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])];
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const requests = c.resources?.requests ?? {};
    const limits = c.resources?.limits ?? {};
    for (const r of COMPUTE) {
      const req = requests[r] ?? limits[r];
      const lim = limits[r];
      if (isNonZero(req) || isNonZero(lim)) any = true;
      if (!isNonZero(lim) || req !== lim) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function isNonZero(q: string | undefined): boolean {
  return q !== undefined && !/^0+(\.0*)?[a-zA-Z]*$/.test(q);
}
