import { Counter, Gauge, type Registry } from 'prom-client';
import { KeyedHistogram, seriesKey } from '../metrics/keyed-metrics.js';
import type { LevelState } from './flow-control.js';

/** The figures of one (priority level, flow schema) pair, updated in place by the request path. */
export interface Pair {
  inQueue: number;
  executing: number;
  dispatched: number;
  /** Series keys of the wait histogram, made once per pair. */
  waitExecuted?: string;
  waitRejected?: string;
}

/**
 * Upstream's apiserver_flowcontrol_* metrics. The per-request work is a few additions on a
 * per-(level, schema) record; the gauges and the dispatch counter are read from those records at
 * scrape time, so a request never looks up a label set (the wait histogram is a keyed one: a
 * prom-client child would still hash its labels on every observe).
 */
export class FlowControlMetrics {
  private readonly pairs = new Map<string, Pair>();
  private levels: LevelState[] = [];
  private readonly rejectedTotal: Counter<string>;
  private readonly wait: KeyedHistogram;

  constructor(registry: Registry) {
    const pairs = this.pairs;
    const labelsOf = (key: string) => {
      const [priority_level, flow_schema] = key.split('\u0000') as [string, string];
      return { priority_level, flow_schema };
    };
    new Gauge({
      name: 'apiserver_flowcontrol_current_inqueue_requests',
      help: 'Number of requests currently pending in queues of the API Priority and Fairness subsystem',
      labelNames: ['priority_level', 'flow_schema'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [k, p] of pairs) this.set(labelsOf(k), p.inQueue);
      },
    });
    new Gauge({
      name: 'apiserver_flowcontrol_current_executing_requests',
      help: 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem',
      labelNames: ['priority_level', 'flow_schema'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [k, p] of pairs) this.set(labelsOf(k), p.executing);
      },
    });
    new Counter({
      name: 'apiserver_flowcontrol_dispatched_requests_total',
      help: 'Number of requests executed by API Priority and Fairness subsystem',
      labelNames: ['priority_level', 'flow_schema'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [k, p] of pairs) if (p.dispatched > 0) this.inc(labelsOf(k), p.dispatched);
      },
    });
    const self = this;
    new Gauge({
      name: 'apiserver_flowcontrol_nominal_limit_seats',
      help: 'Nominal number of execution seats configured for each priority level',
      labelNames: ['priority_level'],
      registers: [registry],
      collect() {
        this.reset();
        for (const l of self.levels) this.set({ priority_level: l.name }, l.nominalSeats);
      },
    });
    this.rejectedTotal = new Counter({
      name: 'apiserver_flowcontrol_rejected_requests_total',
      help: 'Number of requests rejected by API Priority and Fairness subsystem',
      labelNames: ['priority_level', 'flow_schema', 'reason'],
      registers: [registry],
    });
    this.wait = new KeyedHistogram(
      'apiserver_flowcontrol_request_wait_duration_seconds',
      'Length of time a request spent waiting in its queue',
      [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30],
      registry,
    );
  }

  /** The record of a pair (one per pair, kept across configuration changes). */
  pair(level: string, schema: string): Pair {
    const key = `${level}\u0000${schema}`;
    let p = this.pairs.get(key);
    if (!p) this.pairs.set(key, (p = { inQueue: 0, executing: 0, dispatched: 0 }));
    return p;
  }

  setLevels(levels: LevelState[]): void {
    this.levels = levels;
  }

  /** A request got its seats after waiting `seconds`. */
  dispatched(p: Pair, level: string, schema: string, seconds: number): void {
    p.dispatched++;
    this.wait.observe((p.waitExecuted ??= seriesKey([level, schema, 'true'])), () => ({ priority_level: level, flow_schema: schema, execute: 'true' }), seconds);
  }

  /** A queued request left without running after `seconds`. */
  waited(p: Pair, level: string, schema: string, seconds: number): void {
    this.wait.observe((p.waitRejected ??= seriesKey([level, schema, 'false'])), () => ({ priority_level: level, flow_schema: schema, execute: 'false' }), seconds);
  }

  rejected(level: string, schema: string, reason: string): void {
    this.rejectedTotal.inc({ priority_level: level, flow_schema: schema, reason });
  }
}
