import { Agent, request } from 'node:https';
import { request as httpRequest, Agent as HttpAgent } from 'node:http';
import type { KubeList, KubeObject, Status } from '@cluster/apimachinery';

/** A failed API call, carrying the Status the server answered. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly status: Partial<Status> | undefined,
  ) {
    super(status?.message ?? `HTTP ${code}`);
    this.name = 'ApiError';
  }
  get reason(): string | undefined {
    return this.status?.reason;
  }
}

/** A kept-alive connection found closed by the server when reused (retried by ApiClient.call). */
class StaleConnectionError extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}

/** One event of a watch stream. */
export interface WatchEvent<T extends KubeObject = KubeObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** Media types of one request besides plain JSON. */
export interface RequestMedia {
  accept?: string;
  contentType?: string;
}

export interface ApiClientOptions {
  baseUrl: string;
  token: string;
  caPem?: string;
  userAgent?: string;
}

/**
 * A small JSON client of the API over keep-alive connections, for controllers. Controllers use
 * only this (never storage), as upstream's controller manager uses client-go.
 */
export class ApiClient {
  private readonly agent: Agent | HttpAgent;
  /** Watches hold their connection for minutes: they get their own pool so requests never queue behind them. */
  private readonly watchAgent: Agent | HttpAgent;
  private readonly https: boolean;

  constructor(private readonly opts: ApiClientOptions) {
    this.https = opts.baseUrl.startsWith('https:');
    this.agent = this.https ? new Agent({ keepAlive: true, maxSockets: 8, ca: opts.caPem }) : new HttpAgent({ keepAlive: true, maxSockets: 8 });
    this.watchAgent = this.https ? new Agent({ keepAlive: false, ca: opts.caPem }) : new HttpAgent({ keepAlive: false });
  }

  /** GET one object; `accept` asks for another view (e.g. PartialObjectMetadata). */
  get<T extends KubeObject>(path: string, accept?: string): Promise<T> {
    return this.call('GET', path, undefined, accept ? { accept } : undefined) as Promise<T>;
  }

  /** LIST a collection; `accept` asks for another view (e.g. PartialObjectMetadataList). */
  list<T extends KubeObject>(path: string, accept?: string): Promise<KubeList<T>> {
    return this.call('GET', path, undefined, accept ? { accept } : undefined) as Promise<KubeList<T>>;
  }

  create<T extends KubeObject>(path: string, body: T): Promise<T> {
    return this.call('POST', path, body) as Promise<T>;
  }

  update<T extends KubeObject>(path: string, body: T): Promise<T> {
    return this.call('PUT', path, body) as Promise<T>;
  }

  /** PATCH with a JSON merge patch (`application/merge-patch+json`). */
  mergePatch<T extends KubeObject>(path: string, patch: unknown): Promise<T> {
    return this.call('PATCH', path, patch, { contentType: 'application/merge-patch+json' }) as Promise<T>;
  }

  /** DELETE, optionally with DeleteOptions (preconditions, propagation). */
  delete(
    path: string,
    options?: { preconditions?: { uid?: string; resourceVersion?: string }; propagationPolicy?: 'Background' | 'Foreground' | 'Orphan' },
  ): Promise<unknown> {
    return this.call('DELETE', path, options && { apiVersion: 'v1', kind: 'DeleteOptions', ...options });
  }

  close(): void {
    this.agent.destroy();
    this.watchAgent.destroy();
  }

  private headers(accept = 'application/json'): Record<string, string> {
    return {
      Authorization: `Bearer ${this.opts.token}`,
      Accept: accept,
      'User-Agent': this.opts.userAgent ?? 'cluster-controller-manager',
    };
  }

  /**
   * Streams a watch (`path` carries `watch=1` and its parameters): calls `onEvent` for each JSON
   * event line; resolves when the server ends the stream or `signal` aborts; rejects with ApiError
   * when the watch is refused (e.g. 410 for a compacted resourceVersion).
   */
  watch(path: string, onEvent: (event: WatchEvent) => void, signal: AbortSignal, accept?: string): Promise<void> {
    const url = new URL(path, this.opts.baseUrl);
    const send = this.https ? request : httpRequest;
    return new Promise((resolve, reject) => {
      if (signal.aborted) return resolve();
      const req = send(url, { method: 'GET', headers: this.headers(accept), agent: this.watchAgent }, (res) => {
        const code = res.statusCode ?? 0;
        if (code >= 400) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => reject(new ApiError(code, parseJson(Buffer.concat(chunks).toString('utf8')) as Partial<Status> | undefined)));
          return;
        }
        let pending = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          pending += chunk;
          // One pass over the chunk's lines (a server flush carries many events): the rest is
          // cut off once, not after every line.
          let start = 0;
          let nl;
          while ((nl = pending.indexOf('\n', start)) >= 0) {
            const line = pending.slice(start, nl).trim();
            start = nl + 1;
            if (!line) continue;
            try {
              onEvent(JSON.parse(line) as WatchEvent);
            } catch (err) {
              req.destroy(err as Error);
              return;
            }
          }
          if (start > 0) pending = pending.slice(start);
        });
        res.on('end', () => resolve());
        res.on('error', (err) => (signal.aborted ? resolve() : reject(err)));
      });
      const onAbort = () => req.destroy();
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('close', () => signal.removeEventListener('abort', onAbort));
      req.on('error', (err) => (signal.aborted ? resolve() : reject(err)));
      req.end();
    });
  }

  /**
   * Sends one request; resolves with the decoded JSON body, rejects with ApiError for >= 400. A
   * kept-alive connection the server closed meanwhile (a replica or worker shutting down closes
   * its idle ones) fails with ECONNRESET before the request was read: that is sent again on a
   * fresh connection, as Node's documentation advises for `reusedSocket`, at most twice.
   */
  async call(method: string, path: string, body?: unknown, media?: RequestMedia): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.callOnce(method, path, body, media);
      } catch (err) {
        if (attempt >= 2 || !(err instanceof StaleConnectionError)) throw err instanceof StaleConnectionError ? err.cause : err;
      }
    }
  }

  private callOnce(method: string, path: string, body?: unknown, media: RequestMedia = {}): Promise<unknown> {
    const url = new URL(path, this.opts.baseUrl);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers = this.headers(media.accept);
    if (payload) {
      headers['Content-Type'] = media.contentType ?? 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    const send = this.https ? request : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(url, { method, headers, agent: this.agent, timeout: 30_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const json = parseJson(Buffer.concat(chunks).toString('utf8'));
          const code = res.statusCode ?? 0;
          if (code >= 400) reject(new ApiError(code, json as Partial<Status> | undefined));
          else resolve(json);
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on('error', (err: NodeJS.ErrnoException) => {
        const stale = req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
        reject(stale ? new StaleConnectionError(err) : err);
      });
      if (payload) req.write(payload);
      req.end();
    });
  }
}
