import type { ServerResponse } from 'node:http';
import { encodeWatchEventFrame, newInternalError, StatusError, type KubeObject, type Status } from '@cluster/apimachinery';
import type { WatchEvent, WatchStream } from '@cluster/storage';
import { storedJsonOf, storedMetadataJsonOf } from '@cluster/storage';
import type { Negotiated } from '../negotiation/negotiate.js';
import type { GenericRegistry } from '../registry/generic-registry.js';
import { toTable } from '../tables/table.js';
import type { EncodingCache } from './encoding-cache.js';
import type { FlushTask, WatchFlusher } from './watch-flusher.js';
import { parseListQuery } from './list-options.js';
import { selectionPredicate } from './selectors.js';
import type { RequestScope } from './scope.js';
import { asPartialObjectMetadata } from '../negotiation/partial-metadata.js';

/** Upstream picks a watch timeout between --min-request-timeout (30 min) and twice that. */
const MIN_REQUEST_TIMEOUT_S = 1800;

export interface WatchTarget {
  res: ServerResponse;
  /** Encodings of recent events shared by every watcher of this server. */
  encodings: EncodingCache<WatchEvent>;
  /** Takes turns writing the watch streams of this server. */
  flusher: WatchFlusher;
  negotiated: Negotiated;
  metaGroup: string;
  apiDomain: string;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

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
  // Node's timers hold at most 2^31-1 ms (about 24.8 days); a longer timeout would fire at once.
  const timer = setTimeout(() => controller.abort(), Math.min(timeoutS * 1000, MAX_TIMER_MS));
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
    await new WatchStreamWriter(events, res, scope, target).done;
  } finally {
    clearTimeout(timer);
    scope.signal.removeEventListener('abort', onClientGone);
    controller.abort();
  }
}

/**
 * Joined bytes of recent batches, by their last event and encoding (see bytesOf). A batch is
 * reused within one round of the flusher, so a few hundred are plenty; bounded so that events
 * kept in the watch cache's history do not keep their batches too.
 */
const recentBatches = new Map<WatchEvent, Map<string, { events: WatchEvent[]; bytes: Uint8Array }>>();
const RECENT_BATCHES = 256;

/** Whether `kept` holds exactly the first `n` events of `batch`. */
function sameEvents(kept: readonly WatchEvent[], batch: readonly (WatchEvent | undefined)[], n: number): boolean {
  if (kept.length !== n) return false;
  for (let i = 0; i < n; i++) if (kept[i] !== batch[i]) return false;
  return true;
}

/**
 * The events of the batch a stream is sending, in slots 0 to n-1: one array for every stream's
 * turn (a turn runs to its end before another starts), so a batch costs no array of its own
 * unless its joined bytes are kept (see bytesOf). Slots are cleared after each turn.
 */
const batchSlots: (WatchEvent | undefined)[] = [];

/** Most events written in one go: bounds the size of a single write. */
const MAX_EVENTS_PER_WRITE = 256;

/**
 * One watch stream in push mode: when the stream has events, it asks the server's flusher for a
 * turn; on its turn it sends every event waiting in one write. While the socket is over its
 * buffer it waits for 'drain' (events keep queueing in the watcher, which ends itself as too slow
 * when that lasts).
 */
class WatchStreamWriter implements FlushTask {
  readonly done: Promise<void>;
  private resolveDone!: () => void;
  private blocked = false;
  /** Where 'drain' is listened for, from the first time a write was over the buffer until the end. */
  private drainSource: NodeJS.EventEmitter | undefined;
  /**
   * Made once per stream: a fan-out to slow readers blocks many streams on every event, and a
   * `once` listener per block (a closure and Node's once-wrapper) was garbage of each.
   */
  private readonly onDrain = (): void => {
    if (!this.blocked) return;
    this.blocked = false;
    this.checkInitialized();
    this.wake();
  };
  private ended = false;
  private readonly includeObject: string | null;
  /** HTTP/1.1 chunked responses get pre-framed chunks written to the socket (see rawChunkSocket). */
  private readonly socket: ServerResponse['socket'];
  private readonly chunkKey: string;
  /** Which form a joined batch of this stream has: framed chunks or plain encodings. */
  private readonly batchKey: string;
  /** The HTTP/2 connection of the stream, whose streams the flusher writes together. */
  readonly group: object | undefined;

  constructor(
    private readonly events: WatchStream,
    private readonly res: ServerResponse,
    private readonly scope: RequestScope,
    private readonly target: WatchTarget,
  ) {
    this.done = new Promise<void>((resolve) => (this.resolveDone = resolve));
    this.includeObject = scope.query.get('includeObject');
    this.socket = rawChunkSocket(res);
    this.chunkKey = `${encodingKey(target, scope.registry, this.includeObject)}/chunk`;
    this.batchKey = this.socket ? this.chunkKey : encodingKey(target, scope.registry, this.includeObject);
    this.group = (res as unknown as { stream?: { session?: object } }).stream?.session;
    res.once('close', () => this.finish());
    this.checkInitialized();
    events.onReady(() => this.wake());
  }

  /**
   * Tells the scope (priority and fairness: the seat goes back) once no initial event is left to
   * write and the socket took the last of them, as upstream frees a watch's seat once its initial
   * events went into the (bounded) result channel.
   */
  private checkInitialized(): void {
    const initialized = this.scope.watchInitialized;
    if (!initialized || this.events.initialEventsPending === true) return;
    this.scope.watchInitialized = undefined;
    initialized();
  }

  flush(): void {
    if (this.ended || this.blocked) return;
    let data: Uint8Array;
    let last = false;
    let full = false;
    try {
      // Events are taken one at a time: the usual turn of a fan-out sends one event, which then
      // needs no array (an array per stream and event was young garbage of every delivery).
      const first = this.events.takeNext();
      if (first === undefined) {
        if (this.events.finished) this.finish();
        return;
      }
      // An ERROR event is the last one a stream sends.
      last = first.type === 'ERROR';
      let n = 1;
      while (!last) {
        if (n >= MAX_EVENTS_PER_WRITE) {
          full = true;
          break;
        }
        const next = this.events.takeNext();
        if (next === undefined) break;
        if (n === 1) batchSlots[0] = first;
        batchSlots[n++] = next;
        last = next.type === 'ERROR';
      }
      if (n === 1) data = this.encode(first);
      else {
        try {
          data = this.bytesOf(n);
        } finally {
          batchSlots.fill(undefined, 0, n);
        }
      }
    } catch (e) {
      // A failing event (e.g. its conversion) may have left earlier ones of the turn in the slots.
      batchSlots.fill(undefined);
      const status = e instanceof StatusError ? e.status : newInternalError(e).status;
      if (!this.res.destroyed) this.res.write(encodeError(status, this.target));
      this.finish();
      return;
    }
    const ok = this.socket ? this.socket.write(data) : this.res.write(data);
    // The initial events count as written once the socket took them (not while over its buffer).
    if (ok) this.checkInitialized();
    if (last || this.res.destroyed) {
      this.finish();
      return;
    }
    if (!ok) {
      this.blocked = true;
      if (!this.drainSource) {
        this.drainSource = this.socket ?? this.res;
        this.drainSource.on('drain', this.onDrain);
      }
      return;
    }
    // More than one write's worth was waiting: come back after the others had their turn.
    if (full) this.wake();
  }

  /**
   * The bytes of a batch of events. Watchers of the same selection get the same events in the
   * same rounds, so the joined bytes of a batch of shared events are kept with its last event and
   * reused by every stream that sends exactly that batch, rather than joined again for each.
   * The batch is the first `n` of batchSlots.
   */
  private bytesOf(n: number): Uint8Array {
    const lastEvent = batchSlots[n - 1]!;
    let shareable = true;
    for (let i = 0; i < n; i++) {
      const type = batchSlots[i]!.type;
      if (type === 'BOOKMARK' || type === 'ERROR') shareable = false;
    }
    let joined = shareable ? recentBatches.get(lastEvent) : undefined;
    const hit = joined?.get(this.batchKey);
    if (hit && sameEvents(hit.events, batchSlots, n)) return hit.bytes;
    const batch = batchSlots.slice(0, n) as WatchEvent[];
    const bytes = Buffer.concat(batch.map((event) => this.encode(event)));
    if (shareable) {
      if (!joined) {
        // Maps iterate in insertion order: the first key is the oldest batch.
        if (recentBatches.size >= RECENT_BATCHES) recentBatches.delete(recentBatches.keys().next().value!);
        recentBatches.set(lastEvent, (joined = new Map()));
      }
      joined.set(this.batchKey, { events: batch, bytes });
    }
    return bytes;
  }

  private encode(event: WatchEvent): Uint8Array {
    if (this.socket) return chunkOf(event, this.chunkKey, this.scope.registry, this.target, this.includeObject);
    // Every stream of a fan-out asks for the same event: look its shared bytes up by this stream's
    // key (batchKey is the encoding key here), made once, before building the key again.
    const cached = this.target.encodings.get(event, this.batchKey);
    return toBytes(cached ?? encodeEvent(event, this.scope.registry, this.target, this.includeObject));
  }

  private wake(): void {
    if (!this.ended && !this.blocked) this.target.flusher.schedule(this);
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.scope.watchInitialized) {
      this.scope.watchInitialized();
      this.scope.watchInitialized = undefined;
    }
    this.target.flusher.cancel(this);
    // An HTTP/1.1 socket may serve further requests after this response.
    this.drainSource?.removeListener('drain', this.onDrain);
    // Ends the watcher too when the client went away or the response failed.
    void this.events[Symbol.asyncIterator]().return?.();
    if (!this.res.destroyed && !this.res.writableEnded) this.res.end();
    this.resolveDone();
  }
}

/**
 * The socket of an HTTP/1.1 chunked response whose headers are out, or null. Writing an
 * event's chunk there directly, framed once and shared by every watcher, costs one buffer write
 * per watcher instead of the response's framing of each write (corking, a chunk header and
 * trailer, a gathered write); the response still writes the terminating chunk on end().
 */
function rawChunkSocket(res: ServerResponse): ServerResponse['socket'] {
  const chunked = (res as ServerResponse & { chunkedEncoding?: boolean }).chunkedEncoding === true;
  return chunked && res.headersSent && res.socket && !res.socket.destroyed ? res.socket : null;
}

function toBytes(bytes: Uint8Array | string): Uint8Array {
  return typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
}

/** An event encoded as one HTTP/1.1 chunk (size line, bytes, CRLF), cached with the encoding. */
function chunkOf(event: WatchEvent, key: string, registry: GenericRegistry, target: WatchTarget, includeObject: string | null): Uint8Array {
  const cached = target.encodings.get(event, key);
  if (cached) return cached as Uint8Array;
  const bytes = toBytes(encodeEvent(event, registry, target, includeObject, false));
  const chunk = Buffer.allocUnsafe(bytes.length + 16);
  let at = chunk.write(`${bytes.length.toString(16)}\r\n`, 0, 'latin1');
  chunk.set(bytes, at);
  at += bytes.length;
  at += chunk.write('\r\n', at, 'latin1');
  const framed = chunk.subarray(0, at);
  if (event.type !== 'BOOKMARK' && event.type !== 'ERROR') target.encodings.set(event, key, framed);
  return framed;
}

/**
 * Which bytes of an event a watcher needs. The API version is part of it: every version of a
 * resource (e.g. a removed version enabled by --runtime-config) is served from one watch cache, so
 * their watchers share event objects, but each version's bytes carry its own apiVersion.
 */
function encodingKey(target: WatchTarget, registry: GenericRegistry, includeObject: string | null): string {
  const as = target.negotiated.as;
  const view = as === 'Table' ? `table:${includeObject ?? 'Metadata'}` : as === 'PartialObjectMetadata' ? `metadata:${target.negotiated.asGroupVersion}` : target.negotiated.encoding;
  return `${registry.apiVersion()}/${view}`;
}

function startStream(res: ServerResponse, n: Negotiated): void {
  if (res.headersSent) return;
  const contentType = n.encoding === 'protobuf' ? `${n.contentType};stream=watch` : 'application/json';
  res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private' });
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
function encodeEvent(
  event: WatchEvent,
  registry: GenericRegistry,
  target: WatchTarget,
  includeObject: string | null,
  /** False when the caller keeps its own (framed) form instead: one copy per event is enough. */
  remember = true,
): Uint8Array | string {
  const n = target.negotiated;
  const key = encodingKey(target, registry, includeObject);
  const cached = target.encodings.get(event, key);
  if (cached) return cached;
  const bytes = n.encoding === 'json' && n.as === 'PartialObjectMetadata' ? metadataEventBytes(event, n.asGroupVersion!) : undefined;
  if (bytes !== undefined) {
    if (remember) target.encodings.set(event, key, bytes);
    return bytes;
  }
  return encodeViewOf(event, registry, target, includeObject, key, remember);
}

function encodeViewOf(event: WatchEvent, registry: GenericRegistry, target: WatchTarget, includeObject: string | null, key: string, remember: boolean): Uint8Array | string {
  const n = target.negotiated;
  const object = viewOf(event, registry, target, includeObject);
  const bytes =
    n.encoding === 'protobuf'
      ? encodeWatchEventFrame(event.type, object, { apiDomain: target.apiDomain })
      : jsonEventBytes(event.type, object);
  // Bookmarks and errors are per watcher; only shared change events are worth caching.
  if (remember && event.type !== 'BOOKMARK' && event.type !== 'ERROR') target.encodings.set(event, key, bytes);
  return bytes;
}

/** `JSON.stringify({ type, object })` and a newline; an object from a watch cache's shared store is copied from there. */
function jsonEventBytes(type: string, object: KubeObject): Buffer {
  const stored = storedJsonOf(object);
  if (stored === undefined) return Buffer.from(`${JSON.stringify({ type, object })}\n`);
  return Buffer.concat([Buffer.from(`{"type":${JSON.stringify(type)},"object":`), stored, EVENT_END]);
}

const EVENT_END = Buffer.from('}\n');
const METADATA_EVENT_END = Buffer.from('}}\n');

/**
 * The JSON of a metadata-only watch's event (PartialObjectMetadata, as asPartialObjectMetadata
 * gives it) of a change whose object is in a watch cache's shared store: its metadata's stored JSON
 * copied in, the object neither decoded nor serialized (the garbage collector watches every
 * resource this way, so every write pays this once). Undefined for any other event.
 */
function metadataEventBytes(event: WatchEvent, apiVersion: string): Buffer | undefined {
  if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return undefined;
  const metadata = storedMetadataJsonOf(event);
  if (metadata === undefined) return undefined;
  const head = `{"type":"${event.type}","object":{"kind":"PartialObjectMetadata","apiVersion":${JSON.stringify(apiVersion)},"metadata":`;
  return Buffer.concat([Buffer.from(head), metadata, METADATA_EVENT_END]);
}

function viewOf(event: WatchEvent, registry: GenericRegistry, target: WatchTarget, includeObject: string | null): KubeObject {
  const typeMeta = { apiVersion: registry.apiVersion(), kind: registry.info.kind };
  if (event.type === 'ERROR') return event.object;
  if (event.type === 'BOOKMARK') {
    const bookmark = { ...typeMeta, metadata: { resourceVersion: event.object.metadata.resourceVersion ?? String(event.revision) } };
    return target.negotiated.as === 'PartialObjectMetadata' ? asPartialObjectMetadata(bookmark, false, target.negotiated.asGroupVersion!) : bookmark;
  }
  const converts = registry.info.storageVersion !== undefined && registry.info.storageVersion !== registry.info.version;
  const obj = event.object.kind && !converts ? event.object : { ...event.object, ...typeMeta };
  // Each event of a metadata-only watch carries PartialObjectMetadata; a list view does not apply
  // to single events, which upstream then sends whole.
  if (target.negotiated.as === 'PartialObjectMetadata') return asPartialObjectMetadata(obj, false, target.negotiated.asGroupVersion!);
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
