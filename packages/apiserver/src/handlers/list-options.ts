import { newBadRequest } from '@cluster/apimachinery';
import { int64Param, isResourceVersion } from './query-params.js';

/** The read semantics of SPEC 4.4 that a list (or watch start) resolves to. */
export type ReadSemantic =
  | { kind: 'MostRecent' }
  | { kind: 'Any' }
  | { kind: 'NotOlderThan'; resourceVersion: string }
  | { kind: 'Exact'; resourceVersion: string }
  | { kind: 'Continue'; token: string };

export interface ListQuery {
  semantic: ReadSemantic;
  limit: number; // 0 = unlimited
  labelSelector: string;
  fieldSelector: string;
  timeoutSeconds?: number;
  allowWatchBookmarks: boolean;
}

/** A negative limit or timeout means none, as upstream reads it. */
function parseNonNegativeInt(query: URLSearchParams, name: string): number | undefined {
  const n = int64Param(query, name);
  return n === undefined ? undefined : Math.max(n, 0);
}

/**
 * Resolves resourceVersion, resourceVersionMatch, limit and continue to one SPEC 4.4 semantic.
 * Every "Invalid" cell of the table is a 400 BadRequest (SPEC 7: invalid parameter combinations).
 */
export function parseListQuery(query: URLSearchParams, isWatch: boolean): ListQuery {
  const rv = query.get('resourceVersion') ?? '';
  const match = query.get('resourceVersionMatch') ?? '';
  const cont = query.get('continue') ?? '';
  const limit = parseNonNegativeInt(query, 'limit') ?? 0;
  const timeoutSeconds = parseNonNegativeInt(query, 'timeoutSeconds');
  const bookmarks = query.get('allowWatchBookmarks');
  const out: ListQuery = {
    semantic: { kind: 'MostRecent' },
    limit,
    labelSelector: query.get('labelSelector') ?? '',
    fieldSelector: query.get('fieldSelector') ?? '',
    allowWatchBookmarks: bookmarks === 'true' || bookmarks === '1',
  };
  if (timeoutSeconds !== undefined) out.timeoutSeconds = timeoutSeconds;

  if (rv !== '' && !isResourceVersion(rv)) throw newBadRequest(`invalid resource version: ${rv}`);
  if (match !== '' && match !== 'Exact' && match !== 'NotOlderThan') {
    throw newBadRequest(`resourceVersionMatch: Unsupported value: ${JSON.stringify(match)}: supported values: "Exact", "NotOlderThan"`);
  }
  if (isWatch && match !== '') throw newBadRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch');
  if (match !== '' && rv === '') {
    throw newBadRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
  }
  if (match !== '' && cont !== '') {
    throw newBadRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided');
  }
  if (match === 'Exact' && rv === '0') {
    throw newBadRequest('resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  }
  if (cont !== '') {
    if (isWatch) throw newBadRequest('continue: Forbidden: continue is not supported for watch');
    if (rv !== '' && rv !== '0') throw newBadRequest('specifying resource version is not allowed when using continue');
    out.semantic = { kind: 'Continue', token: cont };
    return out;
  }
  if (rv === '') out.semantic = { kind: 'MostRecent' };
  else if (rv === '0') out.semantic = { kind: 'Any' };
  else if (match === 'Exact') out.semantic = { kind: 'Exact', resourceVersion: rv };
  else if (match === 'NotOlderThan') out.semantic = { kind: 'NotOlderThan', resourceVersion: rv };
  // Legacy rule of SPEC 4.4: a paged list at a given version is exact, an unpaged one not older than.
  else if (limit > 0 && !isWatch) out.semantic = { kind: 'Exact', resourceVersion: rv };
  else out.semantic = { kind: 'NotOlderThan', resourceVersion: rv };
  return out;
}
