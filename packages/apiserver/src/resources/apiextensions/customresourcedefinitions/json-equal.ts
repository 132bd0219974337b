/** JSON text with object keys sorted, so that field order does not count. */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/**
 * Whether two JSON values are equal, field order aside (as Go's semantic equality of decoded
 * objects). Compares text, so objects from another realm (a test's VM) compare as plain data.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return sortedJson(a) === sortedJson(b);
}
