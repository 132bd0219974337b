import {
  booleanProp,
  integerProp,
  listSchema,
  objectSchema,
  objectTypeMeta,
  refArrayProp,
  refProp,
  stringProp,
  META_V1,
  type GvkMarker,
} from '@cluster/apimachinery';
import type { Definitions } from '../../registry/resource-info.js';
import { apiRegistrationGroup } from './register.js';

const V1 = 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1';

/** OpenAPI definitions of apiregistration/v1 (APIService and its parts), with descriptions of our own. */
export function apiRegistrationDefinitions(apiDomain: string): Definitions {
  const gvk = (kind: string): GvkMarker => ({ group: apiRegistrationGroup(apiDomain), version: 'v1', kind });
  return {
    [`${V1}.ServiceReference`]: objectSchema('The Service in front of an extension API server.', {
      name: stringProp('Name of the service.'),
      namespace: stringProp('Namespace of the service.'),
      port: integerProp('Port of the service that serves the API; 443 by default.', 'int32'),
    }),
    [`${V1}.APIServiceCondition`]: objectSchema('One observed state of an APIService.', {
      lastTransitionTime: refProp(`${META_V1}.Time`, 'When the condition last changed status.'),
      message: stringProp('Human-readable details of the last transition.'),
      reason: stringProp('CamelCase reason of the last transition.'),
      status: stringProp('True, False or Unknown.'),
      type: stringProp('Type of the condition (Available).'),
    }, { required: ['type', 'status'] }),
    [`${V1}.APIServiceSpec`]: objectSchema('Where and how a group version is served.', {
      caBundle: stringProp('PEM CA bundle that verifies the extension server certificate.', { format: 'byte', 'x-kubernetes-list-type': 'atomic' }),
      group: stringProp('API group this APIService serves.'),
      groupPriorityMinimum: integerProp('Lowest priority of the group among all groups (higher first in discovery).', 'int32'),
      insecureSkipTLSVerify: booleanProp('Skips verifying the extension server certificate (discouraged).'),
      service: refProp(`${V1}.ServiceReference`, 'The Service in front of the extension server; empty when served locally.'),
      version: stringProp('API version this APIService serves.'),
      versionPriority: integerProp('Order of this version within its group (higher first).', 'int32'),
    }, { required: ['groupPriorityMinimum', 'versionPriority'] }),
    [`${V1}.APIServiceStatus`]: objectSchema('Observed state of an APIService.', {
      conditions: refArrayProp('Current conditions of the APIService.', `${V1}.APIServiceCondition`, {
        'x-kubernetes-list-map-keys': ['type'],
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-patch-merge-key': 'type',
        'x-kubernetes-patch-strategy': 'merge',
      }),
    }),
    [`${V1}.APIService`]: objectSchema('A group version and the server that serves it.', {
      ...objectTypeMeta(),
      spec: refProp(`${V1}.APIServiceSpec`, 'Where and how the group version is served.', { default: {} }),
      status: refProp(`${V1}.APIServiceStatus`, 'Whether the group version is available.', { default: {} }),
    }, { gvk: [gvk('APIService')] }),
    [`${V1}.APIServiceList`]: listSchema(`${V1}.APIService`, gvk('APIServiceList'), 'The APIService objects.'),
  };
}
