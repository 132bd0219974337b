import type { CustomResourceDefinition, CustomResourceDefinitionCondition, CustomResourceDefinitionNames } from './types.js';

/** The outcome of name checking for one CRD: the names it may be served under, and why. */
export interface NamesDecision {
  acceptedNames: CustomResourceDefinitionNames;
  condition: Omit<CustomResourceDefinitionCondition, 'lastTransitionTime'>;
}

/**
 * Checks the names a CRD asks for against the names already accepted for the other CRDs of the
 * same group, as upstream's naming controller does: the first conflict (plural, singular, short
 * names, kind, list kind) makes `NamesAccepted` False and keeps the names accepted before; no
 * conflict accepts the requested names. Pure.
 */
export function acceptNames(crd: CustomResourceDefinition, all: readonly CustomResourceDefinition[]): NamesDecision {
  const requested = crd.spec.names ?? {};
  const group = crd.spec.group;
  const others = all.filter((o) => o.metadata.name !== crd.metadata.name && o.spec.group === group);
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const o of others) {
    const n = o.status?.acceptedNames ?? {};
    for (const r of [n.plural, n.singular, ...(n.shortNames ?? [])]) if (r) resources.add(r);
    for (const k of [n.kind, n.listKind]) if (k) kinds.add(k);
  }
  const previous = crd.status?.acceptedNames ?? {};
  const conflict = (reason: string, name: string): NamesDecision => ({
    acceptedNames: previous,
    condition: { type: 'NamesAccepted', status: 'False', reason, message: `${JSON.stringify(name)} is already in use` },
  });
  if (requested.plural && resources.has(requested.plural)) return conflict('PluralConflict', requested.plural);
  if (requested.singular && resources.has(requested.singular)) return conflict('SingularConflict', requested.singular);
  for (const s of requested.shortNames ?? []) if (resources.has(s)) return conflict('ShortNamesConflict', s);
  if (requested.kind && kinds.has(requested.kind)) return conflict('KindConflict', requested.kind);
  if (requested.listKind && kinds.has(requested.listKind)) return conflict('ListKindConflict', requested.listKind);
  return {
    acceptedNames: { ...requested },
    condition: { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
  };
}
