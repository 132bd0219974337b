import { newBadRequest, parseFieldSelector, parseLabelSelector, type KubeObject } from '@cluster/apimachinery';
import type { Predicate } from '@cluster/storage';
import type { GenericRegistry } from '../registry/generic-registry.js';
import { defaultSelectableFields } from '../registry/strategy.js';

/** Each registry's selectable-fields function: one per registry, so caches can key what they keep by it. */
const fieldsFunctions = new WeakMap<GenericRegistry, (obj: KubeObject) => Record<string, string>>();

/** The selectable fields of the registry's objects (upstream's AttrFunc: the defaults and the kind's own). */
function fieldsFunctionOf(registry: GenericRegistry): (obj: KubeObject) => Record<string, string> {
  let fn = fieldsFunctions.get(registry);
  if (fn === undefined) {
    const namespaced = registry.strategy.namespaceScoped;
    const own = registry.strategy.selectableFields?.bind(registry.strategy);
    fn = (obj) => ({ ...defaultSelectableFields(obj, namespaced), ...(own?.(obj) ?? {}) });
    fieldsFunctions.set(registry, fn);
  }
  return fn;
}

/**
 * Builds the predicate of a list/watch from labelSelector and fieldSelector (400 on bad syntax or
 * unsupported field labels). Returns undefined when both are empty, so stores can skip filtering.
 */
export function selectionPredicate(registry: GenericRegistry, labelText: string, fieldText: string): Predicate | undefined {
  const labels = parseLabelSelector(labelText);
  const fields = parseFieldSelector(fieldText);
  if (labels.empty && fields.empty) return undefined;
  const supported = fieldsFunctionOf(registry);
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
  // The same selection on the values it reads, for caches that keep those instead of objects.
  predicate.attrs = {
    ...(labels.empty ? {} : { labels: (ls: Readonly<Record<string, string>>) => labels.matches(ls) }),
    ...(fields.empty ? {} : { fields: (fs: Readonly<Record<string, string>>) => fields.matches(fs) }),
    fieldsOf: supported,
  };
  return predicate;
}
