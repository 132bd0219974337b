import { newBadRequest, parseFieldSelector, parseLabelSelector, type KubeObject } from '@cluster/apimachinery';
import type { Predicate } from '@cluster/storage';
import type { GenericRegistry } from '../registry/generic-registry.js';
import { defaultSelectableFields } from '../registry/strategy.js';

/**
 * Builds the predicate of a list/watch from labelSelector and fieldSelector (400 on bad syntax or
 * unsupported field labels). Returns undefined when both are empty, so stores can skip filtering.
 */
export function selectionPredicate(registry: GenericRegistry, labelText: string, fieldText: string): Predicate | undefined {
  const labels = parseLabelSelector(labelText);
  const fields = parseFieldSelector(fieldText);
  if (labels.empty && fields.empty) return undefined;
  const namespaced = registry.strategy.namespaceScoped;
  const supported = (obj: KubeObject) => ({
    ...defaultSelectableFields(obj, namespaced),
    ...(registry.strategy.selectableFields?.(obj) ?? {}),
  });
  if (!fields.empty) {
    // Field labels are checked against a synthetic object so unsupported ones fail fast with 400.
    const known = Object.keys(supported({ metadata: {} }));
    for (const r of fields.requirements) {
      if (!known.includes(r.field)) throw newBadRequest(`field label not supported: ${r.field}`);
    }
  }
  const predicate: Predicate = (obj) => labels.matches(obj.metadata.labels ?? {}) && (fields.empty || fields.matches(supported(obj)));
  // Canonical text of both selectors: equal keys select equal sets, so caches can share results.
  predicate.selectorKey = `${labels.toString()}\u0000${fields.toString()}`;
  return predicate;
}
