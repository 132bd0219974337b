import { newLabelRequirement, SelectorParseError, type LabelOperator, type LabelRequirement } from './requirement.js';
import { LabelSelector } from './selector.js';

/** One metav1.LabelSelectorRequirement: operator is In, NotIn, Exists or DoesNotExist. */
export interface LabelSelectorRequirementObject {
  key: string;
  operator: string;
  values?: string[] | null;
}

/** The metav1.LabelSelector form used inside objects (for example spec.selector). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirementObject[] | null;
}

const operators: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * Converts a metav1.LabelSelector to a selector, as upstream's LabelSelectorAsSelector: null or
 * undefined selects nothing, an empty selector selects everything.
 * @throws SelectorParseError for an unknown operator or an invalid key or value.
 */
export function labelSelectorFromLabelSelectorObject(sel: LabelSelectorObject | null | undefined): LabelSelector {
  if (sel == null) return LabelSelector.nothing();
  const matchLabels = Object.entries(sel.matchLabels ?? {});
  const exprs = sel.matchExpressions ?? [];
  if (matchLabels.length + exprs.length === 0) return LabelSelector.everything();
  const reqs: LabelRequirement[] = matchLabels.map(([k, v]) => newLabelRequirement(k, '=', [v]));
  for (const expr of exprs) {
    const op = Object.hasOwn(operators, expr.operator) ? operators[expr.operator] : undefined;
    if (!op) throw new SelectorParseError(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
    reqs.push(newLabelRequirement(expr.key, op, [...(expr.values ?? [])]));
  }
  return LabelSelector.of(reqs);
}
