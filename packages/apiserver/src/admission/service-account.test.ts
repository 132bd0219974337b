import type { KubeObject } from '@cluster/apimachinery';
import type { ResourceInfo } from '../registry/resource-info.js';
import type { AdmissionAttributes } from './admission.js';
import { defaultPodServiceAccount, serviceAccountAdmission } from './service-account.js';

type Pod = Parameters<typeof defaultPodServiceAccount>[0];
const D = 'example.org';

describe('defaultPodServiceAccount', () => {
  test.each<[string, Pod, Pod]>([
    ['none named: default', { spec: {} }, { spec: { serviceAccountName: 'default', serviceAccount: 'default' } }],
    ['empty name: default', { spec: { serviceAccountName: '' } }, { spec: { serviceAccountName: 'default', serviceAccount: 'default' } }],
    ['named: kept, alias filled', { spec: { serviceAccountName: 'builder' } }, { spec: { serviceAccountName: 'builder', serviceAccount: 'builder' } }],
    ['only the deprecated alias: taken as the name', { spec: { serviceAccount: 'legacy' } }, { spec: { serviceAccountName: 'legacy', serviceAccount: 'legacy' } }],
    ['mirror pod: untouched', { metadata: { annotations: { 'example.org/config.mirror': 'abc' } }, spec: {} }, { metadata: { annotations: { 'example.org/config.mirror': 'abc' } }, spec: {} }],
    ['another domain\'s mirror annotation: defaulted', { metadata: { annotations: { 'other.io/config.mirror': 'abc' } }, spec: {} }, { metadata: { annotations: { 'other.io/config.mirror': 'abc' } }, spec: { serviceAccountName: 'default', serviceAccount: 'default' } }],
    ['no spec: left for validation to report', {}, {}],
  ])('%s', (_name, pod, want) => {
    defaultPodServiceAccount(pod, D);
    expect(pod).toEqual(want);
  });
});

const info = (resource: string): ResourceInfo => ({
  group: '',
  version: 'v1',
  resource,
  singularName: resource.slice(0, -1),
  kind: 'X',
  listKind: 'XList',
  namespaced: true,
  verbs: ['create', 'update'],
  definitionName: 'X',
});
const object = (): KubeObject & { spec: Record<string, string> } => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} });

describe('serviceAccountAdmission', () => {
  test.each<[string, AdmissionAttributes['operation'], string, string, boolean]>([
    ['pod create', 'CREATE', 'pods', '', true],
    ['pod update: the name is not changed afterwards', 'UPDATE', 'pods', '', false],
    ['pod status update', 'UPDATE', 'pods', 'status', false],
    ['other resource', 'CREATE', 'configmaps', '', false],
  ])('%s', async (_name, operation, resource, subresource, defaulted) => {
    const obj = object();
    const attrs: AdmissionAttributes = { operation, resource: info(resource), subresource, namespace: 'ns', name: 'p', object: obj, dryRun: false };
    const plugin = serviceAccountAdmission(D);
    await plugin.admit!(attrs);
    await expect(plugin.validate(attrs)).resolves.toBeUndefined();
    expect(obj.spec.serviceAccountName).toBe(defaulted ? 'default' : undefined);
  });
});
