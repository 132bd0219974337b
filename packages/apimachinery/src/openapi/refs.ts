import type { JsonObject, JsonValue } from '../meta/types.js';

/**
 * Calls `visit` for every `$ref` string found anywhere inside `value` (depth first, document
 * order), with the JSON path of the object holding it.
 */
export function forEachRef(value: JsonValue | undefined, visit: (ref: string, path: string) => void, path = ''): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => forEachRef(item, visit, `${path}[${i}]`));
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, child] of Object.entries(value)) {
    if (key === '$ref' && typeof child === 'string') visit(child, path);
    else forEachRef(child, visit, path === '' ? key : `${path}.${key}`);
  }
}

/**
 * Returns a deep copy of `value` in which every `$ref` is rewritten by `rewrite`. Plain data only:
 * no cycles expected (JSON documents cannot hold any).
 */
export function mapRefs(value: JsonValue, rewrite: (ref: string) => string): JsonValue {
  if (Array.isArray(value)) return value.map((v) => mapRefs(v, rewrite));
  if (value === null || typeof value !== 'object') return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (child === undefined) continue;
    out[key] = key === '$ref' && typeof child === 'string' ? rewrite(child) : mapRefs(child, rewrite);
  }
  return out;
}

/**
 * The names of the definitions reachable from `roots` (definition names) by following `$ref`s whose
 * target starts with `prefix`, including the roots themselves. Names without a definition are
 * still returned so callers can report them. Order: sorted.
 */
export function definitionClosure(
  roots: Iterable<string>,
  definitions: Readonly<Record<string, JsonObject>>,
  prefix = '#/definitions/',
): string[] {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const name = queue.pop() as string;
    if (seen.has(name)) continue;
    seen.add(name);
    forEachRef(definitions[name], (ref) => {
      if (ref.startsWith(prefix)) queue.push(ref.slice(prefix.length));
    });
  }
  return [...seen].sort();
}

/**
 * Lists every `$ref` inside `document` that does not resolve to a key of the object at
 * `prefix` (a JSON pointer such as `#/definitions/` or `#/components/schemas/`). Empty when all
 * resolve. Refs with another prefix are reported too.
 */
export function danglingRefs(document: JsonObject, prefix: string): string[] {
  const pointer = prefix.replace(/^#\//, '').replace(/\/$/, '').split('/');
  let target: JsonValue | undefined = document;
  for (const part of pointer) target = target !== null && typeof target === 'object' && !Array.isArray(target) ? target[part] : undefined;
  const table = target !== null && typeof target === 'object' && !Array.isArray(target) ? target : {};
  const bad: string[] = [];
  forEachRef(document, (ref, path) => {
    if (!ref.startsWith(prefix) || table[ref.slice(prefix.length)] === undefined) bad.push(`${path}: ${ref}`);
  });
  return bad;
}
