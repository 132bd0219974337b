import type { ResourceRegistration } from '../../../registry/registration.js';
import { persistentVolumeStrategy } from './strategy.js';

const DEFINITION = 'io.k8s.api.core.v1.PersistentVolume';

/** core/v1 persistentvolumes (cluster-scoped, short name pv) with the `status` subresource. */
export const persistentVolumes: ResourceRegistration = {
  info: {
    group: '',
    version: 'v1',
    resource: 'persistentvolumes',
    singularName: 'persistentvolume',
    kind: 'PersistentVolume',
    listKind: 'PersistentVolumeList',
    namespaced: false,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['pv'],
    subresources: [{ name: 'status', kind: 'PersistentVolume', verbs: ['get', 'patch', 'update'], definitionName: DEFINITION }],
    definitionName: DEFINITION,
  },
  strategy: persistentVolumeStrategy,
};
