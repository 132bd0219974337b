import type { KubeObject } from '@cluster/apimachinery';
import type { Predicate } from '@cluster/storage';
import type { ResourceInfo } from './resource-info.js';
import type { StorageConversion } from './registration.js';

/**
 * The mapping between a registry's served version and the objects it stores: identity for most
 * resources; a renamed apiVersion for a removed version whose schema equals the storage version's;
 * a conversion for a version stored as another (`storedAs`).
 */
export class ServedForm {
  readonly apiVersion: string;

  constructor(
    private readonly info: ResourceInfo,
    readonly conversion: StorageConversion | undefined,
  ) {
    this.apiVersion = info.group ? `${info.group}/${info.version}` : info.version;
  }

  /** A stored object in the served form (unchanged unless the resource is stored as another). */
  fromStorage(obj: KubeObject): KubeObject {
    if (!this.conversion) {
      // A removed version served again reads the current version's objects: with its own
      // apiVersion (a patch through it, kubectl apply, checks the patched object's version).
      const storage = this.info.storageVersion;
      return storage && storage !== this.info.version && obj.apiVersion !== this.apiVersion ? { ...obj, apiVersion: this.apiVersion } : obj;
    }
    // A fresh object: its apiVersion is this registry's (a removed version shares the conversion).
    const served = this.conversion.fromStorage(obj);
    served.apiVersion = this.apiVersion;
    return served;
  }

  /**
   * A served object in the stored form: converted, or with the storage version's apiVersion for a
   * removed version served again (SPEC 9.4), so that every version reads and writes the same objects.
   */
  toStorage(obj: KubeObject): KubeObject {
    if (this.conversion) return this.conversion.toStorage(obj);
    const storage = this.info.storageVersion;
    if (storage && storage !== this.info.version) obj.apiVersion = this.info.group ? `${this.info.group}/${storage}` : storage;
    return obj;
  }

  /** A selector on served objects applied to stored ones; its cache key is kept apart from the stored resource's own. */
  storedPredicate(predicate: Predicate | undefined): Predicate | undefined {
    if (!predicate || !this.conversion) return predicate;
    const wrapped: Predicate = (obj) => predicate(this.fromStorage(obj));
    if (predicate.selectorKey !== undefined) wrapped.selectorKey = `${this.info.group}/${this.info.version}:${predicate.selectorKey}`;
    return wrapped;
  }
}
