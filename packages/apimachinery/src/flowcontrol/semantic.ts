/** Drops what the wire format cannot tell from absent (false, 0, '', empty lists and objects, null). */
function semantic(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map(semantic);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      const s = semantic(v);
      if (s !== undefined && s !== null && s !== false && s !== 0 && s !== '') out[k] = s;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return value;
}

/** True when two flowcontrol specs are equal as upstream's semantic DeepEqual sees the wire objects. Pure. */
export const semanticallyEqual = (a: unknown, b: unknown): boolean => JSON.stringify(semantic(a)) === JSON.stringify(semantic(b));
