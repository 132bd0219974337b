import { validateObjectMeta, validateObjectMetaUpdate, type KubeObject, type ObjectMetaOptions } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { ageOf } from '../../../tables/human-duration.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';

interface ServiceAccount extends KubeObject {
  secrets?: unknown[];
  imagePullSecrets?: unknown[];
  automountServiceAccountToken?: boolean;
}

const metaOptions: ObjectMetaOptions = { namespaced: true, nameValidator: 'subdomain', coreFinalizers: true };

/** ServiceAccount behaviour: metadata rules only (upstream ValidateServiceAccount); `NAME SECRETS AGE` table. */
export const serviceAccountStrategy = {
  namespaceScoped: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: (obj: ServiceAccount) => validateObjectMeta(obj.metadata, metaOptions),
  validateUpdate: (obj: ServiceAccount, old: ServiceAccount) => validateObjectMetaUpdate(obj.metadata, old.metadata, metaOptions),
  table: {
    columns: [
      nameColumn,
      { name: 'Secrets', type: 'string', format: '', description: 'Secrets of the account (deprecated).', priority: 0 },
      ageColumn,
    ],
    cells: (obj: ServiceAccount) => [obj.metadata.name ?? '', (obj.secrets ?? []).length, ageOf(obj.metadata.creationTimestamp, new Date())],
  },
} satisfies ResourceStrategy<ServiceAccount>;
