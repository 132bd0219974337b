import type { JSONSchemaProps, KubeObject } from '@cluster/apimachinery';
import type { StorageConversion } from '../../../registry/registration.js';
import { defaultObject } from './strategy.js';

/** Whether any `default` sits in the structural parts of the schema defaulting walks. */
export function schemaHasDefaults(schema: JSONSchemaProps | undefined): boolean {
  if (!schema) return false;
  if (schema.default !== undefined) return true;
  if (Object.values(schema.properties ?? {}).some(schemaHasDefaults)) return true;
  if (schema.items && schemaHasDefaults(schema.items)) return true;
  return typeof schema.additionalProperties === 'object' && schemaHasDefaults(schema.additionalProperties);
}

/**
 * Upstream defaults custom resources as it decodes them from storage, so objects stored before a
 * `default` was added to the schema read with it (get, list, watch, and the current object of an
 * update): first with the storage version's schema (the stored object's own version), then with
 * the served version's. Served as a storage conversion over the resource's own keys: each read
 * returns a new object with those defaults filled in; writes store the object as given, in the
 * storage version. Undefined when neither schema has defaults (reads stay as stored, and cheap).
 */
export function readDefaulting(
  resource: { group: string; resource: string; storageApiVersion: string },
  storageSchema: JSONSchemaProps | undefined,
  servedSchema: JSONSchemaProps | undefined,
): StorageConversion | undefined {
  const schemas = [storageSchema, servedSchema].filter(schemaHasDefaults);
  if (schemas.length === 0) return undefined;
  return {
    group: resource.group,
    resource: resource.resource,
    toStorage(obj: KubeObject): KubeObject {
      return { ...obj, apiVersion: resource.storageApiVersion };
    },
    fromStorage(obj: KubeObject): KubeObject {
      // Defaulting builds new content values; metadata is copied so the stored object stays untouched.
      const served: KubeObject = { ...obj, metadata: structuredClone(obj.metadata) };
      for (const schema of schemas) defaultObject(served, schema);
      return served;
    },
  };
}
