import type { ServerResponse } from 'node:http';
import { encodeWatchEventFrame, newInternalError, StatusError, type KubeObject, type Status } from '@cluster/apimachinery';
import type { WatchEvent, WatchStream } from '@cluster/storage';
import type { Negotiated } from '../negotiation/negotiate.js';
import type { GenericRegistry } from '../registry/generic-registry.js';
import { toTable } from '../tables/table.js';
import type { EncodingCache } from './encoding-cache.js';
import { parseListQuery } from './list-options.js';
import { selectionPredicate } from './selectors.js';
import type { RequestScope } from './scope.js';

/** Upstream picks a watch timeout between --min-request-timeout (30 min) and twice that. */
const MIN_REQUEST_TIMEOUT_S = 1800;

export interface WatchTarget {
  res: ServerResponse;
  /** Encodings of recent events shared by every watcher of this server. */
  encodings: EncodingCache<WatchEvent>;
  negotiated: Negotiated;
  metaGroup: string;
  apiDomain: string;
}

/**
 * GET ...?watch=true (SPEC 4.4 watch table, 4.5, 6): answers 200 at once and streams one event
 * per change as newline-delimited JSON (or length-framed Protobuf), until timeoutSeconds, the
 * client going away, or the watch ending (an ERROR event says why, e.g. 410 Expired).
 */
export async function watchResource(scope: RequestScope, target: WatchTarget): Promise<void> {
  const q = parseListQuery(scope.query, true);
  let fieldSelector = q.fieldSelector;
  if (scope.info.name) {
    // A watch of one object (/watch/.../name) is a watch with a name field selector.
    fieldSelector = [fieldSelector, `metadata.name=${scope.info.name}`].filter(Boolean).join(',');
  }
  const predicate = selectionPredicate(scope.registry, q.labelSelector, fieldSelector);
  const timeoutS = q.timeoutSeconds && q.timeoutSeconds > 0 ? q.timeoutSeconds : MIN_REQUEST_TIMEOUT_S * (1 + Math.random());
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutS * 1000);
  const onClientGone = () => controller.abort();
  scope.signal.addEventListener('abort', onClientGone);
  const resourceVersion =
    q.semantic.kind === 'Any' ? '0' : q.semantic.kind === 'NotOlderThan' ? q.semantic.resourceVersion : '';
  const { res } = target;
  try {
    let events: WatchStream;
    try {
      events = await scope.registry.watch(scope.info.namespace, {
        resourceVersion,
        predicate,
        allowBookmarks: q.allowWatchBookmarks,
        // Absent means "per resourceVersion" (SPEC 4.4); only an explicit value overrides it.
        ...(scope.query.has('sendInitialEvents') ? { sendInitialEvents: scope.query.get('sendInitialEvents') === 'true' } : {}),
        signal: controller.signal,
      });
    } catch (e) {
      // A start revision older than the kept history is a 200 with one ERROR event, as upstream.
      if (e instanceof StatusError && e.status.code === 410) {
        startStream(res, target.negotiated);
        res.end(encodeError(e.status, target));
        return;
      }
      throw e;
    }
    startStream(res, target.negotiated);
    await pump(events, res, scope, target, controller.signal);
  } finally {
    clearTimeout(timer);
    scope.signal.removeEventListener('abort', onClientGone);
    controller.abort();
  }
}

/** Most events written in one go: bounds the size of a single write. */
const MAX_EVENTS_PER_WRITE = 256;

/**
 * Writes events until the watch ends; a failure mid-stream becomes a final ERROR event. Events
 * already waiting are written together, one socket write per batch rather than per event.
 */
async function pump(
  events: WatchStream,
  res: ServerResponse,
  scope: RequestScope,
  target: WatchTarget,
  signal: AbortSignal,
): Promise<void> {
  const includeObject = scope.query.get('includeObject');
  const it = events[Symbol.asyncIterator]();
  try {
    for (;;) {
      const first = await it.next();
      if (first.done || signal.aborted) break;
      const batch = [first.value, ...(events.takeReady?.(MAX_EVENTS_PER_WRITE - 1) ?? [])];
      const parts: (Uint8Array | string)[] = [];
      let ended = false;
      for (const event of batch) {
        parts.push(encodeEvent(event, scope.registry, target, includeObject));
        if (event.type === 'ERROR') {
          ended = true;
          break;
        }
      }
      const chunk = parts.length === 1 ? parts[0]! : Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
      if (!res.write(chunk)) await drained(res);
      if (ended || res.destroyed) break;
    }
  } catch (e) {
    const status = e instanceof StatusError ? e.status : newInternalError(e).status;
    if (!res.destroyed) res.write(encodeError(status, target));
  } finally {
    await it.return?.();
  }
  res.end();
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

function startStream(res: ServerResponse, n: Negotiated): void {
  if (res.headersSent) return;
  const contentType = n.encoding === 'protobuf' ? `${n.contentType};stream=watch` : 'application/json';
  res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
}

function encodeError(status: Status, target: WatchTarget): Uint8Array | string {
  if (target.negotiated.encoding === 'protobuf') {
    return encodeWatchEventFrame('ERROR', status as unknown as KubeObject, { apiDomain: target.apiDomain });
  }
  return `${JSON.stringify({ type: 'ERROR', object: status })}\n`;
}

/**
 * Serializes an event once per media type and view; the bytes are kept on the shared event so
 * every other watcher of the same event reuses them (DESIGN "Watch cache").
 */
function encodeEvent(event: WatchEvent, registry: GenericRegistry, target: WatchTarget, includeObject: string | null): Uint8Array | string {
  const n = target.negotiated;
  const key = n.as === 'Table' ? `table:${includeObject ?? 'Metadata'}` : n.encoding;
  const cached = target.encodings.get(event, key);
  if (cached) return cached;
  const object = viewOf(event, registry, target, includeObject);
  const bytes =
    n.encoding === 'protobuf'
      ? encodeWatchEventFrame(event.type, object, { apiDomain: target.apiDomain })
      : Buffer.from(`${JSON.stringify({ type: event.type, object })}\n`);
  // Bookmarks and errors are per watcher; only shared change events are worth caching.
  if (event.type !== 'BOOKMARK' && event.type !== 'ERROR') target.encodings.set(event, key, bytes);
  return bytes;
}

function viewOf(event: WatchEvent, registry: GenericRegistry, target: WatchTarget, includeObject: string | null): KubeObject {
  const typeMeta = { apiVersion: registry.apiVersion(), kind: registry.info.kind };
  if (event.type === 'ERROR') return event.object;
  if (event.type === 'BOOKMARK') {
    return { ...typeMeta, metadata: { resourceVersion: event.object.metadata.resourceVersion ?? String(event.revision) } };
  }
  const obj = event.object.kind ? event.object : { ...typeMeta, ...event.object };
  if (target.negotiated.as !== 'Table') return obj;
  return toTable(
    [obj],
    { resourceVersion: obj.metadata.resourceVersion ?? '' },
    registry.strategy,
    { metaApiVersion: `${target.metaGroup}/v1`, includeObject: (includeObject ?? 'Metadata') as 'None' | 'Metadata' | 'Object' },
    registry.apiVersion(),
    registry.info.kind,
  );
}
