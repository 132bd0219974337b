import { Gauge, type Registry } from 'prom-client';

/** Verbs counted as mutating by the in-flight figures (upstream's non-readonly verbs). */
export const MUTATING_VERBS: ReadonlySet<string> = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** Counts of requests in flight by kind, with the most seen since the last scrape. */
export interface InflightWatermark {
  readOnly: number;
  mutating: number;
  /** Counts a request in (true: mutating); returns the function that counts it out. */
  enter(mutating: boolean): () => void;
}

/**
 * Upstream's `apiserver_current_inflight_requests{request_kind}`: the most requests of each kind
 * in flight at once since the previous scrape (upstream: in the last second), at least those in
 * flight now. Published by the in-flight limit and by priority and fairness, whichever runs.
 */
export function inflightWatermark(registry?: Registry): InflightWatermark {
  let peakReadOnly = 0;
  let peakMutating = 0;
  const w: InflightWatermark = {
    readOnly: 0,
    mutating: 0,
    enter(mutating) {
      if (mutating) peakMutating = Math.max(peakMutating, ++w.mutating);
      else peakReadOnly = Math.max(peakReadOnly, ++w.readOnly);
      return mutating ? () => void w.mutating-- : () => void w.readOnly--;
    },
  };
  if (registry) {
    new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      registers: [registry],
      collect() {
        this.set({ request_kind: 'readOnly' }, Math.max(peakReadOnly, w.readOnly));
        this.set({ request_kind: 'mutating' }, Math.max(peakMutating, w.mutating));
        peakReadOnly = w.readOnly;
        peakMutating = w.mutating;
      },
    });
  }
  return w;
}
