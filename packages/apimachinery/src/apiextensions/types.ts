import type { JsonValue, KubeObject } from '../meta/types.js';

/** A JSON Schema node of a CustomResourceDefinition version (apiextensions/v1 JSONSchemaProps). */
export interface JSONSchemaProps {
  type?: string;
  format?: string;
  description?: string;
  title?: string;
  default?: JsonValue;
  nullable?: boolean;
  enum?: JsonValue[];
  pattern?: string;
  maximum?: number;
  minimum?: number;
  exclusiveMaximum?: boolean;
  exclusiveMinimum?: boolean;
  multipleOf?: number;
  maxLength?: number;
  minLength?: number;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  example?: JsonValue;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: JsonValue[];
}

export interface CustomResourceDefinitionNames {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CustomResourceColumnDefinition {
  name?: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
}

export interface CustomResourceSubresources {
  status?: Record<string, never>;
  scale?: { specReplicasPath?: string; statusReplicasPath?: string; labelSelectorPath?: string };
}

export interface CustomResourceDefinitionVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: CustomResourceSubresources;
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
}

export interface CustomResourceDefinitionCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CustomResourceDefinitionSpec {
  group?: string;
  names?: CustomResourceDefinitionNames;
  scope?: string;
  versions?: CustomResourceDefinitionVersion[];
  conversion?: { strategy?: string; webhook?: JsonValue };
  preserveUnknownFields?: boolean;
}

export interface CustomResourceDefinitionStatus {
  conditions?: CustomResourceDefinitionCondition[];
  acceptedNames?: CustomResourceDefinitionNames;
  storedVersions?: string[];
}

/** apiextensions/v1 CustomResourceDefinition. */
export interface CustomResourceDefinition extends KubeObject {
  spec: CustomResourceDefinitionSpec;
  status?: CustomResourceDefinitionStatus;
}
