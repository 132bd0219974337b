import type { Context, Middleware } from 'koa';
import { newMethodNotSupported, newNotFound, StatusError, type KubeObject, type KubeList, type Status } from '@cluster/apimachinery';
import type { RequestState } from '../filters/state.js';
import { handleResource } from '../handlers/resource-handler.js';
import { checkQueryParams } from '../handlers/query-params.js';
import { watchResource } from '../handlers/watch.js';
import { jsonListStream, STREAM_LIST_THRESHOLD } from '../handlers/list-stream.js';
import { EncodingCache } from '../handlers/encoding-cache.js';
import { ItemEncodings } from '../handlers/item-encodings.js';
import type { WatchFlusher } from '../handlers/watch-flusher.js';
import { writtenJsonOf, type WatchEvent } from '@cluster/storage';
import { encodeBody, warningHeader } from '../handlers/responders.js';
import type { HandlerResult, RequestScope } from '../handlers/scope.js';
import { runHealth } from '../health/health.js';
import { negotiate } from '../negotiation/negotiate.js';
import { NegotiationCache } from '../negotiation/negotiation-cache.js';
import { asPartialObjectMetadata, asPartialObjectMetadataList } from '../negotiation/partial-metadata.js';
import type { GenericRegistry } from '../registry/generic-registry.js';
import type { RegistrySet } from '../registry/registry-set.js';
import { toTable, type IncludeObject } from '../tables/table.js';
import type { ApiCatalog } from './api-catalog.js';
import type { ApiServerConfig } from './app.js';
import { deprecatedApiSignals } from './deprecated-apis.js';
import { withStability } from '../metrics/stability.js';
import { requestQuery } from '../filters/request-query.js';

/** Upstream's answer for a path under /api or /apis that names nothing served. */
function notFoundResource(): StatusError {
  const e = newNotFound({ group: '', resource: '' }, '');
  e.status.message = 'the server could not find the requested resource';
  e.status.details = {};
  return e;
}

/**
 * The innermost handler: health, metrics, discovery and OpenAPI for non-resource paths, and the
 * generic resource handlers for everything under /api and /apis.
 */
export function apiHandler(config: ApiServerConfig, registries: RegistrySet, catalog: ApiCatalog, flusher: WatchFlusher): Middleware<RequestState> {
  const metaGroup = `meta.${config.apiDomain}`;
  const encodings = new EncodingCache<WatchEvent>();
  const itemEncodings = new ItemEncodings();
  const markDeprecated = deprecatedApiSignals(config.metrics, config.apiDomain);
  // Per registry, what depends on it alone (--runtime-config and the Protobuf kinds are fixed for
  // the process's life; a registry object is replaced, never changed, when its resource changes).
  const served = new WeakMap<GenericRegistry, boolean>();
  const isServed = (registry: GenericRegistry): boolean => {
    let yes = served.get(registry);
    if (yes === undefined) served.set(registry, (yes = !config.serves || registry.info.customResource === true || config.serves(registry.info)));
    return yes;
  };
  const protobufKinds = new WeakMap<GenericRegistry, boolean>();
  const protobufOk = (registry: GenericRegistry): boolean => {
    let yes = protobufKinds.get(registry);
    if (yes === undefined) protobufKinds.set(registry, (yes = (!registry.info.customResource && config.protobuf?.supports(registry.apiVersion(), registry.info.kind)) ?? false));
    return yes;
  };
  const negotiations = new NegotiationCache(metaGroup);
  const decodeProtobufDeleteOptions = config.protobuf ? (bytes: Uint8Array) => config.protobuf!.decodeDeleteOptions(bytes) : undefined;
  return async (ctx) => {
    const info = ctx.state.requestInfo;
    if (!info.isResourceRequest) {
      if (await serveNonResource(ctx, config, catalog)) return;
      if (ctx.path.startsWith('/api')) throw notFoundResource();
      ctx.status = 404;
      ctx.type = 'text/plain';
      ctx.body = '404 page not found\n';
      return;
    }
    const registry = registries.lookup(info.apiGroup, info.apiVersion, info.resource);
    if (!registry || !isServed(registry) || (info.subresource && !registry.info.subresources?.some((s) => s.name === info.subresource))) {
      throw notFoundResource();
    }
    if (registry.info.namespaced === false && info.namespace && info.resource !== 'namespaces') throw notFoundResource();
    markDeprecated(ctx as Context & { state: RequestState }, registry.info, info.subresource);
    const query = requestQuery(ctx);
    checkQueryParams(query);
    // A watch ends when its client leaves, or cleanly (the stream's last chunk is written) when
    // the replica shuts down, so clients see the stream end rather than a reset.
    const signal =
      info.verb !== 'watch' ? NEVER_ABORTED : config.shutdownSignal ? AbortSignal.any([clientGoneSignal(ctx), config.shutdownSignal]) : clientGoneSignal(ctx);
    const scope: RequestScope = {
      registry,
      info,
      query: config.listChunking === false && info.verb === 'list' ? withoutChunking(query) : query,
      body: ctx.state.body,
      contentType: ctx.get('Content-Type') || undefined,
      user: ctx.state.user!,
      userAgent: ctx.get('User-Agent'),
      // Custom resources have no Protobuf form: such bodies are 415, as upstream answers.
      protobuf: registry.info.customResource ? undefined : config.protobuf,
      ...(decodeProtobufDeleteOptions ? { decodeProtobufDeleteOptions } : {}),
      apiDomain: config.apiDomain,
      plainJsonResponse: false,
      authorizer: config.authorizer,
      signal,
      report: ctx.state,
      ...(ctx.state.flow ? { flow: ctx.state.flow } : {}),
      ...(ctx.state.watchInitialized ? { watchInitialized: ctx.state.watchInitialized } : {}),
    };
    const audit = ctx.state.audit;
    if (audit) {
      scope.onRequestObject = (obj) => {
        const m = obj.metadata ?? {};
        audit.requestObjectMeta = { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion };
      };
    }
    const pretty = isPretty(query);
    const readVerb = info.verb === 'get' || info.verb === 'list' || info.verb === 'watch';
    // Kinds without a Protobuf schema answer a client that also accepts JSON in JSON.
    const n = negotiations.negotiate(ctx.get('Accept'), protobufOk(registry), readVerb, pretty);
    scope.plainJsonResponse = n.encoding === 'json' && !n.as && !n.pretty;
    if (info.verb === 'watch') {
      if (!registry.info.verbs.includes('watch')) throw newMethodNotSupported(registry.groupResource, 'watch');
      ctx.status = 200;
      try {
        await watchResource(scope, { res: ctx.res, encodings, flusher, negotiated: n, metaGroup, apiDomain: config.apiDomain });
      } finally {
        // The stream was written directly; Koa must not answer again.
        if (ctx.res.headersSent) ctx.respond = false;
      }
      return;
    }
    const result = await handleResource(scope);
    // Warnings of admission webhooks (left in the request state) follow the handler's own.
    if (ctx.state.warnings.length) result.warnings = [...(result.warnings ?? []), ...ctx.state.warnings];
    writeResult(ctx, result, registry, n, config, metaGroup, itemEncodings);
  };
}

/** Whether an If-None-Match header names `etag` (or is `*`); weak tags compare by their value. */
function ifNoneMatch(header: string, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}

/** A list query with `limit` and `continue` removed, for APIListChunking=false. */
function withoutChunking(query: URLSearchParams): URLSearchParams {
  const q = new URLSearchParams(query);
  q.delete('limit');
  q.delete('continue');
  return q;
}

/** Requests that finish on their own need no cancellation; one shared signal serves them all. */
const NEVER_ABORTED = new AbortController().signal;

/**
 * Aborts when the client goes away. The request stream closes as soon as its body is read, so
 * only the response closing before it finished means the client left.
 */
function clientGoneSignal(ctx: Context): AbortSignal {
  const controller = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) controller.abort();
  });
  return controller.signal;
}

function isPretty(query: URLSearchParams): boolean {
  const p = query.get('pretty');
  if (p === null) return false;
  return p === '' || p === 'true' || p === '1';
}

function writeResult(
  ctx: Context,
  result: HandlerResult,
  registry: GenericRegistry,
  n: ReturnType<typeof negotiate>,
  config: ApiServerConfig,
  metaGroup: string,
  itemEncodings: ItemEncodings,
): void {
  let object: KubeObject | Status = result.object;
  if (n.as === 'Table' && object.kind !== 'Status') {
    const includeObject = (requestQuery(ctx).get('includeObject') ?? 'Metadata') as IncludeObject;
    const list = result.isList ? (object as unknown as KubeList) : undefined;
    object = toTable(
      list ? list.items : [object as KubeObject],
      list ? list.metadata : { resourceVersion: (object as KubeObject).metadata.resourceVersion ?? '' },
      registry.strategy,
      { metaApiVersion: `${metaGroup}/v1`, includeObject },
      registry.apiVersion(),
      registry.info.kind,
    );
  } else if (n.as === 'PartialObjectMetadata' && object.kind !== 'Status') {
    object = asPartialObjectMetadata(object as KubeObject, result.isList === true, n.asGroupVersion!);
  } else if (n.as === 'PartialObjectMetadataList' && object.kind !== 'Status') {
    object = asPartialObjectMetadataList(object as KubeObject, result.isList === true, n.asGroupVersion!) as unknown as KubeObject;
  }
  const warnings = result.warnings ?? [];
  if (warnings.length) ctx.append('Warning', warnings.map(warningHeader));
  if (n.encoding === 'json' && !n.as && !n.pretty) {
    const list = result.isList ? (result.object as unknown as KubeList) : undefined;
    if (result.json || (list && list.items.length >= STREAM_LIST_THRESHOLD)) {
      ctx.status = result.code;
      ctx.set('Content-Type', 'application/json');
      ctx.body = result.json ?? jsonListStream(list!, result.sharedItems ? itemEncodings : undefined, (ctx.state as RequestState).flow);
      return;
    }
    const info = (ctx.state as RequestState).requestInfo;
    if (info.verb === 'get' && !info.subresource && result.code === 200) {
      // A GET answered from the watch cache returns the cache's own object, which is never
      // modified and is replaced by a new object when the stored one changes: its JSON is kept
      // by identity with the list items' (ItemEncodings), so reading an object again, or one a
      // list just encoded, costs no JSON.stringify. Objects read from etcd are fresh per request
      // and only ever match themselves.
      ctx.status = 200;
      ctx.set('Content-Type', 'application/json');
      ctx.body = itemEncodings.encode(object, true);
      return;
    }
    // The object a write just stored (create, update, patch): its JSON is the bytes written to
    // etcd with the revision put in, no JSON.stringify needed.
    const written = result.isList ? undefined : writtenJsonOf(object);
    if (written !== undefined) {
      ctx.status = result.code;
      ctx.set('Content-Type', 'application/json');
      ctx.body = written;
      return;
    }
  }
  const { contentType, body } = encodeBody(object, n, config.protobuf);
  ctx.status = result.code;
  ctx.set('Content-Type', contentType);
  ctx.body = body;
}

async function serveNonResource(ctx: Context, config: ApiServerConfig, catalog: ApiCatalog): Promise<boolean> {
  const path = ctx.path;
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
  const health = /^\/(healthz|livez|readyz)(?:\/([^/]+))?\/?$/.exec(path);
  if (health) {
    const endpoint = health[1] as 'healthz' | 'livez' | 'readyz';
    const checks = endpoint === 'livez' ? config.health.livez : config.health.readyz;
    const r = await runHealth(endpoint, checks, ctx.URL.searchParams, health[2]);
    ctx.status = r.code;
    ctx.type = 'text/plain; charset=utf-8';
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = r.body;
    return true;
  }
  const apf = /^\/debug\/api_priority_and_fairness\/(dump_priority_levels|dump_queues)$/.exec(path);
  if (apf && config.flowControl) {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = apf[1] === 'dump_queues' ? config.flowControl.control.dumpQueues() : config.flowControl.control.dumpPriorityLevels();
    return true;
  }
  if (path === '/metrics') {
    ctx.type = config.metrics.contentType;
    const text = config.metricsText ? await config.metricsText() : await config.metrics.metrics();
    ctx.body = withStability(text, config.showHiddenMetricsForVersion);
    return true;
  }
  const doc = catalog.document(path, ctx.URL.searchParams, ctx.get('Accept'));
  if (!doc) return false;
  if (doc.vary) ctx.set('Vary', doc.vary);
  if (doc.status) {
    ctx.status = doc.status;
    ctx.body = doc.body;
    return true;
  }
  ctx.status = 200;
  ctx.set('Content-Type', doc.contentType);
  if (doc.etag) ctx.set('ETag', doc.etag);
  if (doc.cacheControl) ctx.set('Cache-Control', doc.cacheControl);
  // A client holding the same bytes (If-None-Match with this ETag) gets 304, as http.ServeContent answers.
  if (doc.etag && ifNoneMatch(ctx.get('If-None-Match'), doc.etag)) {
    ctx.status = 304;
    return true;
  }
  ctx.body = doc.body;
  return true;
}
