import { BOOTSTRAP_TOKEN, parseRFC3339 } from '@cluster/apimachinery';
import { bootstrapTokens, type Secret } from './secrets.js';

/**
 * The first `expiration` after `now` among the bootstrap tokens, for controllers that must act
 * when a token expires (remove its signature, delete it). Pure.
 */
export function nextExpiry(secrets: readonly Secret[], apiDomain: string, now: number): number | undefined {
  let next: number | undefined;
  for (const { data } of bootstrapTokens(secrets, apiDomain)) {
    const exp = data[BOOTSTRAP_TOKEN.expirationKey];
    const ms = exp === undefined ? undefined : parseRFC3339(exp);
    if (ms !== undefined && ms > now && (next === undefined || ms < next)) next = ms;
  }
  return next;
}

/** Wait before looking again at `next` (capped so a far expiry is re-checked hourly). */
export function delayUntil(next: number | undefined, now: number): number | undefined {
  return next === undefined ? undefined : Math.min(Math.max(0, next - now) + 10, 60 * 60 * 1000);
}
