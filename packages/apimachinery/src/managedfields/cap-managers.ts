import { compareStrings } from './go-json.js';
import { managerIdentifier, type Managed } from './managers.js';

/** Upstream's cap on Update entries before the oldest are merged into a bucket. */
export const DEFAULT_MAX_UPDATE_MANAGERS = 10;
/** Manager name of the bucket that holds merged old Update entries. */
export const ANCIENT_CHANGES_MANAGER = 'ancient-changes';

const seconds = (t: string | undefined): number => {
  const ms = t ? Date.parse(t) : NaN;
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
};

/**
 * Keeps at most `max` Update entries (upstream capManagersManager): the oldest are merged, per API
 * version, into an `ancient-changes` entry that takes the time of the newest entry merged into it.
 * Mutates `managed`.
 */
export function capUpdateManagers(managed: Managed, max = DEFAULT_MAX_UPDATE_MANAGERS): void {
  const updaters = [...managed.fields].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= max) return;
  updaters.sort((a, b) => seconds(managed.times.get(a)) - seconds(managed.times.get(b)) || compareStrings(a, b));
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i] as string;
    const vs = managed.fields.get(id);
    if (!vs) continue;
    const bucket = managerIdentifier({ manager: ANCIENT_CHANGES_MANAGER, operation: 'Update', apiVersion: vs.apiVersion });
    const first = firstByVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstByVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!managed.fields.has(bucket)) {
      const firstSet = managed.fields.get(first);
      managed.fields.delete(first);
      if (firstSet) managed.fields.set(bucket, firstSet);
    }
    const bucketSet = managed.fields.get(bucket);
    managed.fields.set(bucket, { set: bucketSet ? vs.set.union(bucketSet.set) : vs.set, apiVersion: vs.apiVersion, applied: false });
    managed.fields.delete(id);
    length--;
    managed.times.set(bucket, managed.times.get(id));
  }
  // Times of managers that no longer exist are dropped so that encoding stays consistent.
  for (const id of [...managed.times.keys()]) if (!managed.fields.has(id)) managed.times.delete(id);
}
