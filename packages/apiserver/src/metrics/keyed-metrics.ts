import type { Metric, Registry } from 'prom-client';

/**
 * A counter and a histogram for the per-request metrics, found by a caller-built string key
 * instead of a label object.
 *
 * prom-client validates and hashes the label object on every inc() and observe() (sorting the
 * label names, joining the values); with eight labels that was some 5 µs of each request's CPU,
 * more than authentication and authorization together on a cached GET. Here the request path
 * builds one key string and does a Map lookup; the label object is made once per series. Both
 * answer prom-client's registry (and its cluster aggregator) through get(), in exactly the shape
 * and order prom-client's own Counter and Histogram give, so the exposition is unchanged.
 */

type Labels = Record<string, string | number>;
/** What prom-client's registries read from a metric's get(). */
interface Values {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: Array<{ labels: Labels; value: number; metricName?: string }>;
  aggregator: 'sum';
}

/**
 * An unambiguous key from label values: each prefixed by its length, so no value (a path segment
 * can hold any character) can make two different label sets meet.
 */
export function seriesKey(values: readonly string[]): string {
  let key = '';
  for (const v of values) key += `${v.length}:${v}`;
  return key;
}

abstract class KeyedMetric<S> {
  readonly aggregator = 'sum' as const;
  protected readonly series = new Map<string, S>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'histogram',
    registry: Registry,
  ) {
    // The registry reads name, help, type, aggregator, get() and reset() only: it needs no more
    // of prom-client's Metric class than this object has.
    registry.registerMetric(this as unknown as Metric<string>);
  }

  reset(): void {
    this.series.clear();
  }

  abstract get(): Promise<Values>;
}

/** A monotonic counter per label set. */
export class KeyedCounter extends KeyedMetric<{ labels: Labels; value: number }> {
  constructor(name: string, help: string, registry: Registry) {
    super(name, help, 'counter', registry);
  }

  /** Adds one to the series `key`; `labels` is called only when the series is new. */
  inc(key: string, labels: () => Labels): void {
    const s = this.series.get(key);
    if (s) s.value++;
    else this.series.set(key, { labels: labels(), value: 1 });
  }

  async get(): Promise<Values> {
    const values = [...this.series.values()].map((s) => ({ labels: { ...s.labels }, value: s.value }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

/** A histogram per label set with fixed upper bounds (cumulative buckets, sum and count). */
export class KeyedHistogram extends KeyedMetric<{ labels: Labels; counts: number[]; sum: number; count: number }> {
  private readonly bounds: readonly number[];

  constructor(name: string, help: string, buckets: readonly number[], registry: Registry) {
    super(name, help, 'histogram', registry);
    this.bounds = [...buckets].sort((a, b) => a - b);
  }

  /** Records `value` in the series `key`; `labels` is called only when the series is new. */
  observe(key: string, labels: () => Labels, value: number): void {
    let s = this.series.get(key);
    if (!s) {
      s = { labels: labels(), counts: new Array<number>(this.bounds.length).fill(0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    s.sum += value;
    s.count++;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        s.counts[i]!++;
        break;
      }
    }
  }

  async get(): Promise<Values> {
    const bucket = `${this.name}_bucket`;
    const values: Values['values'] = [];
    for (const s of this.series.values()) {
      let acc = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        acc += s.counts[i]!;
        values.push({ labels: { le: this.bounds[i]!, ...s.labels }, value: acc, metricName: bucket });
      }
      values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: bucket });
      values.push({ labels: { ...s.labels }, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...s.labels }, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}
