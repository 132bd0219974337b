import type { ResourceRegistration } from '../../../registry/registration.js';
import { podTemplateStrategy } from './strategy.js';

/** core/v1 podtemplates. */
export const podTemplates: ResourceRegistration = {
  info: {
    group: '',
    version: 'v1',
    resource: 'podtemplates',
    singularName: 'podtemplate',
    kind: 'PodTemplate',
    listKind: 'PodTemplateList',
    namespaced: true,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    definitionName: 'io.k8s.api.core.v1.PodTemplate',
  },
  strategy: podTemplateStrategy as ResourceRegistration['strategy'],
};
