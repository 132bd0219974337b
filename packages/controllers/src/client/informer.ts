import type { Logger } from 'pino';
import type { KubeList, KubeObject, Status } from '@cluster/apimachinery';
import { ApiError, type ApiClient, type WatchEvent } from './api-client.js';

export type InformerEventType = 'ADDED' | 'MODIFIED' | 'DELETED';
/** A change: the object now (the last one held, for DELETED) and the copy held before, if any. */
export type InformerHandler<T> = (type: InformerEventType, object: T, previous: T | undefined) => void;

export interface InformerOptions {
  logger?: Logger;
  /** Wait after a failed list or watch before trying again (doubles up to 30 s). */
  retryMs?: number;
  /** Server-side bound of one watch request; the informer re-watches from where it was. */
  watchTimeoutSeconds?: number;
  /** Accept headers of the list and the watch, for another view (metadata only); JSON by default. */
  accept?: { list: string; watch: string };
  /**
   * Reduces each object before it is held and handed to handlers (client-go's SetTransform), so a
   * controller that needs a few fields keeps only those. Must keep metadata name, namespace and
   * resourceVersion.
   */
  transform?: (object: KubeObject) => KubeObject;
  /**
   * Reduces what is held further than what handlers get (after `transform`), or holds nothing of an
   * object (undefined): a controller that keeps its own index needs only name, namespace, uid and
   * resourceVersion of the objects it cares about. A relist's DELETED and `previous` carry the held
   * form; the removal of an object not held is seen only from the watch (`relisted` covers a gap).
   */
  store?: (object: KubeObject) => KubeObject | undefined;
  /** Called after each list that replaced the held state (`first`: the initial one). */
  relisted?: (first: boolean) => void;
}

const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/**
 * A local copy of one collection kept current by list + watch, as client-go's informer: the
 * watch resumes from the last resourceVersion seen (bookmarks included) after the server ends
 * it, and a 410 Gone (history compacted) relists and tells handlers what changed meanwhile.
 */
export class Informer<T extends KubeObject = KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly handlers = new Set<InformerHandler<T>>();
  private resourceVersion = '';
  private listedOnce = false;
  private syncedOnce!: () => void;
  /** Resolves once the first list has been loaded. */
  readonly synced = new Promise<void>((resolve) => (this.syncedOnce = resolve));

  constructor(
    private readonly client: ApiClient,
    /** The collection path, e.g. `/apis/certificates.k8s.io/v1/certificatesigningrequests`. */
    readonly path: string,
    private readonly opts: InformerOptions = {},
  ) {}

  /** Every object held now. */
  list(): T[] {
    return [...this.items.values()];
  }

  get(namespace: string, name: string): T | undefined {
    return this.items.get(`${namespace}/${name}`);
  }

  /** Calls `handler` for every change from now on; returns the unsubscribe function. */
  onChange(handler: InformerHandler<T>): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /** Lists and watches until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const baseRetry = this.opts.retryMs ?? 500;
    let retry = baseRetry;
    let mustList = true;
    while (!signal.aborted) {
      try {
        if (mustList) {
          await this.relist();
          mustList = false;
        }
        await this.watchOnce(signal);
        retry = baseRetry;
      } catch (err) {
        if (signal.aborted) break;
        if (err instanceof ApiError && err.code === 410) {
          mustList = true;
          continue;
        }
        this.opts.logger?.warn({ err, path: this.path }, 'informer list/watch failed; retrying');
        await sleep(retry, signal);
        retry = Math.min(retry * 2, 30_000);
      }
    }
  }

  private async relist(): Promise<void> {
    const list = await this.client.list<T>(this.path, this.opts.accept?.list);
    const seen = new Set<string>();
    for (const listed of list.items) {
      const obj = this.reduce(listed);
      const key = keyOf(obj);
      seen.add(key);
      const old = this.items.get(key);
      this.hold(key, obj);
      if (!old) this.emit('ADDED', obj, undefined);
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.emit('MODIFIED', obj, old);
    }
    for (const [key, old] of this.items) {
      if (!seen.has(key)) {
        this.items.delete(key);
        this.emit('DELETED', old, old);
      }
    }
    this.resourceVersion = (list as KubeList<T>).metadata.resourceVersion ?? '';
    this.opts.relisted?.(!this.listedOnce);
    this.listedOnce = true;
    this.syncedOnce();
  }

  private async watchOnce(signal: AbortSignal): Promise<void> {
    const sep = this.path.includes('?') ? '&' : '?';
    const timeout = this.opts.watchTimeoutSeconds ?? 300;
    const url = `${this.path}${sep}watch=1&allowWatchBookmarks=true&timeoutSeconds=${timeout}&resourceVersion=${encodeURIComponent(this.resourceVersion)}`;
    await this.client.watch(url, (event) => this.apply(event as WatchEvent<T>), signal, this.opts.accept?.watch);
  }

  private reduce(obj: T): T {
    return this.opts.transform ? (this.opts.transform(obj) as T) : obj;
  }

  private hold(key: string, obj: T): void {
    const held = this.opts.store ? (this.opts.store(obj) as T | undefined) : obj;
    if (held) this.items.set(key, held);
    else this.items.delete(key);
  }

  private apply(event: WatchEvent<T>): void {
    if (event.type === 'ERROR') {
      const status = event.object as unknown as Partial<Status>;
      throw new ApiError(status.code ?? 500, status);
    }
    const rv = event.object.metadata.resourceVersion;
    if (rv) this.resourceVersion = rv;
    if (event.type === 'BOOKMARK') return;
    const obj = this.reduce(event.object);
    const key = keyOf(obj);
    const old = this.items.get(key);
    if (event.type === 'DELETED') this.items.delete(key);
    else this.hold(key, obj);
    this.emit(event.type, obj, old);
  }

  private emit(type: InformerEventType, obj: T, previous: T | undefined): void {
    for (const h of this.handlers) {
      try {
        h(type, obj, previous);
      } catch (err) {
        this.opts.logger?.warn({ err, path: this.path }, 'informer handler failed');
      }
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** One informer per collection path, shared by every controller of a replica. */
export class SharedInformers {
  private readonly informers = new Map<string, Informer>();

  constructor(
    private readonly client: ApiClient,
    private readonly opts: InformerOptions = {},
  ) {}

  informerFor<T extends KubeObject>(path: string): Informer<T> {
    let i = this.informers.get(path);
    if (!i) {
      i = new Informer(this.client, path, this.opts);
      this.informers.set(path, i);
    }
    return i as unknown as Informer<T>;
  }

  /** Runs every informer asked for so far until `signal` aborts. */
  run(signal: AbortSignal): Promise<void[]> {
    return Promise.all([...this.informers.values()].map((i) => i.run(signal)));
  }
}

/** Waits for informers' first lists; false when `signal` aborts first (then nothing should run). */
export async function untilSynced(synced: readonly Promise<void>[], signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  let onAbort!: () => void;
  const aborted = new Promise<void>((resolve) => (onAbort = resolve));
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await Promise.race([Promise.all(synced), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  return !signal.aborted;
}
