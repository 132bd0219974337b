import type { KubeObject, Status } from '@cluster/apimachinery';
import type { GuardedDeleteOutcome } from '@cluster/storage';
import type { DeleteResult } from './registry-types.js';

/**
 * DeleteCollection's work, after upstream's registry Store.DeleteCollection: every listed object is
 * deleted as a single DELETE of it would be (preconditions dropped, admission per object, NotFound
 * skipped), with up to `--delete-collection-workers` deletes in flight.
 * <- k8s.io/apiserver pkg/registry/generic/registry/store.go DeleteCollection
 */

/** What deleting one listed object needs from its registry. */
export interface ListedObjectDeleter {
  /** Delete admission (mutating, then validating) of the object in the state it was listed in. */
  admit(listed: KubeObject): Promise<void>;
  /**
   * True when a single DELETE of the object in its listed state removes it at once: no finalizer
   * pending, none the propagation policy would add, not a dry run.
   */
  removedAtOnce(listed: KubeObject): boolean;
  /** Removes the object in one write guarded by its listed mod revision (see Store.deleteIfUnchanged). */
  deleteIfUnchanged(listed: KubeObject): Promise<GuardedDeleteOutcome>;
  /** What a completed delete of the listed state answers (allocations released). */
  deleted(listed: KubeObject): Promise<DeleteResult>;
  /** The full single DELETE: read, admission, finalizers and graceful marking, guarded delete. */
  deleteFully(listed: KubeObject): Promise<DeleteResult>;
}

/**
 * Deletes one listed object. When its listed state already decides the outcome (removed at once),
 * it is removed in one transaction that holds only if the object is still exactly that state; a
 * concurrent change (say a finalizer added) fails the guard and the full delete runs on the fresh
 * state, as a single DELETE would. Resolves undefined when the object is gone already.
 */
export async function deleteListedObject(d: ListedObjectDeleter, listed: KubeObject): Promise<DeleteResult | undefined> {
  try {
    if (d.removedAtOnce(listed)) {
      await d.admit(listed);
      const outcome = await d.deleteIfUnchanged(listed);
      if (outcome === 'deleted') return await d.deleted(listed);
      // Gone already (another delete of the collection got there first): nothing more to read.
      if (outcome === 'missing') return undefined;
    }
    return await d.deleteFully(listed);
  } catch (e) {
    // Objects removed by someone else meanwhile are already gone, which is what was asked.
    if ((e as { status?: Status }).status?.reason === 'NotFound') return undefined;
    throw e;
  }
}

/**
 * Runs `fn` on every item with at most `workers` (at least 1) calls in flight, and gives the
 * results in the items' order. After the first failure no further item is started; the calls in
 * flight are awaited and that first error is thrown.
 */
export async function forEachBounded<T, R>(items: readonly T[], workers: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (!failure && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const count = Math.max(1, Math.min(Math.floor(workers) || 1, items.length));
  await Promise.all(Array.from({ length: count }, worker));
  if (failure) throw failure.error;
  return results;
}

/**
 * Runs calls that share a key one after another (calls without a key at once). A DeleteCollection
 * asked again while the same one still runs (a client that timed out and retries, as the namespace
 * controller does) then lists after the first is done, finding what is left, instead of racing it
 * over the same objects: each is still a whole DeleteCollection of its own, only started later.
 */
export class KeyedSerializer {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string | undefined, fn: () => Promise<T>): Promise<T> {
    if (key === undefined) return fn();
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(fn, fn);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
