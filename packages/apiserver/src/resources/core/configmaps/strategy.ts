import { validateConfigMap, validateConfigMapUpdate, type KubeObject } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { ageOf } from '../../../tables/human-duration.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  immutable?: boolean;
}

/** ConfigMap behaviour (SPEC 2.3): no status, validation of keys, sizes and immutability. */
export const configMapStrategy = {
  namespaceScoped: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: (obj: ConfigMap) => validateConfigMap(obj),
  validateUpdate: (obj: ConfigMap, old: ConfigMap) => validateConfigMapUpdate(obj, old),
  table: {
    columns: [
      { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
      { name: 'Data', type: 'integer', format: '', description: 'Number of keys in data and binaryData.', priority: 0 },
      { name: 'Age', type: 'string', format: '', description: 'Time since the object was created.', priority: 0 },
    ],
    cells: (obj: ConfigMap) => [
      obj.metadata.name ?? '',
      Object.keys(obj.data ?? {}).length + Object.keys(obj.binaryData ?? {}).length,
      ageOf(obj.metadata.creationTimestamp, new Date()),
    ],
  },
} satisfies ResourceStrategy<ConfigMap>;
