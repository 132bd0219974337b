import type { Etcd3 } from 'etcd3';

/** The key whose version counts compaction periods, shared by every replica (upstream's name). */
export const COMPACT_REV_KEY = '/registry/compact_rev_key';
/** Default compaction period (and so the history etcd keeps): five minutes. */
export const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60_000;

/** Options of a {@link Compactor}. */
export interface CompactorOptions {
  /** Period between attempts; also the history kept. Default {@link DEFAULT_COMPACTION_INTERVAL_MS}. */
  intervalMs?: number;
  /** The coordination key; default {@link COMPACT_REV_KEY}. */
  key?: string;
  /** Called after this replica compacted etcd to `revision`. */
  onCompact?: (revision: number) => void;
  /** Receives failures (they are retried next period). */
  log?: (message: string) => void;
}

/** What one attempt did. */
export interface CompactionAttempt {
  /** Whether this replica won the period's transaction. */
  won: boolean;
  /** The revision compacted to (only when won and there was a revision from the previous period). */
  compacted?: number;
}

/**
 * Periodic etcd compaction shared by all replicas, after upstream's etcd3 compactor: each period,
 * every replica tries a transaction on {@link COMPACT_REV_KEY} comparing its version with the one
 * it last saw and storing the current revision; only the winner compacts, to the revision that was
 * stored one period earlier, so that one period of history always stays.
 */
export class Compactor {
  /** Version of the compaction key this replica last saw. */
  private seenVersion = 0;
  /** Header revision of this replica's previous attempt: what the next winner compacts to. */
  private lastRevision = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly client: Pick<Etcd3, 'kv'>,
    private readonly opts: CompactorOptions = {},
  ) {}

  /** Starts the periodic attempts (the first after one period). Harmless to repeat. */
  start(): void {
    if (this.timer) return;
    const interval = this.opts.intervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.runOnce()
        .catch((e: unknown) => this.opts.log?.(`etcd compaction failed: ${(e as Error).message}`))
        .finally(() => (this.running = undefined));
    }, interval);
    this.timer.unref();
  }

  /** Stops the periodic attempts and waits for one in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One attempt (what each period does). Throws when etcd fails; a lost race is not a failure. */
  async runOnce(): Promise<CompactionAttempt> {
    const key = Buffer.from(this.opts.key ?? COMPACT_REV_KEY);
    const res = await this.client.kv.txn({
      compare: [{ key, target: 'Version', result: 'Equal', version: this.seenVersion }],
      success: [{ request_put: { key, value: Buffer.from(String(this.lastRevision)) } }],
      failure: [{ request_range: { key } }],
    });
    const current = Number(res.header.revision);
    if (!res.succeeded) {
      // Another replica won this period: adopt its count and start over from the current revision.
      const kv = res.responses[0]?.response_range.kvs[0];
      this.seenVersion = kv ? Number(kv.version) : 0;
      this.lastRevision = current;
      return { won: false };
    }
    this.seenVersion++;
    const target = this.lastRevision;
    this.lastRevision = current;
    // The first period only records a revision: there is no history of one period yet.
    if (target === 0) return { won: true };
    try {
      await this.client.kv.compact({ revision: target });
    } catch (e) {
      // Compacting to a revision that is already compacted is success for our purpose.
      if (!(e instanceof Error) || !e.message.includes('compacted')) throw e;
    }
    this.opts.onCompact?.(target);
    return { won: true, compacted: target };
  }
}
