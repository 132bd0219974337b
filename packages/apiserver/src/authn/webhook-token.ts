import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { TokenAuthResult, TokenAuthenticator } from './authenticator.js';
import type { UserInfo } from './user.js';
import type { WebhookConfig } from './webhook-config.js';

export interface WebhookTokenOptions {
  config: WebhookConfig;
  /** --authentication-token-webhook-version: the TokenReview version sent and expected. */
  version: 'v1' | 'v1beta1';
  apiDomain: string;
  /** --api-audiences: what a token is checked for when a caller asks for no audiences. */
  apiAudiences: readonly string[];
  /** --authentication-token-webhook-cache-ttl for accepted tokens (default 2 m). */
  cacheTtlMs?: number;
  /** Denials are kept at most this long (default 10 s), so a token just issued works soon. */
  denialTtlMs?: number;
  /** One call's bound (default 10 s); a slow webhook is a failed call. */
  timeoutMs?: number;
  now?: () => number;
  onError?: (err: Error) => void;
}

export interface Review {
  status?: { authenticated?: boolean; user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> }; audiences?: string[]; error?: string };
}

export type Verdict = { result: TokenAuthResult } | { denied: true };

/**
 * What a webhook's answer means (upstream's webhook token authenticator): a user, with the
 * `wanted` audiences it is valid for, or a denial. An answer that names no audiences is valid for
 * the API server's own (`apiAudiences`) only, so a token asked about for other audiences is then
 * denied. `asked`: the audiences came from the caller (a TokenReview), not --api-audiences. Pure.
 */
export function reviewVerdict(review: Review, wanted: readonly string[], asked: boolean, apiAudiences: readonly string[]): Verdict {
  const s = review.status;
  if (!s?.authenticated || !s.user?.username) return { denied: true };
  const got = s.audiences && s.audiences.length > 0 ? s.audiences : apiAudiences;
  const valid = wanted.filter((a) => got.includes(a));
  if (wanted.length > 0 && valid.length === 0) return { denied: true };
  const user: UserInfo = { username: s.user.username, groups: [...(s.user.groups ?? [])] };
  if (s.user.uid) user.uid = s.user.uid;
  if (s.user.extra && Object.keys(s.user.extra).length > 0) user.extra = s.user.extra;
  return { result: asked ? { user, audiences: valid } : { user } };
}

/**
 * Webhook token authentication (SPEC 5.2): the token goes to the configured service as a
 * TokenReview of the configured version; an `authenticated` answer is the user (with audiences
 * checked as SPEC 5.2 rule 4); answers are cached by token and audiences, denials shorter. A
 * webhook that is down, slow, or answers garbage means "not authenticated by this method" (the
 * other methods may still accept the token), never a server error; such failures are not cached.
 */
export class WebhookTokenAuthenticator implements TokenAuthenticator {
  private readonly cache = new Map<string, { verdict: Verdict; until: number }>();

  constructor(private readonly o: WebhookTokenOptions) {}

  async authenticateToken(token: string, audiences?: readonly string[]): Promise<TokenAuthResult | undefined> {
    const asked = audiences && audiences.length > 0 ? audiences : undefined;
    const wanted = asked ?? this.o.apiAudiences;
    const now = (this.o.now ?? Date.now)();
    const key = createHash('sha256').update(token).update('\u0000').update(wanted.join('\u0000')).digest('hex');
    const hit = this.cache.get(key);
    if (hit && hit.until > now) return 'result' in hit.verdict ? hit.verdict.result : undefined;
    let review: Review;
    try {
      review = await this.call(token, wanted);
    } catch (err) {
      this.o.onError?.(err as Error);
      return undefined;
    }
    const verdict = this.judge(review, wanted, !!asked);
    if (this.cache.size > 10_000) this.cache.clear();
    const ttl = 'result' in verdict ? (this.o.cacheTtlMs ?? 120_000) : Math.min(this.o.denialTtlMs ?? 10_000, this.o.cacheTtlMs ?? 120_000);
    if (ttl > 0) this.cache.set(key, { verdict, until: now + ttl });
    return 'result' in verdict ? verdict.result : undefined;
  }

  private judge(review: Review, wanted: readonly string[], asked: boolean): Verdict {
    return reviewVerdict(review, wanted, asked, this.o.apiAudiences);
  }

  private call(token: string, audiences: readonly string[]): Promise<Review> {
    const c = this.o.config;
    const body = Buffer.from(
      JSON.stringify({
        apiVersion: `authentication.${this.o.apiDomain}/${this.o.version}`,
        kind: 'TokenReview',
        metadata: { creationTimestamp: null },
        spec: audiences.length > 0 ? { token, audiences } : { token },
        status: {},
      }),
    );
    const url = new URL(c.server);
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': String(body.length) };
    if (c.token) headers['Authorization'] = `Bearer ${c.token}`;
    const tls = url.protocol === 'https:' ? { ca: c.caPem, cert: c.clientCertPem, key: c.clientKeyPem, rejectUnauthorized: !c.insecureSkipTlsVerify } : {};
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(url, { method: 'POST', headers, timeout: this.o.timeoutMs ?? 10_000, ...tls }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > 1024 * 1024) req.destroy(new Error('token webhook answer over 1 MiB'));
          else chunks.push(chunk);
        });
        res.on('end', () => {
          if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) return reject(new Error(`token webhook answered ${res.statusCode}`));
          try {
            const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
            if (typeof review !== 'object' || review === null) throw new Error('not an object');
            resolve(review);
          } catch (e) {
            reject(new Error(`token webhook answered something that is not a TokenReview: ${(e as Error).message}`));
          }
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('token webhook timed out')));
      req.on('error', reject);
      req.end(body);
    });
  }
}
