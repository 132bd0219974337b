import {
  arrayProp,
  booleanProp,
  integerProp,
  listSchema,
  mapProp,
  objectSchema,
  objectTypeMeta,
  refArrayProp,
  refProp,
  stringArrayProp,
  stringProp,
  META_V1,
  type GvkMarker,
  type JsonObject,
} from '@cluster/apimachinery';
import type { Definitions } from '../../registry/resource-info.js';

export const APIEXTENSIONS_V1 = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';
/** autoscaling/v1 Scale, the kind of custom resources' scale subresource (defined with the autoscaling group). */
export const SCALE_DEFINITION = 'io.k8s.api.autoscaling.v1.Scale';
const d = (name: string) => `${APIEXTENSIONS_V1}.${name}`;
const FREE: JsonObject = { description: 'Any JSON value.' };

/** OpenAPI definitions of apiextensions/v1 (CustomResourceDefinition), the group under `apiDomain`. */
export function apiextensionsDefinitions(apiDomain: string): Definitions {
  const gvk = (kind: string): GvkMarker => ({ group: `apiextensions.${apiDomain}`, version: 'v1', kind });
  const schemaRef = (description: string) => refProp(d('JSONSchemaProps'), description);
  return {
    [d('CustomResourceDefinition')]: objectSchema(
      'Describes a custom resource type the server serves under its own group, versions and names.',
      {
        ...objectTypeMeta(),
        spec: refProp(d('CustomResourceDefinitionSpec'), 'The resource type being defined.'),
        status: refProp(d('CustomResourceDefinitionStatus'), 'What the server has accepted and established.'),
      },
      { gvk: [gvk('CustomResourceDefinition')], required: ['spec'] },
    ),
    [d('CustomResourceDefinitionList')]: listSchema(d('CustomResourceDefinition'), gvk('CustomResourceDefinitionList'), 'The CustomResourceDefinitions.'),
    [d('CustomResourceDefinitionSpec')]: objectSchema(
      'The group, names, scope and versions of a custom resource type.',
      {
        group: stringProp('API group of the resources, a domain such as stable.example.com.'),
        names: refProp(d('CustomResourceDefinitionNames'), 'Names the resources are served under.'),
        scope: stringProp('Cluster or Namespaced.'),
        versions: refArrayProp('Versions served; exactly one is the storage version.', d('CustomResourceDefinitionVersion'), {
          'x-kubernetes-list-type': 'atomic',
        }),
        conversion: refProp(d('CustomResourceConversion'), 'How objects are converted between versions.'),
        preserveUnknownFields: booleanProp('Deprecated; must be false. Use x-kubernetes-preserve-unknown-fields in schemas.'),
      },
      { required: ['group', 'names', 'scope', 'versions'] },
    ),
    [d('CustomResourceConversion')]: objectSchema('Conversion between versions.', {
      strategy: stringProp('None: only apiVersion is rewritten.'),
      webhook: { type: 'object', description: 'Webhook conversion settings (not supported by this server).' },
    }),
    [d('CustomResourceDefinitionNames')]: objectSchema(
      'Names of a custom resource type.',
      {
        plural: stringProp('Plural resource name used in URLs; lower case.'),
        singular: stringProp('Singular name, an alias on the command line; lower case.'),
        kind: stringProp('Kind of the objects, in CamelCase.'),
        listKind: stringProp('Kind of lists of the objects; defaults to kind + "List".'),
        shortNames: stringArrayProp('Short aliases on the command line.', { 'x-kubernetes-list-type': 'atomic' }),
        categories: stringArrayProp('Groups of resources this one belongs to, such as all.', { 'x-kubernetes-list-type': 'atomic' }),
      },
      { required: ['plural', 'kind'] },
    ),
    [d('CustomResourceDefinitionVersion')]: objectSchema(
      'One version of a custom resource type.',
      {
        name: stringProp('Version name, served at /apis/<group>/<version>.'),
        served: booleanProp('Whether this version is served.'),
        storage: booleanProp('Whether objects are stored in this version; exactly one version is.'),
        deprecated: booleanProp('Whether requests to this version get a deprecation warning.'),
        deprecationWarning: stringProp('The warning sent instead of the default one.'),
        schema: refProp(d('CustomResourceValidation'), 'Schema of objects of this version.'),
        subresources: refProp(d('CustomResourceSubresources'), 'Subresources served for this version.'),
        additionalPrinterColumns: refArrayProp('Extra Table columns.', d('CustomResourceColumnDefinition'), {
          'x-kubernetes-list-type': 'atomic',
        }),
      },
      { required: ['name', 'served', 'storage'] },
    ),
    [d('CustomResourceValidation')]: objectSchema('Schema of a version.', {
      openAPIV3Schema: schemaRef('OpenAPI v3 schema of the objects.'),
    }),
    [d('CustomResourceSubresources')]: objectSchema('Subresources of a version.', {
      status: { type: 'object', description: 'Serve the status subresource: status changes only through it.' },
      scale: refProp(d('CustomResourceSubresourceScale'), 'Serve the scale subresource.'),
    }),
    [d('CustomResourceSubresourceScale')]: objectSchema(
      'Where the scale subresource reads and writes replicas.',
      {
        specReplicasPath: stringProp('JSON path of the desired replicas, under .spec.'),
        statusReplicasPath: stringProp('JSON path of the observed replicas, under .status.'),
        labelSelectorPath: stringProp('JSON path of the label selector in string form.'),
      },
      { required: ['specReplicasPath', 'statusReplicasPath'] },
    ),
    [d('CustomResourceColumnDefinition')]: objectSchema(
      'A Table column of a custom resource.',
      {
        name: stringProp('Column header.'),
        type: stringProp('integer, number, string, boolean or date.'),
        format: stringProp('Optional format hint of the column.'),
        description: stringProp('What the column shows.'),
        priority: integerProp('0 shows the column by default; higher only in wide output.', 'int32'),
        jsonPath: stringProp('Simple JSON path evaluated against each object.'),
      },
      { required: ['name', 'type', 'jsonPath'] },
    ),
    [d('CustomResourceDefinitionStatus')]: objectSchema('What the server accepted for a definition.', {
      conditions: refArrayProp('NamesAccepted, Established, Terminating.', d('CustomResourceDefinitionCondition'), {
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
      acceptedNames: refProp(d('CustomResourceDefinitionNames'), 'Names actually served.'),
      storedVersions: stringArrayProp('Versions objects have ever been stored in.', { 'x-kubernetes-list-type': 'atomic' }),
    }),
    [d('CustomResourceDefinitionCondition')]: objectSchema(
      'A condition of a definition.',
      {
        type: stringProp('Condition type.'),
        status: stringProp('True, False or Unknown.'),
        lastTransitionTime: refProp(`${META_V1}.Time`, 'When the status last changed.'),
        reason: stringProp('Machine-readable reason.'),
        message: stringProp('Human-readable detail.'),
      },
      { required: ['type', 'status'] },
    ),
    [d('JSONSchemaProps')]: objectSchema('A JSON Schema (OpenAPI v3 subset) node.', {
      id: stringProp(''),
      $schema: stringProp(''),
      $ref: stringProp(''),
      description: stringProp(''),
      type: stringProp(''),
      format: stringProp(''),
      title: stringProp(''),
      default: FREE,
      maximum: { type: 'number', format: 'double', description: '' },
      exclusiveMaximum: booleanProp(''),
      minimum: { type: 'number', format: 'double', description: '' },
      exclusiveMinimum: booleanProp(''),
      maxLength: integerProp('', 'int64'),
      minLength: integerProp('', 'int64'),
      pattern: stringProp(''),
      maxItems: integerProp('', 'int64'),
      minItems: integerProp('', 'int64'),
      uniqueItems: booleanProp(''),
      multipleOf: { type: 'number', format: 'double', description: '' },
      enum: arrayProp('', FREE),
      maxProperties: integerProp('', 'int64'),
      minProperties: integerProp('', 'int64'),
      required: stringArrayProp(''),
      items: FREE,
      allOf: refArrayProp('', d('JSONSchemaProps')),
      oneOf: refArrayProp('', d('JSONSchemaProps')),
      anyOf: refArrayProp('', d('JSONSchemaProps')),
      not: schemaRef(''),
      properties: mapProp('', { $ref: `#/definitions/${d('JSONSchemaProps')}` }),
      additionalProperties: FREE,
      patternProperties: mapProp('', { $ref: `#/definitions/${d('JSONSchemaProps')}` }),
      dependencies: mapProp('', FREE),
      additionalItems: FREE,
      definitions: mapProp('', { $ref: `#/definitions/${d('JSONSchemaProps')}` }),
      externalDocs: { type: 'object', properties: { description: stringProp(''), url: stringProp('') } },
      example: FREE,
      nullable: booleanProp(''),
      'x-kubernetes-preserve-unknown-fields': booleanProp(''),
      'x-kubernetes-embedded-resource': booleanProp(''),
      'x-kubernetes-int-or-string': booleanProp(''),
      'x-kubernetes-list-map-keys': stringArrayProp(''),
      'x-kubernetes-list-type': stringProp(''),
      'x-kubernetes-map-type': stringProp(''),
      'x-kubernetes-validations': arrayProp('', FREE),
    }),
  };
}
