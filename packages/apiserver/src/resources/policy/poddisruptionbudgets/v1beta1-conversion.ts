import type { KubeObject, LabelSelectorObject } from '@cluster/apimachinery';
import type { PodDisruptionBudget } from './strategy.js';

/**
 * policy/v1beta1 and policy/v1 disagree on an empty selector (SPEC 9.4): v1beta1's `{}` selects no
 * pods, v1's `{}` selects all. Upstream keeps each meaning across versions with selectors on a
 * reserved label key (pkg/apis/policy/helper.go); so do we.
 */
export const PDB_V1BETA1_LABEL = 'pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match';
/** v1's form of v1beta1's match-none `{}`. */
const V1_MATCH_NONE: LabelSelectorObject = { matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator: 'Exists' }] };
/** v1beta1's form of v1's match-all `{}`. */
const V1BETA1_MATCH_ALL: LabelSelectorObject = { matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator: 'DoesNotExist' }] };

/** Upstream's semantic equality of selectors: unset and empty lists and maps are the same. */
function isEmpty(s: LabelSelectorObject): boolean {
  return Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0;
}
function isOnly(s: LabelSelectorObject, operator: string): boolean {
  const exprs = s.matchExpressions ?? [];
  return Object.keys(s.matchLabels ?? {}).length === 0 && exprs.length === 1 && exprs[0]!.key === PDB_V1BETA1_LABEL && exprs[0]!.operator === operator && (exprs[0]!.values ?? []).length === 0;
}

function withSelector(pdb: PodDisruptionBudget, selector: LabelSelectorObject | undefined, apiVersion: string): PodDisruptionBudget {
  const spec = { ...(pdb.spec ?? {}) };
  if (selector === undefined) delete spec.selector;
  else spec.selector = selector;
  return { ...pdb, apiVersion, spec };
}

/** A v1beta1 object in the stored (v1) form. Does not change `obj`. */
export function pdbV1beta1ToV1(obj: KubeObject, apiVersion: string): KubeObject {
  const pdb = obj as PodDisruptionBudget;
  const s = pdb.spec?.selector;
  if (!s) return { ...pdb, apiVersion };
  if (isEmpty(s)) return withSelector(pdb, structuredClone(V1_MATCH_NONE), apiVersion);
  if (isOnly(s, 'DoesNotExist')) return withSelector(pdb, {}, apiVersion);
  // The reserved key never mixes with what the user selects.
  if (!(s.matchExpressions ?? []).some((e) => e.key === PDB_V1BETA1_LABEL)) return { ...pdb, apiVersion };
  const { matchExpressions, ...rest } = s;
  const kept = matchExpressions!.filter((e) => e.key !== PDB_V1BETA1_LABEL);
  // An emptied list is left out, as Go's omitempty does.
  return withSelector(pdb, kept.length ? { ...rest, matchExpressions: kept } : rest, apiVersion);
}

/** A stored (v1) object as v1beta1 serves it. Does not change `obj`. */
export function pdbV1ToV1beta1(obj: KubeObject, apiVersion: string): KubeObject {
  const pdb = obj as PodDisruptionBudget;
  const s = pdb.spec?.selector;
  if (s && isOnly(s, 'Exists')) return withSelector(pdb, {}, apiVersion);
  if (s && isEmpty(s)) return withSelector(pdb, structuredClone(V1BETA1_MATCH_ALL), apiVersion);
  return { ...pdb, apiVersion };
}
