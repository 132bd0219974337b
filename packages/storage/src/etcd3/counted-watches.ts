import { RawWatch, type RawWatchHandlers, type RawWatchOptions, type WatchStreamSource } from './raw-watch.js';

/** The raw etcd watches a store opens, counted while open (direct watches and cacher feeds). */
export class CountedWatches {
  private watches = 0;
  private readonly listeners = new Set<(delta: number) => void>();

  constructor(
    /** Where the watches are opened, asked at each open. */
    private readonly source: () => WatchStreamSource,
    /** Reconnect backoff of the watch streams. */
    private readonly options: RawWatchOptions | undefined,
  ) {}

  /** Number of etcd watch streams open. */
  get count(): number {
    return this.watches;
  }

  /** Subscribes to changes of {@link count} (+1 / -1); returns the unsubscribe function. */
  onChange(listener: (delta: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Opens one raw etcd watch (counted in {@link count} until closed or compacted). */
  open(
    keyOrPrefix: string,
    fromRevision: number,
    handlers: RawWatchHandlers,
    options: Pick<RawWatchOptions, 'prevKv'> = {},
  ): { close(): Promise<void>; requestProgress(): boolean } {
    let open = true;
    const release = (): void => {
      if (!open) return;
      open = false;
      this.change(-1);
    };
    this.change(1);
    const raw = new RawWatch(
      this.source(),
      keyOrPrefix,
      fromRevision,
      {
        ...handlers,
        onCompacted: (rev) => {
          release();
          handlers.onCompacted(rev);
        },
      },
      { ...this.options, ...options },
    );
    return {
      close: async () => {
        release();
        await raw.close();
      },
      requestProgress: () => raw.requestProgress(),
    };
  }

  private change(delta: number): void {
    this.watches += delta;
    for (const l of this.listeners) l(delta);
  }
}
