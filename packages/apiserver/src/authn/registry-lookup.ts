import { isNotFound, type KubeObject } from '@cluster/apimachinery';
import type { RegistrySet } from '../registry/registry-set.js';
import type { ObjectLookup } from './service-account.js';

/**
 * An ObjectLookup over a served resource, for authenticators built before the registries exist:
 * `registries` is called on each lookup (start.ts binds it after createApiServer). NotFound is
 * undefined; other errors propagate (a 5xx, not a silent 401).
 */
export function registryLookup(registries: () => RegistrySet | undefined, group: string, resource: string): ObjectLookup {
  return async (namespace: string, name: string): Promise<KubeObject | undefined> => {
    const reg = registries()?.byResource(group, resource);
    if (!reg) throw new Error(`${resource} are not served yet`);
    try {
      return await reg.get(namespace, name);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
}
