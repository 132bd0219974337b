import { timingSafeEqual } from 'node:crypto';
import {
  BOOTSTRAP_TOKEN,
  bootstrapTokenExpired,
  bootstrapTokenGroups,
  decodeData,
  parseBootstrapToken,
  secretTypes,
} from '@cluster/apimachinery';
import type { TokenAuthenticator, TokenAuthResult } from './authenticator.js';
import type { ObjectLookup } from './service-account.js';
import { agnosticAudiences } from './audiences.js';

/** The namespace bootstrap token Secrets live in (SPEC 2.9). */
export const BOOTSTRAP_TOKEN_NAMESPACE = 'cluster-system';

export interface BootstrapTokenAuthenticatorOptions {
  /** Reads Secrets (namespace, name). */
  secrets: ObjectLookup;
  apiDomain: string;
  /** --api-audiences: a TokenReview may ask only about these (the method is audience-agnostic). */
  apiAudiences?: readonly string[];
  /** Clock in ms; Date.now by default. */
  now?: () => number;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Bootstrap tokens (--enable-bootstrap-token-auth, SPEC 5): `<id>.<secret>` names the Secret
 * `bootstrap-token-<id>` in cluster-system. As upstream, a token that does not check out (no such
 * Secret, wrong type or secret, expired, not for authentication, being deleted, bad extra groups)
 * is not accepted: undefined, so the chain answers 401 unless a later method knows the token.
 */
export class BootstrapTokenAuthenticator implements TokenAuthenticator {
  constructor(private readonly opts: BootstrapTokenAuthenticatorOptions) {}

  async authenticateToken(token: string, audiences?: readonly string[]): Promise<TokenAuthResult | undefined> {
    const parsed = parseBootstrapToken(token);
    if (!parsed) return undefined;
    const auds = agnosticAudiences(this.opts.apiAudiences ?? [], audiences);
    if (!auds) return undefined;
    const T = BOOTSTRAP_TOKEN;
    const secret = await this.opts.secrets(BOOTSTRAP_TOKEN_NAMESPACE, `${T.secretPrefix}${parsed.id}`);
    if (!secret || secret.metadata.deletionTimestamp) return undefined;
    const s = secret as typeof secret & { type?: string; data?: Record<string, string> };
    if (s.type !== secretTypes(this.opts.apiDomain).bootstrapToken || !s.data) return undefined;
    const data = decodeData(s.data);
    if (!sameSecret(data[T.secretKey] ?? '', parsed.secret)) return undefined;
    if (data[T.idKey] !== parsed.id) return undefined;
    if (bootstrapTokenExpired(data, this.opts.now?.() ?? Date.now())) return undefined;
    if (data[T.usageAuthenticationKey] !== 'true') return undefined;
    const groups = bootstrapTokenGroups(data);
    if (!groups) return undefined;
    return { user: { username: `${T.userPrefix}${parsed.id}`, groups }, ...auds };
  }
}
