import type { KubeObject } from '@cluster/apimachinery';
import { StorageError } from '../errors.js';
import type { WatchEvent, WatchOptions, WatchStream } from '../interfaces.js';
import { bookmarkEvent, errorEvent, expiredEvent, withResourceVersion, type CacheEvent } from '../cacher/cache-event.js';
import { CacheWatcher } from '../cacher/cache-watcher.js';
import type { RawWatchEvent, RawWatchHandlers } from './raw-watch.js';
import { decodeValue } from './value-codec.js';

/** What an uncached watch needs from the store. */
export interface DirectWatchSource {
  listEntries(prefix: string, revision?: number): Promise<{ entries: [string, KubeObject][]; revision: number }>;
  currentRevision(): Promise<number>;
  /** Throws Compacted / TooLargeResourceVersion (after waiting) when `revision` cannot be read. */
  checkRevision(prefix: string, revision: number): Promise<void>;
  openRawWatch(keyOrPrefix: string, fromRevision: number, handlers: RawWatchHandlers): { close(): Promise<void> };
}

/** Options of {@link directWatch}. */
export interface DirectWatchOptions {
  bufferSize?: number;
  initialEventsEndAnnotation?: string;
}

/**
 * An uncached watch straight on etcd (one etcd watch per call), with the same start semantics and
 * events as a cached one: synthetic ADDED for '' / '0', replay after N, predicate transitions,
 * bookmarks from progress notifications, a 410 ERROR event when etcd compacts under it.
 */
export async function directWatch(
  source: DirectWatchSource,
  prefix: string,
  rv: number,
  opts: WatchOptions,
  dopts: DirectWatchOptions = {},
): Promise<WatchStream> {
  const wantState = opts.sendInitialEvents ?? rv === 0;
  const initial: WatchEvent[] = [];
  let start: number;
  if (wantState) {
    if (rv > 0) await source.checkRevision(prefix, rv);
    const listed = await source.listEntries(prefix);
    start = listed.revision;
    for (const [, obj] of listed.entries) {
      if (!opts.predicate || opts.predicate(obj)) {
        initial.push({ type: 'ADDED', object: obj, revision: Number(obj.metadata.resourceVersion ?? 0) });
      }
    }
    if (opts.sendInitialEvents === true && opts.allowBookmarks) {
      initial.push(bookmarkEvent(start, { [dopts.initialEventsEndAnnotation ?? 'k8s.io/initial-events-end']: 'true' }));
    }
  } else if (rv === 0) {
    start = await source.currentRevision();
  } else {
    await source.checkRevision(prefix, rv);
    start = rv;
  }

  let raw: { close(): Promise<void> } | undefined;
  const w = new CacheWatcher({
    prefix,
    ...(opts.predicate ? { predicate: opts.predicate } : {}),
    allowBookmarks: opts.allowBookmarks === true,
    signal: opts.signal,
    initialEvents: initial,
    afterRevision: start,
    bufferSize: dopts.bufferSize ?? 10_000,
    onClose: () => void raw?.close(),
  });
  if (!w.isOpen) return w;
  raw = source.openRawWatch(prefix, start + 1, {
    onEvents: (events) => {
      for (const raw of events) {
        let ev: CacheEvent;
        try {
          ev = toCacheEvent(raw);
        } catch (e) {
          w.terminate(errorEvent(500, 'InternalError', `Internal error occurred: ${(e as Error).message}`));
          return;
        }
        w.dispatch(ev);
      }
    },
    onProgress: (revision) => w.bookmark(bookmarkEvent(revision)),
    onCompacted: () => w.terminate(expiredEvent()),
  });
  return w;
}

/** Turns an etcd watch event into a cache event, decoding the new and previous values. */
export function toCacheEvent(raw: RawWatchEvent): CacheEvent {
  const prevObject = raw.prevKv ? decodeValue(raw.key, raw.prevKv.value, raw.prevKv.mod_revision) : undefined;
  const time = Date.now();
  if (raw.type === 'delete') {
    if (!prevObject) {
      throw new StorageError(
        'InvalidObj',
        raw.key,
        `etcd event received with PrevKv=nil (key="${raw.key}", modRevision=${raw.revision}, type=DELETE)`,
      );
    }
    const object = withResourceVersion(prevObject, raw.revision);
    return { type: 'DELETED', key: raw.key, revision: raw.revision, object, prevObject, time };
  }
  const object = decodeValue(raw.key, raw.kv.value, raw.kv.mod_revision);
  if (raw.kv.create_revision === raw.kv.mod_revision) {
    return { type: 'ADDED', key: raw.key, revision: raw.revision, object, time };
  }
  // Without prev_kv (its revision compacted) the old state is unknown: treat it like the new one.
  return { type: 'MODIFIED', key: raw.key, revision: raw.revision, object, prevObject: prevObject ?? object, time };
}
