import type { ResourceRegistration } from '../../../registry/registration.js';
import { persistentVolumeClaimStrategy } from './strategy.js';

const DEFINITION = 'io.k8s.api.core.v1.PersistentVolumeClaim';

/** core/v1 persistentvolumeclaims (short name pvc) with the `status` subresource. */
export const persistentVolumeClaims: ResourceRegistration = {
  info: {
    group: '',
    version: 'v1',
    resource: 'persistentvolumeclaims',
    singularName: 'persistentvolumeclaim',
    kind: 'PersistentVolumeClaim',
    listKind: 'PersistentVolumeClaimList',
    namespaced: true,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['pvc'],
    subresources: [{ name: 'status', kind: 'PersistentVolumeClaim', verbs: ['get', 'patch', 'update'], definitionName: DEFINITION }],
    definitionName: DEFINITION,
  },
  strategy: persistentVolumeClaimStrategy,
};
