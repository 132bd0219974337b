import type { ChangeSink } from '../cacher/cacher-source.js';
import type { StoreChange } from '../cacher/watch-cache.js';
import type { RawWatchHandlers } from './raw-watch.js';
import type { RecentWrites } from './recent-writes.js';
import { decodeHeldValue } from './value-codec.js';

/**
 * The handlers of the cacher's feed (Etcd3Store.watchChanges): the raw events of the etcd watch on
 * `prefix`, decoded into changes for `sink`.
 */
export function changeFeedHandlers(
  prefix: string,
  sink: ChangeSink,
  opts: { recentWrites?: RecentWrites | undefined; log?: ((message: string) => void) | undefined },
): RawWatchHandlers {
  return {
    onEvents: (events) => {
      const changes: StoreChange[] = [];
      for (const ev of events) {
        try {
          const kv = ev.type === 'put' ? ev.kv : ev.prevKv;
          // A put of this process's own write: the object it stored, when the bytes are the same.
          const own = ev.type === 'put' ? opts.recentWrites?.take(ev.key, ev.kv.mod_revision, ev.kv.value) : undefined;
          const object = own ?? (kv ? decodeHeldValue(ev.key, kv.value, kv.mod_revision) : undefined);
          changes.push({ type: ev.type, key: ev.key, revision: ev.revision, ...(object ? { object } : {}) });
        } catch (e) {
          // An undecodable value cannot be shown to anyone; the cache keeps going without it.
          opts.log?.(`watch ${prefix}: ${(e as Error).message}`);
          changes.push({ type: 'delete', key: ev.key, revision: ev.revision });
        }
      }
      sink.onChanges(changes);
    },
    onProgress: (rev) => sink.onProgress(rev),
    onCompacted: (rev) => sink.onCompacted(rev),
    onStreamError: (err) => opts.log?.(`watch ${prefix}: ${err.message}; reconnecting`),
  };
}
