import type { FieldErrorList, KubeObject } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { convertedStrategy } from '../../converted-strategy.js';
import { crdV1beta1ToV1, crdV1ToV1beta1, defaultCrdV1beta1, validateCrdV1beta1 } from './v1beta1-conversion.js';

const PER_VERSION_PATH = /^spec\.versions\[\d+\]\.(schema|subresources|additionalPrinterColumns)(.*)$/;
const TOP_LEVEL = { schema: 'validation', subresources: 'subresources', additionalPrinterColumns: 'additionalPrinterColumns' } as const;

/**
 * v1's errors about a value the request gave once at the top level name that field
 * (`spec.validation.openAPIV3Schema...`, `spec.additionalPrinterColumns[0].JSONPath`) and appear
 * once, not once per version the conversion copied it to.
 */
function namedAsRequested(obj: KubeObject, errs: FieldErrorList): FieldErrorList {
  const spec = (obj['spec'] ?? {}) as Record<string, unknown>;
  const seen = new Set<string>();
  const out: FieldErrorList = [];
  for (const e of errs) {
    const m = PER_VERSION_PATH.exec(e.field);
    const top = m ? TOP_LEVEL[m[1] as keyof typeof TOP_LEVEL] : undefined;
    let field = e.field;
    if (m && top) {
      // v1beta1 names a column's path `JSONPath`, on top or per version.
      const rest = top === 'additionalPrinterColumns' ? m[2]!.replace(/\.jsonPath$/, '.JSONPath') : m[2]!;
      field = spec[top] !== undefined ? `spec.${top}${rest}` : `${e.field.slice(0, e.field.length - m[2]!.length)}${rest}`;
    }
    const key = `${e.type}\u0000${field}\u0000${e.detail}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(field === e.field ? e : { ...e, field });
  }
  return out;
}

/**
 * CustomResourceDefinition at apiextensions/v1beta1: v1beta1's defaults and its own checks, then
 * v1's preparation and rules on the v1 form (as upstream validates its internal form), errors
 * named after the fields the request used. `preserveUnknownFields`, true by v1beta1's default,
 * is refused by v1's rule unless the request sets it false (upstream 1.22+ refuses pruning off).
 */
export function crdV1beta1Strategy(v1: ResourceStrategy<KubeObject>, groupVersion: string, v1GroupVersion: string): ResourceStrategy<KubeObject> {
  const base = convertedStrategy(v1, {
    toCurrent: (o) => crdV1beta1ToV1(o, v1GroupVersion),
    fromCurrent: (o) => crdV1ToV1beta1(o, groupVersion),
    defaults: defaultCrdV1beta1,
    validate: validateCrdV1beta1,
  });
  return {
    ...base,
    validate: (obj) => namedAsRequested(obj, base.validate(obj)),
    validateUpdate: (obj, old) => namedAsRequested(obj, base.validateUpdate(obj, old)),
  };
}
