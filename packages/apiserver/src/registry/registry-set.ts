import type { Store } from '@cluster/storage';
import type { AdmissionPlugin } from '../admission/admission.js';
import { GenericRegistry, type KindSchemas } from './generic-registry.js';
import type { ResourceRegistration } from './registration.js';

/** All served resources, looked up by group, version and resource name. */
export class RegistrySet {
  private readonly byPath = new Map<string, GenericRegistry>();

  constructor(
    readonly registrations: readonly ResourceRegistration[],
    store: Store,
    admission: () => readonly AdmissionPlugin[],
    schemasFor: (definitionName: string) => KindSchemas,
  ) {
    for (const r of registrations) {
      const operations = { virtual: r.virtual, subresourceCreaters: r.subresourceCreaters, allocations: r.allocations, storedAs: r.storedAs };
      const reg = new GenericRegistry(r.info, r.strategy, store, admission, schemasFor(r.info.definitionName), undefined, operations);
      this.byPath.set(RegistrySet.pathKey(r.info.group, r.info.version, r.info.resource), reg);
    }
  }

  static pathKey(group: string, version: string, resource: string): string {
    return `${group}/${version}/${resource}`;
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
    return this.all().filter((r) => !r.operations.virtual);
  }

  /** The registry of a resource at any served version (the first registered). */
  byResource(group: string, resource: string): GenericRegistry | undefined {
    for (const reg of this.byPath.values()) {
      if (reg.info.group === group && reg.info.resource === resource) return reg;
    }
    return undefined;
  }
}
