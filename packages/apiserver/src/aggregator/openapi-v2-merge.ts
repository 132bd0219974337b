import { isDeepStrictEqual } from 'node:util';
import { isJsonObject, type JsonObject, type JsonValue } from '@cluster/apimachinery';

/** One extension's /openapi/v2 document, for the APIService `group`/`version` it was fetched for. */
export interface ExtensionOpenApiV2 {
  group: string;
  version: string;
  doc: JsonObject;
}

const DEFINITION_REF = '#/definitions/';
const PARAMETER_REF = '#/parameters/';

/** The two shared sections a Swagger 2.0 document refers into, and the ref prefix of each. */
const SECTIONS = [
  ['definitions', DEFINITION_REF],
  ['parameters', PARAMETER_REF],
] as const;
type Section = (typeof SECTIONS)[number][0];

/** Whether `path` is under the group version an APIService routes (what the proxy sends there). */
function routedBy(path: string, group: string, version: string): boolean {
  const prefix = `/apis/${group}/${version}`;
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** Every `$ref` string in `value`, depth first. */
function collectRefs(value: JsonValue | undefined, out: string[]): void {
  if (Array.isArray(value)) for (const v of value) collectRefs(v, out);
  else if (isJsonObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else collectRefs(v, out);
    }
  }
}

/** A deep copy of `value` with each `$ref` found in `renames` replaced. */
function rewriteRefs(value: JsonValue, renames: ReadonlyMap<string, string>): JsonValue {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, renames));
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    out[k] = k === '$ref' && typeof v === 'string' ? (renames.get(v) ?? v) : rewriteRefs(v, renames);
  }
  return out;
}

function section(doc: JsonObject, name: Section | 'paths'): JsonObject {
  const s = doc[name];
  return isJsonObject(s) ? s : {};
}

/**
 * The /openapi/v2 document with the extensions' documents merged in, as upstream's aggregator does
 * (MergeSpecsIgnorePathConflict, renaming definitions and parameters): extensions in the order
 * given (by priority); from each only the paths of its APIService's group version
 * (`/apis/<group>/<version>...`) that no earlier document has (a path served here, or by an
 * extension before it, stays as it was); with them the definitions and shared parameters those
 * paths reach. A definition or parameter already present under the same name is shared when it is
 * deep-equal, else the extension's is renamed `<name>_v2` (`_v3`, ...) and its refs follow.
 * Malformed parts of an extension's document are skipped. Inputs are not mutated. Pure.
 */
export function mergeOpenApiV2(local: JsonObject, extensions: readonly ExtensionOpenApiV2[]): JsonObject {
  if (extensions.length === 0) return local;
  const paths: JsonObject = { ...section(local, 'paths') };
  const merged: Record<Section, JsonObject> = { definitions: { ...section(local, 'definitions') }, parameters: { ...section(local, 'parameters') } };
  for (const ext of extensions) {
    const extPaths = isJsonObject(ext.doc['paths']) ? ext.doc['paths'] : {};
    const kept = Object.keys(extPaths).filter((p) => routedBy(p, ext.group, ext.version) && !(p in paths) && isJsonObject(extPaths[p]));
    if (kept.length === 0) continue;
    const source: Record<Section, JsonObject> = { definitions: section(ext.doc, 'definitions'), parameters: section(ext.doc, 'parameters') };
    // What the kept paths reach, transitively (a definition's properties, a parameter's schema).
    const used: Record<Section, Set<string>> = { definitions: new Set(), parameters: new Set() };
    const pending: string[] = [];
    for (const p of kept) collectRefs(extPaths[p], pending);
    while (pending.length > 0) {
      const ref = pending.pop()!;
      for (const [name, prefix] of SECTIONS) {
        if (!ref.startsWith(prefix)) continue;
        const key = ref.slice(prefix.length);
        if (used[name].has(key) || source[name][key] === undefined) continue;
        used[name].add(key);
        collectRefs(source[name][key], pending);
      }
    }
    // Names taken by something else get the next free `_vN`.
    const renames = new Map<string, string>();
    for (const [name, prefix] of SECTIONS) {
      for (const key of used[name]) {
        const existing = merged[name][key];
        if (existing === undefined || isDeepStrictEqual(existing, source[name][key])) continue;
        let i = 2;
        while (merged[name][`${key}_v${i}`] !== undefined || source[name][`${key}_v${i}`] !== undefined) i++;
        renames.set(`${prefix}${key}`, `${prefix}${key}_v${i}`);
      }
    }
    // Everything of this extension is prepared before any of it is added.
    const added: Array<[JsonObject, string, JsonValue]> = [];
    for (const [name, prefix] of SECTIONS) {
      for (const key of used[name]) {
        const target = (renames.get(`${prefix}${key}`) ?? `${prefix}${key}`).slice(prefix.length);
        if (merged[name][target] === undefined) added.push([merged[name], target, rewriteRefs(source[name][key]!, renames)]);
      }
    }
    for (const p of kept) added.push([paths, p, rewriteRefs(extPaths[p]!, renames)]);
    for (const [into, key, value] of added) into[key] = value;
  }
  const out: JsonObject = { ...local, paths, definitions: sortedKeys(merged.definitions) };
  if (Object.keys(merged.parameters).length > 0) out['parameters'] = sortedKeys(merged.parameters);
  return out;
}

function sortedKeys(o: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k];
  return out;
}
