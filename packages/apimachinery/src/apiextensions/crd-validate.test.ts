import { fieldErrorMessage } from '../validation/field-error.js';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate } from './crd-validate.js';
import type { CustomResourceDefinition, CustomResourceDefinitionSpec } from './types.js';

const validSpec = (): CustomResourceDefinitionSpec => ({
  group: 'stable.example.com',
  scope: 'Namespaced',
  names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList' },
  versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
});
const crd = (change: (s: CustomResourceDefinitionSpec) => void = () => {}, name = 'crontabs.stable.example.com'): CustomResourceDefinition => {
  const spec = validSpec();
  change(spec);
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name }, spec };
};
const messages = (c: CustomResourceDefinition) => validateCustomResourceDefinition(c).map(fieldErrorMessage);
const withSchema = (s: CustomResourceDefinitionSpec, schema: object) => (s.versions![0]!.schema = { openAPIV3Schema: schema });

describe('validateCustomResourceDefinition', () => {
  test('a valid definition', () => expect(messages(crd())).toEqual([]));

  test.each<[string, CustomResourceDefinition, string]>([
    ['name not plural.group', crd(undefined, 'other.stable.example.com'), 'metadata.name: Invalid value: "other.stable.example.com": must be spec.names.plural+"."+spec.group'],
    ['group without a dot', crd((s) => (s.group = 'example'), 'crontabs.example'), 'spec.group: Invalid value: "example": should be a domain with at least one dot'],
    ['missing scope', crd((s) => delete s.scope), 'spec.scope: Required value'],
    ['bad scope', crd((s) => (s.scope = 'Global')), 'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'],
    ['upper-case plural', crd((s) => (s.names!.plural = 'CronTabs'), 'CronTabs.stable.example.com'), 'spec.names.plural: Invalid value: "CronTabs"'],
    ['missing kind', crd((s) => delete s.names!.kind), 'spec.names.kind: Required value'],
    ['kind equals listKind', crd((s) => (s.names!.listKind = 'CronTab')), 'spec.names.listKind: Invalid value: "CronTab": kind and listKind may not be the same'],
    ['no versions', crd((s) => (s.versions = [])), 'spec.versions: Required value'],
    ['two storage versions', crd((s) => s.versions!.push({ name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } })), 'must have exactly one version marked as storage version'],
    ['duplicate version names', crd((s) => s.versions!.push({ name: 'v1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object' } } })), 'spec.versions[1].name: Duplicate value: "v1"'],
    ['no schema', crd((s) => delete s.versions![0]!.schema), 'spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required'],
    ['root not an object', crd((s) => withSchema(s, { type: 'string' })), 'spec.versions[0].schema.openAPIV3Schema.type: Invalid value: "string": must be object at the root'],
    [
      'field without a type',
      crd((s) => withSchema(s, { type: 'object', properties: { spec: { properties: { a: { type: 'string' } } } } })),
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
    ],
    [
      'metadata with more than name',
      crd((s) => withSchema(s, { type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } })),
      'spec.versions[0].schema.openAPIV3Schema.properties[metadata]: Forbidden',
    ],
    [
      'list-type map without keys',
      crd((s) => withSchema(s, { type: 'object', properties: { l: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object' } } } })),
      'x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map',
    ],
    [
      'default of the wrong type',
      crd((s) => withSchema(s, { type: 'object', properties: { n: { type: 'integer', default: 'x' } } })),
      'properties[n].default: Invalid value: "x": must be of type integer',
    ],
    [
      'printer column of unknown type',
      crd((s) => (s.versions![0]!.additionalPrinterColumns = [{ name: 'X', type: 'color', jsonPath: '.spec.x' }])),
      'spec.versions[0].additionalPrinterColumns[0].type: Unsupported value: "color"',
    ],
    ['webhook conversion', crd((s) => (s.conversion = { strategy: 'Webhook' })), 'spec.conversion.strategy: Unsupported value: "Webhook"'],
  ])('%s', (_name, c, expected) => {
    expect(messages(c).join('\n')).toContain(expected);
  });

  test('group and scope are immutable', () => {
    const old = crd();
    const next = crd((s) => (s.scope = 'Cluster'));
    expect(validateCustomResourceDefinitionUpdate(next, old).map(fieldErrorMessage)).toEqual(['spec.scope: Invalid value: "Cluster": field is immutable']);
  });
});
