import type { JsonObject } from '@cluster/apimachinery';
import type { Store } from '@cluster/storage';
import type { AdmissionPlugin } from '../admission/admission.js';
import { GenericRegistry, type RegistryBehaviour } from './generic-registry.js';
import type { KindSchemas } from './registry-types.js';
import type { ResourceRegistration } from './registration.js';

/**
 * All served resources, looked up by group, version and resource name. Built-in resources are
 * fixed at start; resources defined at run time (custom resources) are added and removed as a
 * group per owner (a CRD's name) with {@link RegistrySet.replaceOwned}.
 */
export class RegistrySet {
  private readonly byPath = new Map<string, GenericRegistry>();
  private readonly owned = new Map<string, { keys: string[]; registrations: ResourceRegistration[] }>();

  constructor(
    readonly registrations: readonly ResourceRegistration[],
    private readonly store: Store,
    private readonly admission: () => readonly AdmissionPlugin[],
    private readonly schemasFor: (definitionName: string, decodeDefinition?: JsonObject) => KindSchemas,
    private readonly behaviour: RegistryBehaviour = { garbageCollection: false },
  ) {
    for (const r of registrations) this.byPath.set(RegistrySet.pathKey(r.info.group, r.info.version, r.info.resource), this.registryOf(r));
  }

  private registryOf(r: ResourceRegistration): GenericRegistry {
    const operations = { virtual: r.virtual, subresourceCreaters: r.subresourceCreaters, allocations: r.allocations, storedAs: r.storedAs, computed: r.computed };
    const schemas = this.schemasFor(r.info.definitionName, r.decodeDefinition);
    return new GenericRegistry(r.info, r.strategy, this.store, this.admission, schemas, undefined, operations, this.behaviour);
  }

  static pathKey(group: string, version: string, resource: string): string {
    return `${group}/${version}/${resource}`;
  }

  /**
   * Replaces the registrations `owner` added before with `registrations` (none: removes them).
   * Call after the definitions they name are known to `schemasFor`. A path a built-in or another
   * owner already serves is left to it.
   */
  replaceOwned(owner: string, registrations: readonly ResourceRegistration[]): void {
    for (const key of this.owned.get(owner)?.keys ?? []) this.byPath.delete(key);
    this.owned.delete(owner);
    if (registrations.length === 0) return;
    const keys: string[] = [];
    for (const r of registrations) {
      const key = RegistrySet.pathKey(r.info.group, r.info.version, r.info.resource);
      if (this.byPath.has(key)) continue;
      this.byPath.set(key, this.registryOf(r));
      keys.push(key);
    }
    this.owned.set(owner, { keys, registrations: [...registrations] });
  }

  /** Registrations added at run time, by every owner. */
  ownedRegistrations(): ResourceRegistration[] {
    return [...this.owned.values()].flatMap((o) => o.registrations.filter((r) => o.keys.includes(RegistrySet.pathKey(r.info.group, r.info.version, r.info.resource))));
  }

  lookup(group: string, version: string, resource: string): GenericRegistry | undefined {
    return this.byPath.get(RegistrySet.pathKey(group, version, resource));
  }

  /** Every registry, in registration order. */
  all(): GenericRegistry[] {
    return [...this.byPath.values()];
  }

  /** Registries of resources kept in storage (not virtual review types), for watch caches. */
  stored(): GenericRegistry[] {
    return this.all().filter((r) => !r.operations.virtual && !r.operations.computed);
  }

  /** The registry of a resource at any served version (the first registered). */
  byResource(group: string, resource: string): GenericRegistry | undefined {
    for (const reg of this.byPath.values()) {
      if (reg.info.group === group && reg.info.resource === resource) return reg;
    }
    return undefined;
  }
}
