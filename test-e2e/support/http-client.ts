import { Agent, request } from 'node:https';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

interface Kubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { user: { token: string } }[];
}

export interface JsonReply {
  status: number;
  // Replies are arbitrary JSON; tests narrow them.
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A keep-alive JSON client that authenticates with the admin kubeconfig the server wrote. */
export class KubeconfigClient {
  readonly server: string;
  readonly ca: string;
  readonly token: string;
  private readonly agent: Agent;

  constructor(kubeconfigPath: string, maxSockets = 16) {
    const kc = parse(readFileSync(kubeconfigPath, 'utf8')) as Kubeconfig;
    this.server = kc.clusters[0]!.cluster.server;
    this.ca = Buffer.from(kc.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString('utf8');
    this.token = kc.users[0]!.user.token;
    this.agent = new Agent({ keepAlive: true, maxSockets, ca: this.ca });
  }

  call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<JsonReply> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { Authorization: `Bearer ${this.token}`, Accept: 'application/json' };
    if (payload) {
      headers['Content-Type'] = contentType;
      headers['Content-Length'] = String(payload.length);
    }
    return new Promise((resolve, reject) => {
      const req = request(new URL(path, this.server), { method, headers, agent: this.agent, timeout: 30_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = text;
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on('error', reject);
      if (payload) req.write(payload);
      req.end();
    });
  }

  /** A request with a body of any media type; the reply body is returned as bytes. */
  raw(method: string, path: string, headers: Record<string, string>, body?: Uint8Array): Promise<{ status: number; contentType: string; body: Buffer }> {
    const all: Record<string, string> = { Authorization: `Bearer ${this.token}`, ...headers };
    if (body) all['Content-Length'] = String(body.length);
    return new Promise((resolve, reject) => {
      const req = request(new URL(path, this.server), { method, headers: all, agent: this.agent, timeout: 30_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }));
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on('error', reject);
      if (body) req.write(body);
      req.end();
    });
  }

  /**
   * Opens a watch and calls onEvent for each newline-delimited event until the stream ends or
   * the returned stop() is called.
   */
  watch(path: string, onEvent: (e: { type: string; object: any }) => void): { stop(): void; ended: Promise<void> } { // eslint-disable-line @typescript-eslint/no-explicit-any
    let stopFn = () => {};
    const ended = new Promise<void>((resolve, reject) => {
      const req = request(
        new URL(path, this.server),
        { method: 'GET', headers: { Authorization: `Bearer ${this.token}`, Accept: 'application/json' }, ca: this.ca },
        (res) => {
          let buf = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buf += chunk;
            let nl;
            while ((nl = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, nl);
              buf = buf.slice(nl + 1);
              if (line.trim()) onEvent(JSON.parse(line));
            }
          });
          res.on('end', () => resolve());
          res.on('close', () => resolve());
          res.on('error', () => resolve());
        },
      );
      req.on('error', (e) => (req.destroyed ? resolve() : reject(e)));
      req.end();
      stopFn = () => req.destroy();
    });
    return { stop: () => stopFn(), ended };
  }

  close(): void {
    this.agent.destroy();
  }
}
