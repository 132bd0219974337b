import { invalid, notSupported, required, forbidden, duplicate, type FieldErrorList } from '../validation/field-error.js';
import { isDNS1123Subdomain } from '../validation/name-rules.js';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion, JSONSchemaProps } from './types.js';

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_MESSAGE =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const COLUMN_TYPES = ['integer', 'number', 'string', 'boolean', 'date'];
const LIST_TYPES = ['atomic', 'set', 'map'];

function dns1035(value: string, path: string, errs: FieldErrorList): void {
  if (value.length > 63) errs.push(invalid(path, value, 'must be no more than 63 characters'));
  else if (!DNS1035_LABEL.test(value)) errs.push(invalid(path, value, DNS1035_MESSAGE));
}

/**
 * Validates a CustomResourceDefinition on create, after upstream's apiextensions validation: the
 * name is `<plural>.<group>`, the group a domain with a dot, names DNS-1035 labels, the scope
 * Cluster or Namespaced, versions unique with exactly one storage version, every version with a
 * structural schema, printer columns and subresource paths well formed.
 */
export function validateCustomResourceDefinition(crd: CustomResourceDefinition): FieldErrorList {
  const errs: FieldErrorList = [];
  const spec = crd.spec ?? {};
  const group = spec.group ?? '';
  const plural = spec.names?.plural ?? '';
  if (crd.metadata.name !== `${plural}.${group}`) {
    errs.push(invalid('metadata.name', crd.metadata.name ?? '', 'must be spec.names.plural+"."+spec.group'));
  }
  if (!group) errs.push(required('spec.group'));
  else {
    for (const m of isDNS1123Subdomain(group)) errs.push(invalid('spec.group', group, m));
    if (!group.includes('.')) errs.push(invalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  errs.push(...validateNames(spec.names ?? {}, 'spec.names'));
  if (!spec.scope) errs.push(required('spec.scope'));
  else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') errs.push(notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  const strategy = spec.conversion?.strategy ?? 'None';
  if (strategy !== 'None') errs.push(notSupported('spec.conversion.strategy', strategy, ['None']));
  if (spec.preserveUnknownFields === true) {
    errs.push(invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  }
  errs.push(...validateVersions(spec.versions ?? []));
  return errs;
}

/** Update rules on top of {@link validateCustomResourceDefinition}: group and scope never change. */
export function validateCustomResourceDefinitionUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): FieldErrorList {
  const errs = validateCustomResourceDefinition(crd);
  if (crd.spec?.group !== old.spec?.group) errs.push(invalid('spec.group', crd.spec?.group ?? '', 'field is immutable'));
  if (crd.spec?.scope !== old.spec?.scope) errs.push(invalid('spec.scope', crd.spec?.scope ?? '', 'field is immutable'));
  const storage = crd.spec?.versions?.find((v) => v.storage)?.name;
  for (const [i, stored] of (crd.status?.storedVersions ?? []).entries()) {
    if (stored !== storage && !crd.spec?.versions?.some((v) => v.name === stored)) {
      errs.push(invalid(`status.storedVersions[${i}]`, stored, 'must appear in spec.versions'));
    }
  }
  return errs;
}

function validateNames(names: NonNullable<CustomResourceDefinition['spec']['names']>, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (!names.plural) errs.push(required(`${path}.plural`));
  else dns1035(names.plural, `${path}.plural`, errs);
  if (names.singular) dns1035(names.singular, `${path}.singular`, errs);
  if (!names.kind) errs.push(required(`${path}.kind`));
  else dns1035(names.kind.toLowerCase(), `${path}.kind`, errs);
  if (!names.listKind) errs.push(required(`${path}.listKind`));
  else {
    dns1035(names.listKind.toLowerCase(), `${path}.listKind`, errs);
    if (names.listKind === names.kind) errs.push(invalid(`${path}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  }
  (names.shortNames ?? []).forEach((s, i) => dns1035(s, `${path}.shortNames[${i}]`, errs));
  (names.categories ?? []).forEach((s, i) => dns1035(s, `${path}.categories[${i}]`, errs));
  return errs;
}

function validateVersions(versions: CustomResourceDefinitionVersion[]): FieldErrorList {
  const errs: FieldErrorList = [];
  if (versions.length === 0) {
    errs.push(required('spec.versions', 'must have exactly one version marked as storage version'));
    return errs;
  }
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    const path = `spec.versions[${i}]`;
    if (!v.name) errs.push(required(`${path}.name`));
    else {
      dns1035(v.name, `${path}.name`, errs);
      if (seen.has(v.name)) errs.push(duplicate(`${path}.name`, v.name));
      seen.add(v.name);
    }
    const schema = v.schema?.openAPIV3Schema;
    if (!schema) errs.push(required(`${path}.schema.openAPIV3Schema`, 'schemas are required'));
    else errs.push(...validateStructuralRoot(schema, `${path}.schema.openAPIV3Schema`));
    (v.additionalPrinterColumns ?? []).forEach((c, j) => {
      const cp = `${path}.additionalPrinterColumns[${j}]`;
      if (!c.name) errs.push(required(`${cp}.name`));
      if (!c.type) errs.push(required(`${cp}.type`));
      else if (!COLUMN_TYPES.includes(c.type)) errs.push(notSupported(`${cp}.type`, c.type, COLUMN_TYPES));
      if (!c.jsonPath) errs.push(required(`${cp}.jsonPath`));
      else if (!c.jsonPath.startsWith('.')) errs.push(invalid(`${cp}.jsonPath`, c.jsonPath, 'must be a simple json path starting with .'));
      if (c.priority !== undefined && c.priority < 0) errs.push(invalid(`${cp}.priority`, c.priority, 'must be greater than or equal to 0'));
    });
    const scale = v.subresources?.scale;
    if (scale) {
      const sp = `${path}.subresources.scale`;
      if (!scale.specReplicasPath) errs.push(required(`${sp}.specReplicasPath`));
      else if (!scale.specReplicasPath.startsWith('.spec.')) errs.push(invalid(`${sp}.specReplicasPath`, scale.specReplicasPath, 'should be a json path under .spec'));
      if (!scale.statusReplicasPath) errs.push(required(`${sp}.statusReplicasPath`));
      else if (!scale.statusReplicasPath.startsWith('.status.')) errs.push(invalid(`${sp}.statusReplicasPath`, scale.statusReplicasPath, 'should be a json path under .status'));
    }
  });
  const storage = versions.filter((v) => v.storage).length;
  if (storage !== 1) errs.push(invalid('spec.versions', versions.map((v) => v.name ?? ''), 'must have exactly one version marked as storage version'));
  if (!versions.some((v) => v.served)) errs.push(invalid('spec.versions', versions.map((v) => v.name ?? ''), 'must have at least one version marked as served'));
  return errs;
}

/** The root of a version schema: an object, whose metadata may only restrict name and generateName. */
function validateStructuralRoot(schema: JSONSchemaProps, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (schema.type !== 'object') errs.push(invalid(`${path}.type`, schema.type ?? '', 'must be object at the root'));
  const metadata = schema.properties?.['metadata'];
  if (metadata) {
    const extra = Object.keys(metadata.properties ?? {}).filter((k) => k !== 'name' && k !== 'generateName');
    if (extra.length) errs.push(forbidden(`${path}.properties[metadata]`, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
    if (metadata.type && metadata.type !== 'object') errs.push(invalid(`${path}.properties[metadata].type`, metadata.type, 'must be object'));
  }
  errs.push(...validateStructural(schema, path, true));
  return errs;
}

const SCHEMA_TYPES = ['object', 'array', 'string', 'integer', 'number', 'boolean'];

/**
 * Structural rules (upstream's "structural schema"): every node states its type (except under
 * preserve-unknown-fields or int-or-string), items is one schema, additionalProperties and
 * properties are exclusive, list-type markers are consistent, and the logical junctors do not
 * introduce types or structure.
 */
export function validateStructural(s: JSONSchemaProps, path: string, root = false): FieldErrorList {
  const errs: FieldErrorList = [];
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (s.type === undefined) {
    if (!intOrString && !preserve && !root) errs.push(required(`${path}.type`, 'must not be empty for specified object fields'));
  } else if (!SCHEMA_TYPES.includes(s.type)) {
    errs.push(notSupported(`${path}.type`, s.type, SCHEMA_TYPES));
  }
  if (intOrString && s.type !== undefined) errs.push(invalid(`${path}.type`, s.type, 'must be empty if x-kubernetes-int-or-string is true'));
  if (s['x-kubernetes-embedded-resource'] && s.type !== 'object') errs.push(invalid(`${path}.type`, s.type ?? '', 'must be object if x-kubernetes-embedded-resource is true'));
  if (s['x-kubernetes-preserve-unknown-fields'] === false) errs.push(invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  if (s.properties && s.additionalProperties !== undefined && s.additionalProperties !== false) {
    errs.push(forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
  }
  if (s.type === 'array' && !s.items) errs.push(required(`${path}.items`, 'must be specified'));
  const listType = s['x-kubernetes-list-type'];
  if (listType !== undefined) {
    if (!LIST_TYPES.includes(listType)) errs.push(notSupported(`${path}.x-kubernetes-list-type`, listType, LIST_TYPES));
    if (s.type !== 'array') errs.push(invalid(`${path}.type`, s.type ?? '', 'must be array if x-kubernetes-list-type is specified'));
    if (listType === 'map') {
      const keys = s['x-kubernetes-list-map-keys'] ?? [];
      if (keys.length === 0) errs.push(required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
      if (s.items?.type !== 'object') errs.push(invalid(`${path}.items.type`, s.items?.type ?? '', 'must be object for an array of list-type map'));
      for (const k of keys) {
        if (!s.items?.properties?.[k]) errs.push(invalid(`${path}.x-kubernetes-list-map-keys`, keys, `entries must all be names of item properties`));
      }
    }
  } else if (s['x-kubernetes-list-map-keys'] !== undefined) {
    errs.push(forbidden(`${path}.x-kubernetes-list-map-keys`, 'must only be used if x-kubernetes-list-type is map'));
  }
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') errs.push(notSupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
  for (const [k, v] of Object.entries(s.properties ?? {})) errs.push(...validateStructural(v, `${path}.properties[${k}]`));
  if (typeof s.additionalProperties === 'object') errs.push(...validateStructural(s.additionalProperties, `${path}.additionalProperties`));
  if (s.items) errs.push(...validateStructural(s.items, `${path}.items`));
  const junctors: [string, JSONSchemaProps[]][] = [
    ['allOf', s.allOf ?? []],
    ['anyOf', s.anyOf ?? []],
    ['oneOf', s.oneOf ?? []],
    ['not', s.not ? [s.not] : []],
  ];
  for (const [name, subs] of junctors) {
    subs.forEach((sub, i) => {
      const p = name === 'not' ? `${path}.not` : `${path}.${name}[${i}]`;
      if (sub.type !== undefined) errs.push(forbidden(`${p}.type`, 'must be empty to be structural'));
      if (sub.default !== undefined) errs.push(forbidden(`${p}.default`, 'must be undefined to be structural'));
      if (sub.additionalProperties !== undefined) errs.push(forbidden(`${p}.additionalProperties`, 'must be undefined to be structural'));
    });
  }
  if (s.default !== undefined && s.type !== undefined) {
    const typeOk =
      s.default === null
        ? s.nullable === true
        : s.type === 'object'
          ? typeof s.default === 'object' && !Array.isArray(s.default)
          : s.type === 'array'
            ? Array.isArray(s.default)
            : s.type === 'integer'
              ? Number.isInteger(s.default)
              : s.type === 'number'
                ? typeof s.default === 'number'
                : typeof s.default === s.type;
    if (!typeOk) errs.push(invalid(`${path}.default`, s.default, `must be of type ${s.type}`));
  }
  return errs;
}
