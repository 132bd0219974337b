import { randomBytes, randomUUID } from 'node:crypto';
import { formatTime as formatSecond, newBadRequest, type KubeObject, type ObjectMeta } from '@cluster/apimachinery';

/** RFC 3339 at second precision, as metav1.Time serializes (the last second's text is kept). */
export function formatTime(d: Date): string {
  return formatSecond(d);
}

// Upstream's name generator alphabet: no vowels (no accidental words) and no look-alike digits.
const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
const GENERATED_SUFFIX_LENGTH = 5;
const MAX_GENERATED_NAME_LENGTH = 63;

/** `generateName` plus a random 5-character suffix, the base cut so the whole fits 63 characters. */
export function generateName(base: string): string {
  const maxBase = MAX_GENERATED_NAME_LENGTH - GENERATED_SUFFIX_LENGTH;
  const prefix = base.length > maxBase ? base.slice(0, maxBase) : base;
  const bytes = randomBytes(GENERATED_SUFFIX_LENGTH);
  let suffix = '';
  for (const b of bytes) suffix += alphabet[b % alphabet.length];
  return prefix + suffix;
}

/** Sets the system fields of a new object (uid, creationTimestamp) and clears what clients may not set. */
export function fillCreateMeta(meta: ObjectMeta, now: Date): void {
  meta.uid = randomUUID();
  meta.creationTimestamp = formatTime(now);
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
}

/** Carries system fields from the stored object into an update, as upstream's BeforeUpdate. */
export function carryUpdateMeta(meta: ObjectMeta, old: ObjectMeta): void {
  if (!meta.uid && old.uid) meta.uid = old.uid;
  if (old.creationTimestamp) meta.creationTimestamp = old.creationTimestamp;
  if (old.deletionTimestamp) meta.deletionTimestamp = old.deletionTimestamp;
  else delete meta.deletionTimestamp;
  if (old.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
  else delete meta.deletionGracePeriodSeconds;
  if (old.generation !== undefined) meta.generation = old.generation;
  else delete meta.generation;
  delete meta.selfLink;
}

/** A deep copy of a JSON-shaped object (a JSON round trip is faster than structuredClone here). */
export function deepCopy<T extends KubeObject>(obj: T): T {
  return JSON.parse(JSON.stringify(obj)) as T;
}

/** Object namespace must match the URL (or be empty and then defaulted); cluster objects have none. */
export function placeInNamespace(namespace: string, namespaceScoped: boolean, obj: KubeObject): void {
  if (!obj.metadata || typeof obj.metadata !== 'object') obj.metadata = {};
  if (namespaceScoped) {
    if (obj.metadata.namespace && obj.metadata.namespace !== namespace) {
      throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    obj.metadata.namespace = namespace;
  } else {
    delete obj.metadata.namespace;
  }
}
