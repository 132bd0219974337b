import { validateConfigMap, validateConfigMapUpdate, type KubeObject } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { ageOf } from '../../../tables/human-duration.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';

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
      nameColumn,
      { name: 'Data', type: 'integer', format: '', description: 'Number of keys in data and binaryData.', priority: 0 },
      ageColumn,
    ],
    cells: (obj: ConfigMap) => [
      obj.metadata.name ?? '',
      Object.keys(obj.data ?? {}).length + Object.keys(obj.binaryData ?? {}).length,
      ageOf(obj.metadata.creationTimestamp, new Date()),
    ],
  },
} satisfies ResourceStrategy<ConfigMap>;
