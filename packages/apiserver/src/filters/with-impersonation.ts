import type { Middleware } from 'koa';
import { newBadRequest } from '@cluster/apimachinery';
import type { Authorizer } from '../authz/authorizer.js';
import { checkedRequestInfo } from '../authz/authorizer.js';
import { authorizeOrForbid } from '../authz/forbidden.js';
import { impersonatedUser, impersonationRequests, parseImpersonationHeaders } from '../authn/impersonation.js';
import type { RequestState } from './state.js';

/**
 * SPEC 5.5, in its order: the caller is authenticated already; each thing it asks to act as
 * (user or service account, groups, extras, uid) needs `impersonate` on it, else 403 with
 * upstream's message; then the request runs as the impersonated identity, and the headers are
 * dropped so nothing downstream acts on them again.
 */
export function withImpersonation(authorizer: Authorizer, apiDomain: string): Middleware<RequestState> {
  const authenticationGroup = `authentication.${apiDomain}`;
  // Not an async function: a request without Impersonate-* headers (nearly all) goes on at once,
  // without building the header table or a promise of its own.
  return (ctx, next) => (hasImpersonationHeader(ctx.req.rawHeaders) ? impersonate(ctx, next) : next());

  async function impersonate(ctx: Parameters<Middleware<RequestState>>[0], next: () => Promise<unknown>): Promise<unknown> {
    const asked = parseImpersonationHeaders(headerLines(ctx.req.rawHeaders));
    if (!asked) return next();
    let requests;
    try {
      requests = impersonationRequests(asked, authenticationGroup);
    } catch (err) {
      throw newBadRequest((err as Error).message);
    }
    const caller = ctx.state.user!;
    for (const r of requests) {
      const info = checkedRequestInfo({ verb: 'impersonate', ...r });
      await authorizeOrForbid(authorizer, { user: caller, info });
    }
    ctx.state.user = impersonatedUser(asked);
    if (ctx.state.audit) ctx.state.audit.impersonatedUser = ctx.state.user;
    for (const name of Object.keys(ctx.req.headers)) {
      if (name.startsWith('impersonate-')) delete ctx.req.headers[name];
    }
    return next();
  }
}

const IMPERSONATE_PREFIX = 'impersonate-';

/** Whether some header line's name starts with `Impersonate-` (any case): every header this step reads does. */
function hasImpersonationHeader(raw: readonly string[]): boolean {
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length >= IMPERSONATE_PREFIX.length && (name.charCodeAt(0) | 0x20) === 0x69 && name.slice(0, IMPERSONATE_PREFIX.length).toLowerCase() === IMPERSONATE_PREFIX) return true;
  }
  return false;
}

/**
 * Header values per lower-cased name, one entry per header line (repeated Impersonate-Group lines
 * stay apart, commas and all). Built from rawHeaders because HTTP/2 requests have no
 * `headersDistinct`.
 */
function headerLines(raw: readonly string[]): Record<string, string[]> {
  const lines: Record<string, string[]> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) (lines[raw[i]!.toLowerCase()] ??= []).push(raw[i + 1]!);
  return lines;
}
