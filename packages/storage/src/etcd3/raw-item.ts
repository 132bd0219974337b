import { Held } from '../cacher/held.js';
import type { RawItem } from '../interfaces.js';
import { resourceVersionParts } from './splice-rv.js';
import { decodeValue } from './value-codec.js';

/**
 * The JSON of a raw list item with its resourceVersion, as pieces to write in order: spliced into
 * the stored bytes without copying them, or re-encoded when they have an unexpected shape.
 */
export function rawItemJson(item: RawItem): Buffer[] {
  if (item instanceof Held) return [item.json()];
  return (
    resourceVersionParts(item.value, item.modRevision) ?? [
      Buffer.from(JSON.stringify(decodeValue(item.key.toString('utf8'), item.value, item.modRevision))),
    ]
  );
}
