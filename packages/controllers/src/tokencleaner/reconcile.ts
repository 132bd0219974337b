import { BOOTSTRAP_TOKEN, parseRFC3339 } from '@cluster/apimachinery';
import { bootstrapTokens, type Secret } from '../bootstraptoken/secrets.js';

/** One deletion the token cleaner makes: the Secret's name, and its UID as a precondition. */
export interface TokenDeletion {
  name: string;
  uid: string | undefined;
}

/**
 * The bootstrap token Secrets whose `expiration` has passed at `now` (upstream tokencleaner).
 * Tokens without an expiration never expire; an unreadable expiration is left alone (upstream
 * logs and skips it; the API rejects such Secrets anyway); Secrets being deleted are skipped.
 * Pure.
 */
export function expiredTokens(secrets: readonly Secret[], apiDomain: string, now: number): TokenDeletion[] {
  const out: TokenDeletion[] = [];
  for (const { secret, data } of bootstrapTokens(secrets, apiDomain)) {
    const exp = data[BOOTSTRAP_TOKEN.expirationKey];
    if (exp === undefined) continue;
    const ms = parseRFC3339(exp);
    if (ms === undefined || ms > now) continue;
    out.push({ name: secret.metadata.name ?? '', uid: secret.metadata.uid });
  }
  return out;
}
