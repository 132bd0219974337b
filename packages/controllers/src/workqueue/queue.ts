import type { Logger } from 'pino';
import type { ControllerMetrics } from '../metrics.js';

export interface WorkQueueOptions {
  /** The controller's name, the `name` label of the workqueue metrics. */
  name: string;
  metrics?: ControllerMetrics;
  logger?: Logger;
  /** First retry delay after a failed item; doubles per failure up to maxRetryMs. */
  baseRetryMs?: number;
  maxRetryMs?: number;
  /** Keys processed at once (different keys only); 1 by default. */
  workers?: number;
}

/**
 * client-go's work queue, reduced to what the controllers need: keys are deduplicated while
 * waiting, one key is never processed twice at once, a failed key is retried with exponential
 * backoff, and `addAfter` schedules a later look (for time-driven work such as expiry).
 * Processing is one key at a time unless `workers` asks for more (the garbage collector's work
 * waits on requests); a key added while it is processed runs again after, never beside itself.
 */
export class WorkQueue {
  private readonly waiting = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly queuedAt = new Map<string, number>();
  private readonly processing = new Set<string>();
  private sleepers: (() => void)[] = [];
  private stopped = false;

  constructor(private readonly opts: WorkQueueOptions) {}

  get depth(): number {
    return this.waiting.size;
  }

  add(key: string): void {
    if (this.stopped || this.waiting.has(key)) return;
    this.waiting.add(key);
    this.queuedAt.set(key, performance.now());
    this.opts.metrics?.adds.inc({ name: this.opts.name });
    this.opts.metrics?.depth.set({ name: this.opts.name }, this.waiting.size);
    this.wakeAll();
  }

  private wakeAll(): void {
    const sleepers = this.sleepers;
    this.sleepers = [];
    for (const wake of sleepers) wake();
  }

  /** The first waiting key not being processed now. */
  private next(): string | undefined {
    for (const key of this.waiting) if (!this.processing.has(key)) return key;
    return undefined;
  }

  /** Adds `key` after `ms` (a later call for the same key replaces the earlier one). */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timers.get(key));
    const t = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, Math.max(0, ms));
    t.unref?.();
    this.timers.set(key, t);
  }

  /**
   * Processes keys with `work` until `signal` aborts. A thrown error retries the key with backoff;
   * success forgets its failures.
   */
  async run(work: (key: string) => Promise<void>, signal: AbortSignal): Promise<void> {
    signal.addEventListener('abort', () => this.stop(), { once: true });
    const workers = Math.max(1, this.opts.workers ?? 1);
    await Promise.all(Array.from({ length: workers }, () => this.worker(work)));
  }

  private async worker(work: (key: string) => Promise<void>): Promise<void> {
    while (!this.stopped) {
      const key = this.next();
      if (key === undefined) {
        await new Promise<void>((resolve) => this.sleepers.push(resolve));
        continue;
      }
      this.waiting.delete(key);
      this.processing.add(key);
      this.opts.metrics?.depth.set({ name: this.opts.name }, this.waiting.size);
      const queued = this.queuedAt.get(key);
      this.queuedAt.delete(key);
      if (queued !== undefined) this.opts.metrics?.queueDuration.observe({ name: this.opts.name }, (performance.now() - queued) / 1000);
      const start = performance.now();
      try {
        await work(key);
        this.failures.delete(key);
      } catch (err) {
        this.opts.logger?.warn({ err, controller: this.opts.name, key }, 'reconcile failed; will retry');
        this.opts.metrics?.errors.inc({ controller: this.opts.name });
        this.opts.metrics?.retries.inc({ name: this.opts.name });
        const n = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, n);
        const base = this.opts.baseRetryMs ?? 200;
        this.addAfter(key, Math.min(base * 2 ** (n - 1), this.opts.maxRetryMs ?? 30_000));
      } finally {
        this.processing.delete(key);
        this.opts.metrics?.workDuration.observe({ name: this.opts.name }, (performance.now() - start) / 1000);
        // The key may have been added again meanwhile: another worker can take it now.
        if (this.waiting.has(key)) this.wakeAll();
      }
    }
  }

  private stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.waiting.clear();
    this.opts.metrics?.depth.set({ name: this.opts.name }, 0);
    this.wakeAll();
  }
}
