// A small keep-alive HTTPS client for the load generator: one Agent with a fixed socket pool,
// bearer-token auth and the cluster CA, and whole-body responses as Buffers.
import { Agent, request } from 'node:https';

/** Per-request timeout: a stuck request counts as an error instead of hanging a workload. */
const REQUEST_TIMEOUT_MS = 60_000;

export class HttpClient {
  /**
   * @param {{host: string, port: number, ca: string, token?: string, maxSockets?: number}} opts
   */
  constructor({ host, port, ca, token, maxSockets = 64 }) {
    this.host = host;
    this.port = port;
    this.agent = new Agent({ keepAlive: true, maxSockets, ca });
    this.headers = { Accept: 'application/json' };
    if (token) this.headers.Authorization = `Bearer ${token}`;
  }

  /**
   * Sends one request and resolves with the status and the whole body; rejects on network errors
   * and timeouts (never on HTTP error statuses).
   * @param {string} method
   * @param {string} path
   * @param {Buffer | string | undefined} body JSON request body
   * @returns {Promise<{status: number, body: Buffer}>}
   */
  request(method, path, body) {
    return new Promise((resolve, reject) => {
      const headers = { ...this.headers };
      if (body !== undefined) {
        headers['Content-Type'] = 'application/json';
        headers['Content-Length'] = Buffer.byteLength(body);
      }
      const req = request({ host: this.host, port: this.port, method, path, headers, agent: this.agent }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`${method} ${path}: timeout`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Like {@link request} but parses a JSON body and throws on a non-2xx status. */
  async json(method, path, body) {
    const res = await this.request(method, path, body === undefined ? undefined : JSON.stringify(body));
    if (res.status < 200 || res.status > 299) {
      throw new Error(`${method} ${path}: HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
    }
    return JSON.parse(res.body.toString('utf8'));
  }

  close() {
    this.agent.destroy();
  }
}

/** Creates a namespace through the API; an existing one is fine. */
export async function ensureNamespace(client, name) {
  const res = await client.request(
    'POST',
    '/api/v1/namespaces',
    JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
  );
  if (res.status !== 201 && res.status !== 409) {
    throw new Error(`create namespace ${name}: HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
  }
}
