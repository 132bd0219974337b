import type { KubeObject } from '@cluster/apimachinery';
import { withResourceVersionAtEnd } from './value-codec.js';

interface Written {
  readonly value: Buffer;
  readonly revision: string;
  /** The JSON once made (undefined before; null when the bytes did not have the expected shape). */
  json?: Buffer | null;
}

/**
 * The bytes the objects the last writes returned were stored as, by the returned object (see
 * rememberWritten). Bounded, oldest first out: the answer to a write and this worker's watch event
 * of it come within a few writes, and an object kept in a watch cache must not keep its written
 * bytes alive with it.
 */
const writtenOf = new Map<object, Written>();
const MAX_REMEMBERED = 512;

/**
 * Remembers that `stored` (the object a write returns: `object` with `revision` as resourceVersion,
 * put last in its metadata) was written as `value` (encodeValue of `object`), when its JSON can be
 * had from those bytes: encodeValue is JSON.stringify with apiVersion, kind and metadata first and
 * no resourceVersion, so for an object in that order whose metadata had no resourceVersion, `value`
 * with the resourceVersion spliced in last is byte for byte JSON.stringify(stored). The answer to
 * the write and the watch cache's copy of the version then need not serialize it again. Objects
 * returned by a write are never modified afterwards (the watch cache holds them too, see
 * RecentWrites), so the bytes stay its JSON.
 */
export function rememberWritten(stored: KubeObject, object: KubeObject, value: Buffer, revision: string): void {
  if (!inStoredOrder(object) || Object.hasOwn(object.metadata, 'resourceVersion')) return;
  writtenOf.set(stored, { value, revision });
  if (writtenOf.size > MAX_REMEMBERED) writtenOf.delete(writtenOf.keys().next().value!);
}

/**
 * JSON.stringify(obj) as bytes, when `obj` is an object one of the last writes returned (see
 * rememberWritten); undefined for any other. The same Buffer for every caller: never to be modified.
 */
export function writtenJsonOf(obj: object): Buffer | undefined {
  const w = writtenOf.get(obj);
  if (w === undefined) return undefined;
  if (w.json === undefined) w.json = withResourceVersionAtEnd(w.value, w.revision) ?? null;
  return w.json ?? undefined;
}

/** Whether the object's own keys start apiVersion, kind, metadata: the order of its stored JSON (see encodeValue). */
export function inStoredOrder(obj: KubeObject): boolean {
  let i = 0;
  for (const k in obj) {
    if (i === 0 && k !== 'apiVersion') return false;
    if (i === 1 && k !== 'kind') return false;
    if (i === 2) return k === 'metadata';
    i++;
  }
  return false;
}
