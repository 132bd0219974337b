import { isJsonObject, type JsonObject } from '@cluster/apimachinery';
import { openApiHash } from '../openapi/hash.js';
import { DEFAULT_SERVICE_PORT } from '../resources/apiregistration/validation.js';
import { isAvailable, type ApiService } from '../resources/apiregistration/types.js';
import type { ApiServiceIndex } from './apiservice-index.js';
import type { ExternalGroupVersion } from './discovery-merge.js';
import { REMOTE_GROUP_HEADER, REMOTE_USER_HEADER } from './proxy-headers.js';
import type { ProxyRequest, ProxyResponse, ProxyTransport } from './proxy-transport.js';

/** Upstream's identity for the aggregator's own discovery calls. */
const AGGREGATOR_USER = 'system:kube-aggregator';
const FETCH_TIMEOUT_MS = 5_000;
/** An extension's discovery or OpenAPI document larger than this is not read. */
const MAX_DOCUMENT_BYTES = 16 << 20;

export interface ExternalDiscoveryOptions {
  index: ApiServiceIndex;
  transport: ProxyTransport;
  /** Receives the available external group versions whenever they or their resources change. */
  publish: (external: ExternalGroupVersion[]) => void;
  /** How often the extensions' resource lists are fetched again (ms); 30 s by default. */
  refreshMs?: number;
  log?: (msg: string, err?: unknown) => void;
}

/**
 * Keeps the extensions' group versions in this replica's discovery (upstream's discovery
 * aggregation controller): the Available ones are listed at once; each one's APIResourceList is
 * fetched from the extension (as system:kube-aggregator) when its APIService changes and every
 * `refreshMs`, so aggregated discovery lists its resources (and /openapi/v3 its document, when it
 * serves one). A failing fetch keeps the last list.
 */
export class ExternalDiscovery {
  private readonly resources = new Map<string, { version: string; resources: readonly JsonObject[]; openApiV3?: JsonObject }>();
  /**
   * The extensions' /openapi/v2 documents by APIService name, with the ETag they came with (sent
   * back as If-None-Match) and the Service they came from; kept across refreshes, so a failing
   * fetch leaves the last good document in place.
   */
  private readonly openApiV2 = new Map<string, { service: string; etag?: string; doc: JsonObject; hash: string }>();
  private timer?: NodeJS.Timeout;
  private pending?: NodeJS.Timeout;
  private running = false;
  private again = false;
  /** The next pass fetches every list again (the periodic refresh), keeping the known ones meanwhile. */
  private refetchAll = false;
  private stopped = false;
  private unsubscribe?: () => void;

  constructor(private readonly opts: ExternalDiscoveryOptions) {}

  start(): void {
    this.unsubscribe = this.opts.index.onChange(() => this.schedule());
    this.timer = setInterval(() => this.schedule(true), this.opts.refreshMs ?? 30_000);
    this.timer.unref();
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    clearInterval(this.timer);
    clearTimeout(this.pending);
  }

  /** Runs a pass soon (changes come in bursts); `refetch` fetches every list again. */
  private schedule(refetch = false): void {
    // The lists known stay listed until their new copies arrive (upstream serves them as they
    // were meanwhile): clearing them here would take the resources out of discovery for a while.
    if (refetch) this.refetchAll = true;
    if (this.pending || this.stopped) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      // Availability shows at once; fetching resource lists (up to a timeout each) follows.
      this.publish();
      void this.pass();
    }, 50);
    this.pending.unref();
  }

  private async pass(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    const refetch = this.refetchAll;
    this.refetchAll = false;
    try {
      const services = this.opts.index.externalServices();
      this.opts.transport.retain(new Set(services.map((s) => s.metadata.name ?? '')));
      const available = services.filter(isAvailable);
      let fetched = false;
      await Promise.all(
        available.map(async (svc) => {
          const name = svc.metadata.name ?? '';
          if (!refetch && this.resources.get(name)?.version === svc.metadata.resourceVersion) return;
          try {
            const resources = await this.fetchResources(svc);
            // The OpenAPI v3 document is optional: an extension without one is still listed.
            const openApiV3 = await this.fetchOpenApiV3(svc).catch((err) => void this.opts.log?.(`APIService ${name}: no OpenAPI v3 document`, err));
            this.resources.set(name, { version: svc.metadata.resourceVersion ?? '', resources, ...(openApiV3 ? { openApiV3 } : {}) });
            await this.refreshOpenApiV2(svc);
            fetched = true;
          } catch (err) {
            this.opts.log?.(`APIService ${name}: discovery failed`, err);
          }
        }),
      );
      for (const name of this.resources.keys()) if (!available.some((s) => s.metadata.name === name)) this.resources.delete(name);
      for (const name of this.openApiV2.keys()) if (!available.some((s) => s.metadata.name === name)) this.openApiV2.delete(name);
      if (fetched) this.publish();
    } finally {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.schedule();
      }
    }
  }

  /** Hands the currently available external group versions (with the resources known) to discovery. */
  private publish(): void {
    if (!this.stopped) this.opts.publish(this.opts.index.externalServices().filter(isAvailable).map((s) => this.entry(s)));
  }

  private entry(svc: ApiService): ExternalGroupVersion {
    const spec = svc.spec ?? {};
    const known = this.resources.get(svc.metadata.name ?? '');
    const v2 = this.openApiV2.get(svc.metadata.name ?? '');
    return {
      group: spec.group ?? '',
      version: spec.version ?? '',
      groupPriorityMinimum: spec.groupPriorityMinimum ?? 0,
      versionPriority: spec.versionPriority ?? 0,
      ...(known ? { resources: known.resources } : {}),
      ...(known?.openApiV3 ? { openApiV3: known.openApiV3 } : {}),
      ...(v2 ? { openApiV2: { doc: v2.doc, hash: v2.hash } } : {}),
    };
  }

  /**
   * Fetches the extension's /openapi/v2 (JSON) again, as upstream's OpenAPI aggregation controller
   * does: If-None-Match with the last ETag (304 keeps the document), 404 means it serves none; any
   * other failure keeps the last good document. Never throws.
   */
  private async refreshOpenApiV2(svc: ApiService): Promise<void> {
    const name = svc.metadata.name ?? '';
    const ref = svc.spec?.service;
    const service = `${ref?.namespace ?? ''}/${ref?.name ?? ''}:${ref?.port ?? DEFAULT_SERVICE_PORT}`;
    const last = this.openApiV2.get(name);
    const cached = last?.service === service ? last : undefined;
    try {
      const res = await this.fetch(svc, '/openapi/v2', cached?.etag ? { 'if-none-match': cached.etag } : {});
      if (res.status === 304 && cached) return;
      if (res.status === 404) {
        this.openApiV2.delete(name);
        return;
      }
      if (res.status !== 200) throw new Error(`/openapi/v2: HTTP ${res.status}`);
      const doc = parseDocument('/openapi/v2', res.body);
      if (typeof doc['swagger'] !== 'string') throw new Error('/openapi/v2: not a Swagger 2.0 document');
      this.openApiV2.set(name, { service, ...(res.etag ? { etag: res.etag } : {}), doc, hash: openApiHash(res.body) });
    } catch (err) {
      this.opts.log?.(`APIService ${name}: OpenAPI v2 document not refreshed`, err);
    }
  }

  /** GET /apis/<group>/<version> from the extension. @throws on any failure or a body that is not an APIResourceList. */
  private async fetchResources(svc: ApiService): Promise<JsonObject[]> {
    const spec = svc.spec ?? {};
    const list = (await this.get(svc, `/apis/${spec.group ?? ''}/${spec.version ?? ''}`)) as { resources?: unknown };
    if (!Array.isArray(list.resources)) throw new Error('not an APIResourceList');
    return list.resources.filter((r): r is JsonObject => !!r && typeof r === 'object' && !Array.isArray(r));
  }

  /** GET /openapi/v3/apis/<group>/<version> from the extension. @throws on any failure or a body that is not an OpenAPI document. */
  private async fetchOpenApiV3(svc: ApiService): Promise<JsonObject> {
    const spec = svc.spec ?? {};
    const doc = await this.get(svc, `/openapi/v3/apis/${spec.group ?? ''}/${spec.version ?? ''}`);
    if (typeof doc['openapi'] !== 'string') throw new Error('not an OpenAPI v3 document');
    return doc;
  }

  /** A JSON object from the extension, as system:kube-aggregator. @throws on any failure, a non-200 or a body that is not a JSON object. */
  private async get(svc: ApiService, path: string): Promise<JsonObject> {
    const res = await this.fetch(svc, path);
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`);
    return parseDocument(path, res.body);
  }

  /**
   * GET `path` from the extension as system:kube-aggregator (group system:masters), JSON asked
   * for, bounded in time (connecting included) and size. Resolves with the status, ETag and body
   * text of any answer; the body of a non-200 is not read. @throws on connection failures,
   * timeouts and oversized answers.
   */
  private async fetch(svc: ApiService, path: string, extra: Record<string, string> = {}): Promise<{ status: number; etag?: string; body: string }> {
    const target = await this.opts.transport.target(svc);
    const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS);
    let removeAbortListener = () => {};
    return new Promise<{ status: number; etag?: string; body: string }>((resolve, reject) => {
      let req: ProxyRequest | undefined;
      const onResponse = (res: ProxyResponse) => {
        const status = res.statusCode ?? 0;
        const etag = typeof res.headers.etag === 'string' ? res.headers.etag : undefined;
        if (status !== 200) {
          res.resume();
          resolve({ status, ...(etag ? { etag } : {}), body: '' });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_DOCUMENT_BYTES) {
            res.destroy(new Error(`${path}: answer too large`));
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => resolve({ status, ...(etag ? { etag } : {}), body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      };
      // The whole fetch, connecting included, is bounded.
      const onAbort = () => {
        reject(new Error(`${path}: timed out`));
        req?.destroy();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      removeAbortListener = () => signal.removeEventListener('abort', onAbort);
      const headers = { host: `${target.endpoint.serverName}:${target.options.port}`, accept: 'application/json', [REMOTE_USER_HEADER]: AGGREGATOR_USER, [REMOTE_GROUP_HEADER]: 'system:masters', ...extra };
      this.opts.transport.request(target, 'GET', path, headers, onResponse, { signal }).then((r) => {
        req = r;
        if (signal.aborted) r.destroy();
        r.on('error', reject);
        r.end();
      }, reject);
    }).finally(() => removeAbortListener());
  }
}

/** How deep an extension's document may nest: deeper ones are refused, so nothing walking them recursively can overflow the stack. */
const MAX_DOCUMENT_DEPTH = 256;

/** `body` parsed as a JSON object no deeper than {@link MAX_DOCUMENT_DEPTH}. @throws otherwise. */
export function parseDocument(path: string, body: string): JsonObject {
  const parsed = JSON.parse(body) as unknown;
  if (!isJsonObject(parsed)) throw new Error(`${path}: not a JSON object`);
  const stack: Array<[unknown, number]> = [[parsed, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (depth > MAX_DOCUMENT_DEPTH) throw new Error(`${path}: nested deeper than ${MAX_DOCUMENT_DEPTH} levels`);
    if (value && typeof value === 'object') for (const v of Object.values(value)) if (v && typeof v === 'object') stack.push([v, depth + 1]);
  }
  return parsed;
}
