import type { KubeObject } from '@cluster/apimachinery';
import type { WatchEvent, WatchStream } from '@cluster/storage';

/**
 * A watch of stored objects seen in another served form (StorageConversion). ERROR and BOOKMARK
 * events pass as they are; each converted event is made once and shared by every watcher of this
 * stream, keyed by the shared source event, so the HTTP layer's per-event encoding cache still works.
 */
export function convertedWatch(source: WatchStream, convert: (obj: KubeObject) => KubeObject): WatchStream {
  const converted = new WeakMap<WatchEvent, WatchEvent>();
  const map = (e: WatchEvent): WatchEvent => {
    if (e.type === 'ERROR' || e.type === 'BOOKMARK') return e;
    let out = converted.get(e);
    if (!out) {
      out = { type: e.type, revision: e.revision, object: convert(e.object) };
      converted.set(e, out);
    }
    return out;
  };
  return {
    takeReady: (max) => source.takeReady(max).map(map),
    takeNext: () => {
      const e = source.takeNext();
      return e && map(e);
    },
    onReady: (listener) => source.onReady(listener),
    get finished() {
      return source.finished;
    },
    get initialEventsPending() {
      return source.initialEventsPending;
    },
    async *[Symbol.asyncIterator]() {
      for await (const e of source) yield map(e);
    },
  };
}
