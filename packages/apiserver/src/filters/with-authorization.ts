import type { Middleware } from 'koa';
import { newForbidden, StatusError } from '@cluster/apimachinery';
import type { Authorizer } from '../authz/authorizer.js';
import type { RequestState } from './state.js';

/**
 * Asks the authorizer (the --authorization-mode chain as one); anything but allow is 403
 * with upstream's message (`User "x" cannot list resource "configmaps" in API group "" ...`).
 */
export function withAuthorization(authorizer: Authorizer): Middleware<RequestState> {
  return async (ctx, next) => {
    const user = ctx.state.user!;
    const info = ctx.state.requestInfo;
    const d = await authorizer.authorize({ user, info });
    if (d.decision === 'allow') return next();
    throw forbidden(user.username, info, d.reason);
  };
}

function forbidden(username: string, info: RequestState['requestInfo'], reason: string): StatusError {
  if (!info.isResourceRequest) {
    const e = newForbidden({ group: '', resource: '' }, '', '');
    e.status.message = `forbidden: User "${username}" cannot ${info.verb} path "${info.path}"${reason ? `: ${reason}` : ''}`;
    // Upstream's NewForbidden with an empty GroupResource still sends `"details":{}`.
    e.status.details = {};
    return e;
  }
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  let text = `User "${username}" cannot ${info.verb} resource "${resource}" in API group "${info.apiGroup}"`;
  text += info.namespace ? ` in the namespace "${info.namespace}"` : ' at the cluster scope';
  if (reason) text += `: ${reason}`;
  return newForbidden({ group: info.apiGroup, resource: info.resource }, info.name, text);
}
