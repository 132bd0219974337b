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
}

/**
 * client-go's work queue, reduced to what the controllers need: keys are deduplicated while
 * waiting, one key is never processed twice at once, a failed key is retried with exponential
 * backoff, and `addAfter` schedules a later look (for time-driven work such as expiry).
 * Processing is one key at a time: the controllers' work is small and ordering keeps it simple.
 */
export class WorkQueue {
  private readonly waiting = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly queuedAt = new Map<string, number>();
  private wake: (() => void) | undefined;
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
    this.wake?.();
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
    while (!this.stopped) {
      const key = this.waiting.values().next().value as string | undefined;
      if (key === undefined) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      this.waiting.delete(key);
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
        this.opts.metrics?.workDuration.observe({ name: this.opts.name }, (performance.now() - start) / 1000);
      }
    }
  }

  private stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.waiting.clear();
    this.opts.metrics?.depth.set({ name: this.opts.name }, 0);
    this.wake?.();
  }
}
