import type { ResourceRegistration } from '../../../registry/registration.js';
import { configMapStrategy } from './strategy.js';

/** core/v1 configmaps. */
export const configMaps: ResourceRegistration = {
  info: {
    group: '',
    version: 'v1',
    resource: 'configmaps',
    singularName: 'configmap',
    kind: 'ConfigMap',
    listKind: 'ConfigMapList',
    namespaced: true,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['cm'],
    definitionName: 'io.k8s.api.core.v1.ConfigMap',
  },
  strategy: configMapStrategy,
};
