import type { KubeObject } from '@cluster/apimachinery';

/** Replaces `target`'s own fields with `source`'s (strategies change the object they are given in place). */
export function replaceContents(target: KubeObject, source: KubeObject): void {
  for (const k of Object.keys(target)) delete target[k];
  Object.assign(target, source);
}
