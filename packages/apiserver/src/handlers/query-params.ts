import { newBadRequest } from '@cluster/apimachinery';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * An int64 query parameter as upstream's parameter conversion reads it (surrounding spaces
 * trimmed, base 10, the int64 range): undefined when absent or empty.
 * @throws StatusError 400 naming the parameter, for text that is not an int64.
 */
export function int64Param(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  const text = raw.trim();
  if (text === '') return undefined;
  if (!/^[+-]?[0-9]+$/.test(text)) throw newBadRequest(`invalid value for ${name}: ${JSON.stringify(raw)}: must be an integer`);
  const n = BigInt(text);
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
  if (rv !== null && rv !== '' && !/^[0-9]+$/.test(rv)) throw newBadRequest(`invalid resource version: ${rv}`);
}
