import type { ResourceStrategy } from '../../../registry/strategy.js';
import type { RoleObject } from '../../../authz/rbac/types.js';
import { validateRole, validateRoleUpdate } from '../validation.js';
import { roleTable } from '../tables.js';

/** Role (namespaced) or ClusterRole behaviour: validated rules, Name/Created At table. */
export function roleStrategy(namespaced: boolean) {
  return {
    namespaceScoped: namespaced,
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    prepareForCreate() {},
    prepareForUpdate() {},
    validate: (obj: RoleObject) => validateRole(obj, namespaced),
    validateUpdate: (obj: RoleObject, old: RoleObject) => validateRoleUpdate(obj, old, namespaced),
    table: roleTable,
  } satisfies ResourceStrategy<RoleObject>;
}
