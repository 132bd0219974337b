import { forbidden, invalid, type FieldErrorList, type KubeObject } from '@cluster/apimachinery';
import { jsonEqual } from './json-equal.js';

// apiextensions/v1beta1 CustomResourceDefinition (removed in 1.22; SPEC 9.4) over the stored v1
// objects, as upstream's v1 and v1beta1 conversions through the internal form do (v1.24
// apiextensions-apiserver pkg/apis/apiextensions/{v1,v1beta1}): v1beta1's top-level `version`,
// `validation`, `subresources` and `additionalPrinterColumns` (with `JSONPath`) stand for every
// version's own; v1 answers put per-version values back on top when all versions agree. The
// conversion settings move between `conversion.webhookClientConfig`/`conversionReviewVersions`
// and `conversion.webhook`.

type Json = Record<string, unknown>;
interface CrdV1beta1Spec extends Json {
  version?: string;
  versions?: Json[];
  validation?: unknown;
  subresources?: unknown;
  additionalPrinterColumns?: Json[];
  conversion?: Json;
}
const specOf = (obj: KubeObject): Json | undefined => {
  const spec = obj['spec'];
  return spec && typeof spec === 'object' && !Array.isArray(spec) ? (spec as Json) : undefined;
};
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** The per-version fields that v1beta1 also holds on top: their name on top, per version, and in messages. */
const PER_VERSION = [
  { top: 'validation', own: 'schema', what: 'schemas' },
  { top: 'subresources', own: 'subresources', what: 'subresources' },
  { top: 'additionalPrinterColumns', own: 'additionalPrinterColumns', what: 'additionalPrinterColumns' },
] as const;

/** A column with `jsonPath` named `JSONPath` (to v1beta1) or the other way round. */
function renameColumns(columns: unknown, from: 'jsonPath' | 'JSONPath', to: 'jsonPath' | 'JSONPath'): unknown {
  if (!Array.isArray(columns)) return columns;
  return columns.map((c: unknown) => {
    if (!c || typeof c !== 'object' || !(from in c)) return c;
    const out: Json = {};
    for (const [k, v] of Object.entries(c as Json)) out[k === from ? to : k] = v;
    return out;
  });
}

/** A deep copy of a JSON value. */
const jsonClone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** Set and meaningful: an empty column list says nothing (Go's omitempty drops it). */
const present = (v: unknown) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);

/** One v1 version in v1's field order, from a v1beta1 version and the top-level values. */
function versionToV1(v: Json, top: CrdV1beta1Spec): Json {
  const { schema, subresources, additionalPrinterColumns, ...rest } = v;
  const out: Json = { ...rest };
  const s = present(top.validation) ? top.validation : schema;
  const sub = present(top.subresources) ? top.subresources : subresources;
  const cols = present(top.additionalPrinterColumns) ? top.additionalPrinterColumns : additionalPrinterColumns;
  if (present(s)) out['schema'] = jsonClone(s);
  if (present(sub)) out['subresources'] = jsonClone(sub);
  if (present(cols)) out['additionalPrinterColumns'] = renameColumns(jsonClone(cols), 'JSONPath', 'jsonPath');
  return out;
}

function conversionToV1(c: Json | undefined): Json | undefined {
  if (!c) return c;
  const { webhookClientConfig, conversionReviewVersions, ...rest } = c;
  if (webhookClientConfig === undefined && conversionReviewVersions === undefined) return c;
  const webhook: Json = {};
  if (webhookClientConfig !== undefined) webhook['clientConfig'] = webhookClientConfig;
  if (conversionReviewVersions !== undefined) webhook['conversionReviewVersions'] = conversionReviewVersions;
  return { ...rest, webhook };
}

function conversionToV1beta1(c: Json | undefined): Json | undefined {
  if (!c || !('webhook' in c)) return c;
  const { webhook, ...rest } = c;
  const w = (webhook ?? {}) as Json;
  return {
    ...rest,
    ...(w['clientConfig'] !== undefined ? { webhookClientConfig: w['clientConfig'] } : {}),
    ...(w['conversionReviewVersions'] !== undefined ? { conversionReviewVersions: w['conversionReviewVersions'] } : {}),
  };
}

/** A v1beta1 CRD in the stored v1 form (apiVersion `apiVersion`). Does not change `obj`. */
export function crdV1beta1ToV1(obj: KubeObject, apiVersion: string): KubeObject {
  const spec = specOf(obj) as CrdV1beta1Spec | undefined;
  if (!spec) return { ...obj, apiVersion };
  const { version, versions, validation: _v, subresources: _s, additionalPrinterColumns: _c, conversion, preserveUnknownFields, ...rest } = spec;
  const listed = versions && versions.length > 0 ? versions : version ? [{ name: version, served: true, storage: true }] : undefined;
  const out: Json = { ...rest };
  if (listed) out['versions'] = listed.map((v) => versionToV1(v, spec));
  if (conversion !== undefined) out['conversion'] = conversionToV1(conversion);
  // v1's field is a plain boolean that leaves out false.
  if (preserveUnknownFields !== undefined && preserveUnknownFields !== false) out['preserveUnknownFields'] = preserveUnknownFields;
  return { ...obj, apiVersion, spec: out };
}

/**
 * A stored v1 CRD in v1beta1's form: `version` is the first version's name, and each per-version
 * field all versions hold alike moves to the top. Does not change `obj`.
 */
export function crdV1ToV1beta1(obj: KubeObject, apiVersion: string): KubeObject {
  const spec = specOf(obj);
  if (!spec) return { ...obj, apiVersion };
  const { group, names, scope, versions, conversion, ...rest } = spec as CrdV1beta1Spec;
  const vs = (versions ?? []).map((v) => ({ ...v }));
  const out: Json = {};
  if (group !== undefined) out['group'] = group;
  if (vs.length > 0) out['version'] = vs[0]!['name'];
  if (names !== undefined) out['names'] = names;
  if (scope !== undefined) out['scope'] = scope;
  const tops: Json = {};
  for (const f of PER_VERSION) {
    const first = vs[0]?.[f.own];
    const same = vs.length > 0 && present(first) && vs.every((v) => jsonEqual(v[f.own], first));
    if (!same) continue;
    tops[f.top] = f.top === 'additionalPrinterColumns' ? renameColumns(first, 'jsonPath', 'JSONPath') : first;
    for (const v of vs) delete v[f.own];
  }
  if (tops['validation'] !== undefined) out['validation'] = tops['validation'];
  if (tops['subresources'] !== undefined) out['subresources'] = tops['subresources'];
  if (versions !== undefined) {
    out['versions'] = vs.map((v) => ('additionalPrinterColumns' in v ? { ...v, additionalPrinterColumns: renameColumns(v['additionalPrinterColumns'], 'jsonPath', 'JSONPath') } : v));
  }
  if (tops['additionalPrinterColumns'] !== undefined) out['additionalPrinterColumns'] = tops['additionalPrinterColumns'];
  if (conversion !== undefined) out['conversion'] = conversionToV1beta1(conversion);
  Object.assign(out, rest);
  // v1 leaves out false; v1beta1's pointer says it.
  out['preserveUnknownFields'] ??= false;
  return { ...obj, apiVersion, spec: out };
}

/**
 * v1beta1's defaults (upstream's SetDefaults_CustomResourceDefinitionSpec): scope Namespaced,
 * versions from `version` and `version` from the first version, conversion None (webhook review
 * versions `[v1beta1]`), service port 443, and `preserveUnknownFields` true. Mutates `obj`.
 */
export function defaultCrdV1beta1(obj: KubeObject): void {
  const spec = ((obj as { spec?: CrdV1beta1Spec }).spec ??= {});
  spec['scope'] ??= 'Namespaced';
  const names = spec['names'] as Json | undefined;
  if (names && typeof names['kind'] === 'string') {
    if (!names['singular']) names['singular'] = names['kind'].toLowerCase();
    if (!names['listKind'] && names['kind']) names['listKind'] = `${names['kind']}List`;
  }
  if ((!spec.versions || spec.versions.length === 0) && spec.version) spec.versions = [{ name: spec.version, served: true, storage: true }];
  if (!spec.version && spec.versions && spec.versions.length > 0) spec.version = spec.versions[0]!['name'] as string;
  const conversion = (spec.conversion ??= { strategy: 'None' });
  if (conversion['strategy'] === 'Webhook' && !(Array.isArray(conversion['conversionReviewVersions']) && conversion['conversionReviewVersions'].length > 0)) {
    conversion['conversionReviewVersions'] = ['v1beta1'];
  }
  const service = (conversion['webhookClientConfig'] as { service?: Json } | undefined)?.service;
  if (service && typeof service === 'object') service['port'] ??= 443;
  spec['preserveUnknownFields'] ??= true;
}

/**
 * Upstream's checks of what only v1beta1 holds (made before conversion spreads the top-level
 * values): top-level and per-version fields exclude each other, per-version fields all set alike
 * belong on top, and `version` names the first version.
 */
export function validateCrdV1beta1(obj: KubeObject): FieldErrorList {
  const spec = specOf(obj) as CrdV1beta1Spec | undefined;
  if (!spec) return [];
  const errs: FieldErrorList = [];
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  for (const f of PER_VERSION) {
    const perVersion = versions.filter((v) => present(v[f.own]));
    if (present(spec[f.top]) && perVersion.length > 0) {
      errs.push(forbidden(`spec.${f.top}`, `top-level and per-version ${f.what} are mutually exclusive`));
    }
    const first = versions[0]?.[f.own];
    if (versions.length > 0 && perVersion.length === versions.length && versions.every((v) => jsonEqual(v[f.own], first))) {
      errs.push(invalid('spec.versions', versions, `per-version ${f.what} may not all be set to identical values (top-level ${f.top} should be used instead)`));
    }
  }
  if (spec.version) {
    if (spec.version.length > 63) errs.push(invalid('spec.version', spec.version, 'must be no more than 63 characters'));
    else if (!DNS1035_LABEL.test(spec.version)) errs.push(invalid('spec.version', spec.version, "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"));
    if (versions.length > 0 && versions[0]!['name'] !== spec.version) errs.push(invalid('spec.version', spec.version, 'must match the first version in spec.versions'));
  }
  return errs;
}
