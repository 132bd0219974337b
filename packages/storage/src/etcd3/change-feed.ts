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
          if (ev.type === 'put') {
            // A put of this process's own write: the object it stored, when the bytes are the same.
            // Any other is decoded by the cache when it needs the object (with a shared store,
            // only when no other worker stored that version yet); it logs one it cannot decode.
            const own = opts.recentWrites?.take(ev.key, ev.kv.mod_revision, ev.kv.value);
            const kv = ev.kv;
            changes.push(
              own
                ? { type: 'put', key: ev.key, revision: ev.revision, object: own }
                : { type: 'put', key: ev.key, revision: ev.revision, decode: () => decodeHeldValue(ev.key, kv.value, kv.mod_revision) },
            );
            continue;
          }
          const object = ev.prevKv ? decodeHeldValue(ev.key, ev.prevKv.value, ev.prevKv.mod_revision) : undefined;
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
