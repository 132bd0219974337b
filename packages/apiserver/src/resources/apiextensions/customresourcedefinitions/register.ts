import type { ResourceRegistration } from '../../../registry/registration.js';
import { APIEXTENSIONS_V1 } from '../schemas.js';
import { crdStrategy } from './strategy.js';

/** apiextensions/v1 customresourcedefinitions (+ status). */
export function customResourceDefinitions(apiDomain: string): ResourceRegistration {
  const group = `apiextensions.${apiDomain}`;
  return {
    info: {
      group,
      version: 'v1',
      resource: 'customresourcedefinitions',
      singularName: 'customresourcedefinition',
      kind: 'CustomResourceDefinition',
      listKind: 'CustomResourceDefinitionList',
      namespaced: false,
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
      subresources: [
        { name: 'status', kind: 'CustomResourceDefinition', verbs: ['get', 'patch', 'update'], definitionName: `${APIEXTENSIONS_V1}.CustomResourceDefinition` },
      ],
      definitionName: `${APIEXTENSIONS_V1}.CustomResourceDefinition`,
    },
    strategy: crdStrategy(apiDomain),
  };
}
