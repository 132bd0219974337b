import type { IKeyValue, IWatchRequest, IWatchResponse } from 'etcd3';
import { prefixEnd } from './keys.js';

/** One change of a key as etcd reports it on a watch stream. */
export interface RawWatchEvent {
  type: 'put' | 'delete';
  key: string;
  /** The key after the change (for a delete: key and mod_revision only, the revision of the delete). */
  kv: IKeyValue;
  /** The key before the change; absent for a create or when that revision was compacted. */
  prevKv?: IKeyValue;
  /** The etcd revision of the change. */
  revision: number;
}

/** Receives what a {@link RawWatch} sees; called synchronously, in revision order. */
export interface RawWatchHandlers {
  /** A batch of changes; every event of one revision is in the same batch. */
  onEvents(events: RawWatchEvent[]): void;
  /** A progress notification: every change up to `revision` was delivered. */
  onProgress(revision: number): void;
  /**
   * etcd cancelled the watch because the revision to resume from was compacted (`compactRevision`
   * is the oldest revision still available). The watch is over: re-list and start a new one.
   */
  onCompacted(compactRevision: number): void;
  /** A stream failure the watch recovers from by reconnecting (for logs). */
  onStreamError?(err: Error): void;
}

/** Options of a {@link RawWatch}. */
export interface RawWatchOptions {
  /** First reconnect delay; doubled per consecutive failure. Default 100 ms. */
  minBackoffMs?: number;
  /** Upper bound of the reconnect delay. Default 3 s. */
  maxBackoffMs?: number;
  /**
   * Ask for each key's state before the change (default true). A watch cache knows it already;
   * without it etcd reads no previous revision and sends half the bytes per update.
   */
  prevKv?: boolean;
}

/**
 * One bidirectional etcd Watch call: WatchRequests go out with `write`, WatchResponses come as
 * 'data'; 'error' or 'end' ends it. The etcd3 client's streams and {@link EtcdWatchClient}'s fit.
 */
export interface EtcdWatchStream {
  on(event: 'data', listener: (res: IWatchResponse) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  write(req: IWatchRequest): unknown;
  end(): unknown;
  cancel(): unknown;
}

/** Opens Watch calls: the etcd3 client's `watchClient`, or the lean {@link EtcdWatchClient}. */
export interface WatchStreamSource {
  watch(): Promise<EtcdWatchStream>;
  /** Releases the source's own connection, if it has one. */
  close?(): void;
}

/**
 * A single etcd watch on a key prefix (or one key) from a start revision, on a raw Watch stream
 * (the etcd3 client's or the lean {@link EtcdWatchClient}'s), with prev_kv (unless turned off) and progress notifications. Unlike the client's WatchManager it
 * keeps `compact_revision` and progress notifications. It reconnects by itself after stream errors,
 * resuming from the last delivered revision + 1, until {@link close} or a compaction.
 */
export class RawWatch {
  private stream: EtcdWatchStream | undefined;
  private generation = 0;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private nextRevision: number;

  /**
   * @param keyOrPrefix a key prefix ending in '/' (every key under it is watched) or one exact key.
   * @param startRevision the first revision to deliver (inclusive).
   */
  constructor(
    private readonly source: WatchStreamSource,
    private readonly keyOrPrefix: string,
    startRevision: number,
    private readonly handlers: RawWatchHandlers,
    private readonly opts: RawWatchOptions = {},
  ) {
    this.nextRevision = startRevision;
    void this.connect();
  }

  /** The revision the watch resumes from after a reconnect (last delivered revision + 1). */
  get resumeRevision(): number {
    return this.nextRevision;
  }

  /**
   * Asks etcd for a progress notification on this stream (WatchRequest.progress_request); its
   * answer arrives as {@link RawWatchHandlers.onProgress}. False when no stream is open right now.
   * Only etcd versions with the progress fixes order that answer after the events it covers (see
   * {@link progressRequestsAreSafe}).
   */
  requestProgress(): boolean {
    const s = this.stream;
    if (!s || this.closed) return false;
    try {
      s.write({ progress_request: {} });
      return true;
    } catch {
      return false;
    }
  }

  /** Stops the watch and its reconnects; nothing is delivered afterwards. Harmless to repeat. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.generation++;
    this.dropStream();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const gen = ++this.generation;
    let stream: EtcdWatchStream;
    try {
      stream = await this.source.watch();
    } catch (e) {
      this.failed(gen, e);
      return;
    }
    if (this.closed || gen !== this.generation) {
      stream.cancel();
      return;
    }
    this.stream = stream;
    stream.on('data', (res: IWatchResponse) => this.onResponse(gen, res));
    stream.on('error', (err: Error) => this.failed(gen, err));
    stream.on('end', () => this.failed(gen, new Error('etcd watch stream ended')));
    const key = Buffer.from(this.keyOrPrefix);
    stream.write({
      create_request: {
        key,
        ...(this.keyOrPrefix.endsWith('/') ? { range_end: prefixEnd(key) } : {}),
        start_revision: this.nextRevision,
        prev_kv: this.opts.prevKv ?? true,
        progress_notify: true,
      },
    });
  }

  private onResponse(gen: number, res: IWatchResponse): void {
    if (this.closed || gen !== this.generation) return;
    const compactRevision = Number(res.compact_revision ?? 0);
    if (compactRevision > 0) {
      this.closed = true;
      this.dropStream();
      this.handlers.onCompacted(compactRevision);
      return;
    }
    if (res.canceled) {
      this.failed(gen, new Error(`etcd cancelled the watch: ${res.cancel_reason || 'no reason given'}`));
      return;
    }
    // A healthy answer: the next failure starts from the shortest delay again.
    this.failures = 0;
    // The header of the "created" answer is the store's revision, not the progress of this watch.
    if (res.created) return;
    const events = res.events ?? [];
    if (events.length === 0) {
      this.handlers.onProgress(Number(res.header.revision));
      return;
    }
    const out: RawWatchEvent[] = [];
    for (const ev of events) {
      const revision = Number(ev.kv.mod_revision);
      // A retried stream may repeat what was already delivered; revisions only go forward.
      if (revision < this.nextRevision) continue;
      out.push({
        type: ev.type === 'Delete' ? 'delete' : 'put',
        key: ev.kv.key.toString('utf8'),
        kv: ev.kv,
        ...(ev.prev_kv ? { prevKv: ev.prev_kv } : {}),
        revision,
      });
    }
    const last = out[out.length - 1];
    if (!last) return;
    this.nextRevision = last.revision + 1;
    this.handlers.onEvents(out);
  }

  private failed(gen: number, err: unknown): void {
    if (this.closed || gen !== this.generation) return;
    // Bump the generation so late callbacks of the dead stream are ignored.
    this.generation++;
    this.dropStream();
    this.handlers.onStreamError?.(err instanceof Error ? err : new Error(String(err)));
    const min = this.opts.minBackoffMs ?? 100;
    const max = this.opts.maxBackoffMs ?? 3_000;
    const delay = Math.min(max, min * 2 ** Math.min(this.failures, 16));
    this.failures++;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, delay);
  }

  private dropStream(): void {
    const s = this.stream;
    this.stream = undefined;
    if (!s) return;
    // Its listeners stay but ignore everything: the generation moved on (or the watch is closed).
    // end() first so that the client does not count the CANCELLED error against the etcd host.
    try {
      s.end();
      s.cancel();
    } catch {
      // The stream is already gone.
    }
  }
}

/**
 * Whether an etcd server of `version` answers a progress request only once every event up to the
 * revision it reports was sent on the stream. Older servers answer at once with the store's
 * revision, possibly ahead of events still queued for (or not yet synced to) the watch, which would
 * let a cache claim revisions it has not seen. Upstream Kubernetes requires 3.4.31+ / 3.5.13+
 * before it serves consistent lists from its cache; so do we.
 */
export function progressRequestsAreSafe(version: string): boolean {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  if (!m) return false;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor > 5;
}
