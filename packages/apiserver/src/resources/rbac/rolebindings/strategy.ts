import type { ResourceStrategy } from '../../../registry/strategy.js';
import type { BindingObject } from '../../../authz/rbac/types.js';
import { defaultBinding, validateBinding, validateBindingUpdate } from '../validation.js';
import { bindingTable } from '../tables.js';

/**
 * RoleBinding (namespaced) or ClusterRoleBinding behaviour: v1 defaulting of apiGroups, validated
 * roleRef and subjects, roleRef immutable, Name/Role/Age table.
 */
export function bindingStrategy(namespaced: boolean, group: string) {
  return {
    namespaceScoped: namespaced,
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    prepareForCreate: (obj: BindingObject) => defaultBinding(obj, group),
    prepareForUpdate: (obj: BindingObject) => defaultBinding(obj, group),
    validate: (obj: BindingObject) => validateBinding(obj, namespaced, group),
    validateUpdate: (obj: BindingObject, old: BindingObject) => validateBindingUpdate(obj, old, namespaced, group),
    table: bindingTable,
  } satisfies ResourceStrategy<BindingObject>;
}
