import type { TableColumnDefinition } from '../registry/strategy.js';

/** The Name column every kind's table starts with. */
export const nameColumn: TableColumnDefinition = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  priority: 0,
};

/** The Age column kubectl shows last (a human duration since creation). */
export const ageColumn: TableColumnDefinition = {
  name: 'Age',
  type: 'string',
  format: '',
  description: 'Time since the object was created.',
  priority: 0,
};
