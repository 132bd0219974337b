import {
  child,
  invalid,
  labelSelectorFromLabelSelectorObject,
  required,
  validateLabelName,
  validateLabels,
  type FieldErrorList,
  type LabelSelectorObject,
} from '@cluster/apimachinery';

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/** Go's %v of a map[string]string, as upstream's messages print template labels. */
export function goMapText(labels: Record<string, string> | undefined): string {
  const entries = Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[string]string{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(', ')}}`;
}

/** Upstream's ValidateLabelSelector: well-formed keys, values and operators. */
export function validateLabelSelector(sel: LabelSelectorObject | undefined, path: string): FieldErrorList {
  if (!sel) return [];
  const errs: FieldErrorList = [...validateLabels(sel.matchLabels ?? undefined, child(path, 'matchLabels'))];
  (sel.matchExpressions ?? []).forEach((e, i) => {
    const ep = `${child(path, 'matchExpressions')}[${i}]`;
    if (!OPERATORS.includes(e.operator)) errs.push(invalid(child(ep, 'operator'), e.operator, 'not a valid selector operator'));
    const values = e.values ?? [];
    if ((e.operator === 'In' || e.operator === 'NotIn') && values.length === 0) {
      errs.push(required(child(ep, 'values'), 'must be specified when `operator` is \'In\' or \'NotIn\''));
    }
    if ((e.operator === 'Exists' || e.operator === 'DoesNotExist') && values.length > 0) {
      errs.push(invalid(child(ep, 'values'), values, 'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\''));
    }
    errs.push(...validateLabelName(e.key, child(ep, 'key')));
  });
  return errs;
}

/**
 * The apps/v1 rule: a selector is required, non-empty, and must select the template's labels.
 * Returns the errors upstream's ValidateDeploymentSpec (and its siblings) give.
 */
export function validateSelectorMatchesTemplate(
  selector: LabelSelectorObject | undefined,
  templateLabels: Record<string, string> | undefined,
  specPath: string,
  kindText: string,
): FieldErrorList {
  const selPath = child(specPath, 'selector');
  if (!selector) return [required(selPath)];
  const errs = validateLabelSelector(selector, selPath);
  if (errs.length) return errs;
  const empty = Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
  if (empty) return [invalid(selPath, selector, `empty selector is invalid for ${kindText}`)];
  let matches = false;
  try {
    matches = labelSelectorFromLabelSelectorObject(selector).matches(templateLabels ?? {});
  } catch (e) {
    return [invalid(selPath, selector, (e as Error).message)];
  }
  if (!matches) {
    return [invalid(child(specPath, 'template', 'metadata', 'labels'), goMapText(templateLabels), '`selector` does not match template `labels`')];
  }
  return [];
}
