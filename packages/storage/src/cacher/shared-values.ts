import type { KubeObject } from '@cluster/apimachinery';

/** Bound on the namespace strings shared: past it new ones keep their copies. */
const MAX_SHARED_NAMESPACES = 10_000;
/** Bound on the other shared strings (times, managers); the set starts again when full. */
const MAX_SHARED_STRINGS = 4096;
/** Subtrees whose JSON is longer than this are not shared (unlikely to repeat, costly to keep). */
const MAX_TREE_CHARS = 4096;
/** Bound on the JSON characters of the subtrees remembered; the set starts again when full. */
const MAX_TREES_CHARS = 1 << 20;

/**
 * Values of cached objects that are equal across many objects, held once (issue 33: the memory a
 * cached object costs in every worker). A watch cache keeps every object decoded, and each
 * decoded object has its own copy of what is the same text in thousands of them: the namespace,
 * the creation second, the revision of a multi-object transaction and, above all,
 * metadata.managedFields (an array of entries, each with a nested fieldsV1 object per field
 * path: ~360 bytes of heap for a ConfigMap's one create entry) and the labels, annotations, owner
 * references and finalizers of objects made by one controller. Here each such value is replaced by one instance
 * with the same JSON, so every read encodes exactly the same bytes.
 *
 * Only objects not yet handed to readers are changed, and cached objects are never changed once
 * held (see RecentWrites), so an instance shared by many objects is as safe as one object shared by
 * many readers. Subtrees are compared by their JSON (key order included): equal JSON, equal reads.
 */
export class SharedValues {
  private namespaces = new Map<string, string>();
  private strings = new Map<string, string>();
  private trees = new Map<string, unknown>();
  private treeChars = 0;
  private lastRevision: string | undefined;

  /** Forgets everything (a relist). */
  clear(): void {
    this.namespaces.clear();
    this.strings.clear();
    this.trees.clear();
    this.treeChars = 0;
    this.lastRevision = undefined;
  }

  /** `obj` (freshly decoded, not yet shared) with its repeated values replaced by shared ones; changed in place. */
  share(obj: KubeObject): KubeObject {
    const meta = obj.metadata as SharedMeta | undefined;
    if (typeof meta !== 'object' || meta === null) return obj;
    // Named fields, not a loop over names: keyed access by a variable name is several times slower.
    const ns = meta.namespace;
    if (typeof ns === 'string') {
      const shared = this.namespaces.get(ns);
      if (shared !== undefined) meta.namespace = shared;
      else if (this.namespaces.size < MAX_SHARED_NAMESPACES) this.namespaces.set(ns, ns);
    }
    const rv = meta.resourceVersion;
    if (typeof rv === 'string') {
      // The objects of one transaction share a revision and arrive one after another.
      if (rv === this.lastRevision) meta.resourceVersion = this.lastRevision;
      else this.lastRevision = rv;
    }
    if (typeof meta.creationTimestamp === 'string') meta.creationTimestamp = this.string(meta.creationTimestamp);
    if (isPlainObject(meta.labels)) meta.labels = this.tree(meta.labels);
    if (isPlainObject(meta.annotations)) meta.annotations = this.tree(meta.annotations);
    if (Array.isArray(meta.ownerReferences)) meta.ownerReferences = this.tree(meta.ownerReferences);
    if (Array.isArray(meta.finalizers)) meta.finalizers = this.tree(meta.finalizers);
    if (Array.isArray(meta.managedFields)) meta.managedFields = this.managedFields(meta.managedFields);
    return obj;
  }

  /** The whole array when another object has the same; else its entries' strings and fieldsV1 shared. */
  private managedFields(entries: unknown[]): unknown[] {
    const whole = this.lookup(entries);
    if (whole.hit !== undefined) return whole.hit as unknown[];
    for (const e of entries) {
      if (!isPlainObject(e)) continue;
      for (const f of ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'subresource']) {
        const v = e[f];
        if (typeof v === 'string') e[f] = this.string(v);
      }
      const fields = e['fieldsV1'];
      if (isPlainObject(fields)) e['fieldsV1'] = this.tree(fields);
    }
    this.remember(whole.json, entries);
    return entries;
  }

  private string(s: string): string {
    const shared = this.strings.get(s);
    if (shared !== undefined) return shared;
    if (this.strings.size >= MAX_SHARED_STRINGS) this.strings.clear();
    this.strings.set(s, s);
    return s;
  }

  private tree<T>(value: T): T {
    const { json, hit } = this.lookup(value);
    if (hit !== undefined) return hit as T;
    this.remember(json, value);
    return value;
  }

  private lookup(value: unknown): { json: string | undefined; hit: unknown } {
    const json = JSON.stringify(value);
    if (json === undefined || json.length > MAX_TREE_CHARS) return { json: undefined, hit: undefined };
    return { json, hit: this.trees.get(json) };
  }

  private remember(json: string | undefined, value: unknown): void {
    if (json === undefined) return;
    if (this.treeChars + json.length > MAX_TREES_CHARS) {
      this.trees.clear();
      this.treeChars = 0;
    }
    this.trees.set(json, value);
    this.treeChars += json.length;
  }
}

/** The metadata fields shared, as decoded (anything JSON can hold). */
interface SharedMeta {
  namespace?: unknown;
  resourceVersion?: unknown;
  creationTimestamp?: unknown;
  labels?: unknown;
  annotations?: unknown;
  ownerReferences?: unknown;
  finalizers?: unknown;
  managedFields?: unknown;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
