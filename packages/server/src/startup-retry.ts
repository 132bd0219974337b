/**
 * Start-up steps that write to etcd (built-in namespaces, default RBAC, ClusterRole aggregation)
 * are retried while their failure is one a healthy cluster recovers from: etcd unavailable or
 * timing out (say, during a leader election), throttling, or another replica writing the same
 * object first. Upstream's post-start hooks poll the same way instead of ending the process, so a
 * replica started while etcd elects a leader comes up a moment later rather than not at all.
 */

export interface StartupRetryOptions {
  /** Give up (and fail start-up with the last error) once this long has passed; default 60 s. */
  deadlineMs?: number;
  /** First wait between attempts, doubled each time up to maxDelayMs; default 100 ms. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Told about each failed attempt that will be retried. */
  log?: (message: string, err: unknown) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Whether a start-up step's error may go away by itself: 5xx, 429 and 409 Status errors. Pure. */
export function isTransientStartupError(err: unknown): boolean {
  const code = (err as { status?: { code?: unknown } } | null)?.status?.code;
  return typeof code === 'number' && (code >= 500 || code === 429 || code === 409);
}

/** Runs `step` until it succeeds, retrying transient errors (see isTransientStartupError) with backoff. */
export async function retryStartupStep<T>(name: string, step: () => Promise<T>, opts: StartupRetryOptions = {}): Promise<T> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = now() + (opts.deadlineMs ?? 60_000);
  const maxDelay = opts.maxDelayMs ?? 2_000;
  let delay = opts.initialDelayMs ?? 100;
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      if (!isTransientStartupError(err) || now() + delay > deadline) throw err;
      opts.log?.(`start-up step ${name} failed (attempt ${attempt}); retrying in ${delay} ms`, err);
      await sleep(delay);
      delay = Math.min(delay * 2, maxDelay);
    }
  }
}
