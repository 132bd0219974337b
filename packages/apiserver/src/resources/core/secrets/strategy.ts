import { validateSecret, validateSecretUpdate, type KubeObject } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { ageOf } from '../../../tables/human-duration.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';

/** A Secret in its JSON form: `data` values are base64; `stringData` is write-only plain text. */
export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  immutable?: boolean;
}

/**
 * Upstream's defaulting and v1 conversion: an empty type is Opaque, and `stringData` is merged
 * into `data` (its values win) and dropped, so it is never stored or returned. Mutates `s`.
 */
export function normalizeSecret(s: Secret): void {
  if (!s.type) s.type = 'Opaque';
  if (s.stringData) {
    const entries = Object.entries(s.stringData);
    if (entries.length > 0) {
      s.data = { ...s.data };
      for (const [k, v] of entries) s.data[k] = Buffer.from(v, 'utf8').toString('base64');
    }
    delete s.stringData;
  }
}

/** Secret behaviour: defaulted, immutable type; keys, size and per-type rules; `NAME TYPE DATA AGE` table. */
export function secretStrategy(apiDomain: string) {
  return {
    namespaceScoped: true,
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    prepareForCreate: (obj: Secret) => normalizeSecret(obj),
    prepareForUpdate: (obj: Secret) => normalizeSecret(obj),
    validate: (obj: Secret) => validateSecret(obj, apiDomain),
    validateUpdate: (obj: Secret, old: Secret) => validateSecretUpdate(obj, old, apiDomain),
    selectableFields: (obj: Secret) => ({ type: obj.type ?? '' }),
    table: {
      columns: [
        nameColumn,
        { name: 'Type', type: 'string', format: '', description: 'Used to facilitate programmatic handling of secret data.', priority: 0 },
        { name: 'Data', type: 'integer', format: '', description: 'Number of keys in data.', priority: 0 },
        ageColumn,
      ],
      cells: (obj: Secret) => [
        obj.metadata.name ?? '',
        obj.type ?? '',
        Object.keys(obj.data ?? {}).length,
        ageOf(obj.metadata.creationTimestamp, new Date()),
      ],
    },
  } satisfies ResourceStrategy<Secret>;
}
