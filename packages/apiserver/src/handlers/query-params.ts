import { newBadRequest } from '@cluster/apimachinery';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * An int64 query parameter as upstream's parameter conversion reads it (Go's strconv.ParseInt:
 * base 10, an optional sign, the int64 range, and no spaces: `limit= 1` is refused): undefined
 * when absent or empty.
 * @throws StatusError 400 naming the parameter, for text that is not an int64.
 */
export function int64Param(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^[+-]?[0-9]+$/.test(raw)) throw newBadRequest(`invalid value for ${name}: ${JSON.stringify(raw)}: must be an integer`);
  const n = BigInt(raw);
  if (n < INT64_MIN || n > INT64_MAX) throw newBadRequest(`invalid value for ${name}: ${JSON.stringify(raw)}: value out of range for int64`);
  return Number(n);
}

/** Integer options of ListOptions and DeleteOptions. */
const INT64_PARAMS = ['limit', 'timeoutSeconds', 'gracePeriodSeconds'] as const;

/**
 * Checks the typed query options whatever the verb, so a malformed option is a 400 naming it
 * even where the verb does not use it (upstream decodes some of these into options it then
 * ignores, and answers others with 500). Bool options need no check: upstream reads anything but
 * absent, `false` and `0` as true.
 * @throws StatusError 400 BadRequest.
 */
export function checkQueryParams(query: URLSearchParams): void {
  for (const name of INT64_PARAMS) int64Param(query, name);
  const rv = query.get('resourceVersion');
  if (rv !== null && rv !== '' && !isResourceVersion(rv)) throw newBadRequest(`invalid resource version: ${rv}`);
}

/**
 * Whether text is a resource version upstream's storage can parse (strconv.ParseUint base 10,
 * 64 bits): digits only, at most 2^64 - 1.
 */
export function isResourceVersion(text: string): boolean {
  return /^[0-9]+$/.test(text) && (text.length < 20 || BigInt(text) <= UINT64_MAX);
}
