import type { JsonValue } from '../meta/types.js';
import { isJsonObject } from '../meta/types.js';

type Step = { field: string } | { index: number } | { all: true } | { filter: { key: string; value: string } };

/**
 * Parses the simple JSON paths of printer columns and scale subresources: `.a.b`, `.a[0]`,
 * `.a[*].b`, `.a['b.c']` and `.a[?(@.type=="Ready")].status`. Undefined for anything else.
 */
export function parseSimpleJsonPath(path: string): Step[] | undefined {
  const steps: Step[] = [];
  let rest = path.trim().replace(/^\{(.*)\}$/, '$1');
  while (rest.length > 0) {
    let m: RegExpExecArray | null;
    if ((m = /^\.([A-Za-z0-9_$-]+)/.exec(rest))) steps.push({ field: m[1]! });
    else if ((m = /^\[(\d+)\]/.exec(rest))) steps.push({ index: Number(m[1]) });
    else if ((m = /^\[\*\]/.exec(rest))) steps.push({ all: true });
    else if ((m = /^\[['"]([^'"]+)['"]\]/.exec(rest))) steps.push({ field: m[1]! });
    else if ((m = /^\[\?\(@\.([A-Za-z0-9_$-]+)\s*==\s*["']([^"']*)["']\)\]/.exec(rest))) steps.push({ filter: { key: m[1]!, value: m[2]! } });
    else return undefined;
    rest = rest.slice(m[0].length);
  }
  return steps;
}

/** Every value the path selects in `root` (several through `[*]` or filters), in order. */
export function evaluateSimpleJsonPath(root: JsonValue, steps: readonly Step[]): JsonValue[] {
  let current: JsonValue[] = [root];
  for (const step of steps) {
    const next: JsonValue[] = [];
    for (const v of current) {
      if ('field' in step) {
        if (isJsonObject(v) && v[step.field] !== undefined) next.push(v[step.field]!);
      } else if ('index' in step) {
        if (Array.isArray(v) && step.index < v.length) next.push(v[step.index]!);
      } else if ('all' in step) {
        if (Array.isArray(v)) next.push(...v);
        else if (isJsonObject(v)) next.push(...Object.values(v).filter((x): x is JsonValue => x !== undefined));
      } else if (Array.isArray(v)) {
        for (const item of v) {
          if (isJsonObject(item) && String(item[step.filter.key]) === step.filter.value) next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}
