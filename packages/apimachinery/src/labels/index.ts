export {
  BINARY_OPERATORS,
  LabelRequirement,
  newLabelRequirement,
  SelectorParseError,
  type LabelOperator,
} from './requirement.js';
export { LabelSelector, parseLabelSelector, parseLabelSelectorParam } from './selector.js';
export {
  labelSelectorFromLabelSelectorObject,
  type LabelSelectorObject,
  type LabelSelectorRequirementObject,
} from './selector-object.js';
