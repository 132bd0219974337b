import { toGoJsonShape, type KubeObject } from '@cluster/apimachinery';

/**
 * Gives `obj` (in place) the shape upstream stores after decoding into its Go struct, so JSON and
 * Protobuf reads agree (see toGoJsonShape). An object that does not fit its message is left as
 * it is: validation reports what is wrong with it.
 */
export function reshapeInPlace(obj: KubeObject): void {
  let shaped: KubeObject;
  try {
    shaped = toGoJsonShape(obj);
  } catch {
    return;
  }
  for (const key of Object.keys(obj)) delete obj[key];
  Object.assign(obj, shaped);
}

/** A reshaped copy (for subresource merges, which build new objects). */
export function reshaped<T extends KubeObject>(obj: T): T {
  reshapeInPlace(obj);
  return obj;
}
