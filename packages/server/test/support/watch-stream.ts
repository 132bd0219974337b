import { request as httpsRequest, type Agent } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { TestServer } from './test-server.js';

/** One decoded watch event line: `{type, object}`. */
export interface WatchEventJson {
  type: string;
  // Event objects are arbitrary JSON (ConfigMap, Status, Table...); assertions narrow them.
  object: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Options of {@link openWatch}. */
export interface OpenWatchOptions {
  headers?: Record<string, string>;
  /** An https.Agent to use; by default every watch gets its own connection (agent: false). */
  agent?: Agent | false;
  /** Bound on the time to the response headers. Default 15 s. */
  headersTimeoutMs?: number;
}

/**
 * A streaming watch response. Events are parsed from newline-delimited JSON as they arrive and
 * queued; {@link nextEvent} takes them in order. A non-200 answer is read whole into `text`/`json`.
 */
export interface WatchStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** For a non-200 answer: its body. */
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** All events received so far (also those already taken by nextEvent). */
  readonly received: WatchEventJson[];
  /** Whether the server ended the response. */
  readonly ended: boolean;
  /** The next event; rejects when none arrives within `timeoutMs` or the stream ends first. */
  nextEvent(timeoutMs?: number): Promise<WatchEventJson>;
  /** The next event matching `pred` (others are skipped); rejects on timeout or end. */
  nextMatching(pred: (e: WatchEventJson) => boolean, timeoutMs?: number): Promise<WatchEventJson>;
  /** The next `n` events; rejects on timeout or end. */
  take(n: number, timeoutMs?: number): Promise<WatchEventJson[]>;
  /** Events that arrive within `ms` (waits the whole time; for asserting that nothing comes). */
  drain(ms: number): Promise<WatchEventJson[]>;
  /** Resolves when the server ends the response, rejects after `timeoutMs`. */
  waitEnd(timeoutMs?: number): Promise<void>;
  /** Destroys the request and its socket. Harmless to repeat. */
  close(): void;
}

/** Starts `GET path` (which should carry watch=true) as the admin and resolves once headers arrive. */
export function openWatch(ts: TestServer, path: string, opts: OpenWatchOptions = {}): Promise<WatchStream> {
  const url = new URL(path, ts.server.url);
  const headers: Record<string, string> = { Authorization: `Bearer ${ts.server.adminToken}`, ...opts.headers };
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: 'GET', headers, ca: ts.server.caPem, agent: opts.agent ?? false });
    const headerTimer = setTimeout(() => {
      req.destroy();
      reject(new Error(`watch ${path}: no response headers within ${opts.headersTimeoutMs ?? 15_000} ms`));
    }, opts.headersTimeoutMs ?? 15_000);
    req.on('error', (err) => {
      clearTimeout(headerTimer);
      reject(err);
    });
    req.on('response', (res: IncomingMessage) => {
      clearTimeout(headerTimer);
      const stream = new Stream(req, res);
      if (res.statusCode === 200) {
        resolve(stream);
        return;
      }
      // Errors before the stream starts are ordinary JSON Status bodies.
      stream.waitEnd(20_000).then(
        () => resolve(stream),
        (e: unknown) => reject(e),
      );
    });
    req.end();
  });
}

type Waiter = () => void;

class Stream implements WatchStream {
  status: number;
  headers: IncomingHttpHeaders;
  text = '';
  json: any = undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly received: WatchEventJson[] = [];
  ended = false;
  private pos = 0;
  private buf = '';
  private waiters = new Set<Waiter>();
  private parseError: Error | undefined;

  constructor(
    private readonly req: ReturnType<typeof httpsRequest>,
    res: IncomingMessage,
  ) {
    this.status = res.statusCode ?? 0;
    this.headers = res.headers;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      if (this.status !== 200) {
        this.text += chunk;
        return;
      }
      this.buf += chunk;
      let nl: number;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, nl).trim();
        this.buf = this.buf.slice(nl + 1);
        if (!line) continue;
        try {
          this.received.push(JSON.parse(line) as WatchEventJson);
        } catch (e) {
          this.parseError = new Error(`watch line is not JSON: ${line.slice(0, 200)} (${(e as Error).message})`);
        }
      }
      this.notify();
    });
    const finish = () => {
      if (this.ended) return;
      this.ended = true;
      if (this.status !== 200) {
        try {
          this.json = JSON.parse(this.text);
        } catch {
          this.json = undefined;
        }
      }
      this.notify();
    };
    res.on('end', finish);
    res.on('close', finish);
    res.on('error', finish);
  }

  nextEvent(timeoutMs = 5_000): Promise<WatchEventJson> {
    return this.nextMatching(() => true, timeoutMs);
  }

  async nextMatching(pred: (e: WatchEventJson) => boolean, timeoutMs = 5_000): Promise<WatchEventJson> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.parseError) throw this.parseError;
      while (this.pos < this.received.length) {
        const ev = this.received[this.pos++]!;
        if (pred(ev)) return ev;
      }
      if (this.ended) throw new Error(`watch ended before the expected event; got ${JSON.stringify(this.received.map((e) => e.type))}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no expected watch event within ${timeoutMs} ms; got ${JSON.stringify(this.received.map((e) => e.type))}`);
      await this.wait(left);
    }
  }

  async take(n: number, timeoutMs = 5_000): Promise<WatchEventJson[]> {
    const deadline = Date.now() + timeoutMs;
    const out: WatchEventJson[] = [];
    while (out.length < n) out.push(await this.nextEvent(Math.max(1, deadline - Date.now())));
    return out;
  }

  async drain(ms: number): Promise<WatchEventJson[]> {
    await new Promise((r) => setTimeout(r, ms));
    const out = this.received.slice(this.pos);
    this.pos = this.received.length;
    return out;
  }

  async waitEnd(timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`watch did not end within ${timeoutMs} ms`);
      await this.wait(left);
    }
  }

  close(): void {
    this.req.destroy();
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done: Waiter = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }
}
