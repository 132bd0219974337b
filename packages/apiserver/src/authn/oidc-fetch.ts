import { get } from 'node:https';

/** Fetches a JSON document; rejects on a transport error, a non-200 answer or a body that is not JSON. */
export type JsonGetter = (url: string) => Promise<unknown>;

export interface HttpsJsonGetterOptions {
  /** `--oidc-ca-file` contents: the only roots trusted; absent, the host's root CAs. */
  ca?: string;
  /** Per request, connect to last byte; default 10 s. */
  timeoutMs?: number;
  /** Largest body accepted; default 1 MiB (discovery documents and key sets are a few KiB). */
  maxBytes?: number;
}

/**
 * A {@link JsonGetter} over HTTPS only (SPEC 5: the provider must use TLS): a URL of another
 * scheme is refused without a request, the server certificate must chain to `ca` (or the host
 * roots) and name the host. No redirects are followed, no cookies or credentials are sent.
 */
export function httpsJsonGetter(opts: HttpsJsonGetterOptions = {}): JsonGetter {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const maxBytes = opts.maxBytes ?? 1 << 20;
  return (url) =>
    new Promise((resolve, reject) => {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        reject(new Error(`invalid URL ${JSON.stringify(url)}`));
        return;
      }
      if (target.protocol !== 'https:') {
        reject(new Error(`refusing ${JSON.stringify(url)}: only https is allowed`));
        return;
      }
      const req = get(target, { ca: opts.ca, headers: { Accept: 'application/json' }, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > maxBytes) req.destroy(new Error(`${url}: response larger than ${maxBytes} bytes`));
          else chunks.push(c);
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) {
            reject(new Error(`${url}: ${res.statusCode} ${res.statusMessage ?? ''}: ${text.slice(0, 200)}`.trim()));
            return;
          }
          try {
            resolve(JSON.parse(text) as unknown);
          } catch {
            reject(new Error(`${url}: the response is not JSON`));
          }
        });
        res.on('error', reject);
      });
      const deadline = setTimeout(() => req.destroy(new Error(`${url}: no answer within ${timeoutMs} ms`)), timeoutMs);
      req.on('close', () => clearTimeout(deadline));
      req.on('timeout', () => req.destroy(new Error(`${url}: idle for ${timeoutMs} ms`)));
      req.on('error', reject);
    });
}
