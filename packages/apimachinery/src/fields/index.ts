export {
  checkFieldSelectorFields,
  escapeFieldValue,
  FieldSelector,
  parseFieldSelector,
  parseFieldSelectorParam,
  unescapeFieldValue,
  type FieldOperator,
  type FieldRequirement,
} from './selector.js';
