import { parseFieldSelector } from '@cluster/apimachinery';

/**
 * What a request path and method mean to the API, after upstream's RequestInfoFactory. Pure: no I/O.
 */
export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  /** get, list, watch, create, update, patch, delete, deletecollection; or the lower-cased method. */
  verb: string;
  apiPrefix: string; // 'api' | 'apis' | ''
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  parts: string[];
}

/** A path segment as upstream routes it: percent-decoded (`system%3Anodes` names `system:nodes`). */
function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const specialVerbs = new Set(['proxy', 'watch']);
const namespaceSubresources = new Set(['status', 'finalize']);

/** The name a field selector requires exactly (`metadata.name=x` among ANDed terms), if it is a valid path segment. */
function nameFromFieldSelector(selector: string | null): string {
  if (!selector) return '';
  let name: string | undefined;
  try {
    name = parseFieldSelector(selector).exactMatch('metadata.name');
  } catch {
    return ''; // a selector that does not parse names nothing (the list itself then answers 400)
  }
  if (!name || name === '.' || name === '..' || name.includes('/') || name.includes('%')) return '';
  return name;
}

/**
 * Parses `/api/v1/namespaces/ns/configmaps/name?watch=1` style requests. Paths that are not under
 * /api or /apis, or too short to name a resource, are non-resource requests with verb = method.
 */
export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const lower = method.toLowerCase();
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: lower,
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  // The path without its leading and trailing slashes, split; segments decoded only when some
  // segment has an escape (regular expressions and a map per request were a measurable share of a
  // cached GET).
  let from = 0;
  while (path.charCodeAt(from) === 0x2f) from++;
  let to = path.length;
  while (to > from && path.charCodeAt(to - 1) === 0x2f) to--;
  const raw = path.slice(from, to).split('/');
  const segments = path.includes('%') ? raw.map(decodeSegment) : raw;
  const prefix = segments[0];
  if (prefix !== 'api' && prefix !== 'apis') return info;
  let rest = segments.slice(1);
  info.apiPrefix = prefix;
  if (prefix === 'apis') {
    if (rest.length < 1) return info;
    info.apiGroup = rest[0]!;
    rest = rest.slice(1);
  }
  if (rest.length < 1) return info;
  info.apiVersion = rest[0]!;
  rest = rest.slice(1);
  if (rest.length < 1) return info;
  info.isResourceRequest = true;

  // Upstream's deprecated /watch/ and /proxy/ path prefixes.
  if (specialVerbs.has(rest[0]!)) {
    if (rest.length < 2) {
      info.isResourceRequest = false;
      return info;
    }
    info.verb = rest[0]!;
    rest = rest.slice(1);
  } else {
    switch (lower) {
      case 'post':
        info.verb = 'create';
        break;
      case 'get':
      case 'head':
        info.verb = 'get';
        break;
      case 'put':
        info.verb = 'update';
        break;
      case 'patch':
        info.verb = 'patch';
        break;
      case 'delete':
        info.verb = 'delete';
        break;
      default:
        info.verb = '';
    }
  }

  // /namespaces/{ns}/{resource}/... is namespaced; /namespaces/{name}[/status|/finalize] is the
  // namespace object itself, whose namespace attribute is its own name (as upstream, for RBAC).
  if (rest[0] === 'namespaces' && rest.length > 1) {
    info.namespace = rest[1]!;
    if (rest.length > 2 && !namespaceSubresources.has(rest[2]!)) rest = rest.slice(2);
  }
  info.parts = rest;
  if (rest.length >= 3) info.subresource = rest[2]!;
  if (rest.length >= 2) info.name = rest[1]!;
  if (rest.length >= 1) info.resource = rest[0]!;

  if (info.name === '' && info.verb === 'get') {
    const watch = query.get('watch');
    info.verb = watch !== null && watch !== 'false' && watch !== '0' ? 'watch' : 'list';
    // As upstream: a list or watch selecting one object by `metadata.name=` names it, so a rule
    // with resourceNames (or the Node authorizer) can allow watching that object alone.
    info.name = nameFromFieldSelector(query.get('fieldSelector'));
  } else if (info.name === '' && info.verb === 'delete') {
    info.verb = 'deletecollection';
  }
  return info;
}
