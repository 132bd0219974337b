import { newForbidden, StatusError } from '@cluster/apimachinery';
import type { RequestInfo } from '../request/request-info.js';
import type { AuthorizationAttributes, Authorizer } from './authorizer.js';

/**
 * Upstream's 403 for a denied request: `configmaps "x" is forbidden: User "u" cannot get resource
 * "configmaps" in API group "" in the namespace "ns"` (non-resource paths: `forbidden: User "u"
 * cannot get path "/x"`). The authorizer's reason, if any, follows after a colon.
 */
export function forbidden(username: string, info: RequestInfo, reason: string): StatusError {
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

/**
 * Authorizes `attrs` and throws the upstream 403 unless allowed: for checks made inside a request
 * (creating through PUT or apply needs `create` as well, SPEC 5.7).
 */
export async function authorizeOrForbid(authorizer: Authorizer, attrs: AuthorizationAttributes): Promise<void> {
  const d = await authorizer.authorize(attrs);
  if (d.decision !== 'allow') throw forbidden(attrs.user.username, attrs.info, d.reason);
}
