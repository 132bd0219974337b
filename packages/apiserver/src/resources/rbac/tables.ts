import type { TableColumnDefinition } from '../../registry/strategy.js';
import type { BindingObject, RoleObject } from '../../authz/rbac/types.js';
import { ageOf } from '../../tables/human-duration.js';
import { ageColumn, nameColumn } from '../../tables/columns.js';

const createdAt: TableColumnDefinition = {
  name: 'Created At',
  type: 'date',
  format: '',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
};

/** Role and ClusterRole tables as upstream prints them: Name, Created At. */
export const roleTable = {
  columns: [nameColumn, createdAt],
  cells: (obj: RoleObject) => [obj.metadata.name ?? '', obj.metadata.creationTimestamp ?? ''],
};

const wide = (name: string, description: string): TableColumnDefinition => ({ name, type: 'string', format: '', description, priority: 1 });

/** RoleBinding and ClusterRoleBinding tables: Name, Role (`Kind/name`), Age; wide: Users, Groups, ServiceAccounts. */
export const bindingTable = {
  columns: [
    nameColumn,
    { name: 'Role', type: 'string', format: '', description: 'RoleRef is the reference to the role the binding grants.', priority: 0 },
    ageColumn,
    wide('Users', 'Users in the binding.'),
    wide('Groups', 'Groups in the binding.'),
    wide('ServiceAccounts', 'ServiceAccounts in the binding.'),
  ] satisfies TableColumnDefinition[],
  cells(obj: BindingObject): unknown[] {
    const users: string[] = [];
    const groups: string[] = [];
    const sas: string[] = [];
    for (const s of obj.subjects ?? []) {
      if (s.kind === 'User') users.push(s.name);
      else if (s.kind === 'Group') groups.push(s.name);
      else if (s.kind === 'ServiceAccount') sas.push(s.namespace ? `${s.namespace}/${s.name}` : s.name);
    }
    return [
      obj.metadata.name ?? '',
      `${obj.roleRef?.kind ?? ''}/${obj.roleRef?.name ?? ''}`,
      ageOf(obj.metadata.creationTimestamp, new Date()),
      users.join(', '),
      groups.join(', '),
      sas.join(', '),
    ];
  },
};
