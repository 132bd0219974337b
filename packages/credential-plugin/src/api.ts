import { request } from 'node:https';

export interface Reply {
  status: number;
  // API answers are arbitrary JSON; callers narrow them.
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface Credentials {
  /** The pinned CA; absent only for the one unverified read of cluster-info. */
  caPem?: string;
  token?: string;
  certPem?: string;
  keyPem?: string;
}

/** One JSON call to the API server; a connection failure says which server could not be reached. */
export function call(server: string, method: string, path: string, creds: Credentials, body?: unknown, timeoutMs = 15_000): Promise<Reply> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': 'cluster-credential' };
  if (creds.token) headers['Authorization'] = `Bearer ${creds.token}`;
  if (payload) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
  // Only cluster-info is read before a CA is pinned; its content is trusted only once its
  // signature verifies with the token.
  const tls = creds.caPem ? { ca: creds.caPem } : { rejectUnauthorized: false };
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server), { method, headers, timeout: timeoutMs, cert: creds.certPem, key: creds.keyPem, agent: false, ...tls }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${server} within ${timeoutMs / 1000} s`)));
    req.on('error', (e: NodeJS.ErrnoException) => reject(new Error(`cannot reach ${server}: ${e.code ?? e.message}`)));
    if (payload) req.write(payload);
    req.end();
  });
}
