import type { KubeObject } from '@cluster/apimachinery';

interface KeyState {
  /** Settles when the last update queued for the key is done. */
  tail: Promise<void>;
  /** Updates queued or running. */
  pending: number;
  /** What the last update of the key in this replica wrote (or found unchanged). */
  lastWritten?: KubeObject;
}

/**
 * Runs the updates of one key one after another within this replica.
 *
 * Concurrent read-modify-write updates of one key all start from the same state; all but one
 * fail etcd's compare and go round again, so N of them cost up to N² attempts and can run out of
 * retries. Queued here, each starts when the previous one is done, from what it wrote: one etcd
 * transaction each. This only orders what was concurrent anyway; etcd's compare still decides,
 * so writers on other replicas are handled as before. A waiter never waits longer than
 * `maxWaitMs` (an update that updates its own key inside would otherwise wait for itself); it then
 * runs alongside, optimistic as without the queue.
 */
export class UpdateSerializer {
  private readonly keys = new Map<string, KeyState>();

  constructor(private readonly maxWaitMs = 5_000) {}

  /** Keys with updates queued or running. */
  get size(): number {
    return this.keys.size;
  }

  async run(key: string, update: (lastWritten: KubeObject | undefined) => Promise<KubeObject>): Promise<KubeObject> {
    let state = this.keys.get(key);
    if (!state) {
      state = { tail: Promise.resolve(), pending: 0 };
      this.keys.set(key, state);
    }
    const previous = state.tail;
    let release!: () => void;
    state.tail = new Promise<void>((resolve) => (release = resolve));
    state.pending++;
    try {
      await settledWithin(previous, this.maxWaitMs);
      const written = await update(state.lastWritten);
      state.lastWritten = written;
      return written;
    } finally {
      release();
      if (--state.pending === 0) this.keys.delete(key);
    }
  }
}

async function settledWithin(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
