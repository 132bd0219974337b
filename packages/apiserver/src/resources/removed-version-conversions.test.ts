import type { KubeObject } from '@cluster/apimachinery';
import { sliceV1beta1ToV1, sliceV1ToV1beta1 } from './discovery/endpointslices/v1beta1-conversion.js';
import { ingressV1beta1ToV1, ingressV1ToV1beta1 } from './networking/ingresses/v1beta1-conversion.js';
import { pdbV1beta1ToV1, pdbV1ToV1beta1 } from './policy/poddisruptionbudgets/v1beta1-conversion.js';

const obj = (kind: string, fields: Record<string, unknown>): KubeObject => ({ apiVersion: 'x/v1beta1', kind, metadata: { name: 'n' }, ...fields });
const KEY = 'pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match';

describe('removed-version conversions (upstream v1.24)', () => {
  test.each([
    ['{} selects none in v1beta1', {}, { matchExpressions: [{ key: KEY, operator: 'Exists' }] }],
    ['the v1beta1 match-all selector is v1 {}', { matchExpressions: [{ key: KEY, operator: 'DoesNotExist' }] }, {}],
    ['the reserved key never mixes with a user selector', { matchLabels: { a: 'b' }, matchExpressions: [{ key: KEY, operator: 'Exists' }] }, { matchLabels: { a: 'b' } }],
    ['a plain selector is kept', { matchLabels: { a: 'b' } }, { matchLabels: { a: 'b' } }],
  ])('PodDisruptionBudget: %s', (_name, selector, v1Selector) => {
    const v1 = pdbV1beta1ToV1(obj('PodDisruptionBudget', { spec: { selector } }), 'policy/v1') as KubeObject & { spec: { selector: unknown } };
    expect(v1.spec.selector).toEqual(v1Selector);
  });

  test('PodDisruptionBudget: v1 {} and v1beta1 {} survive a round trip through the other version', () => {
    const back = (s: unknown) => (pdbV1ToV1beta1(pdbV1beta1ToV1(obj('PodDisruptionBudget', { spec: { selector: s } }), 'policy/v1'), 'policy/v1beta1') as KubeObject & { spec: unknown }).spec;
    expect(back({})).toEqual({ selector: {} });
    const v1All = pdbV1ToV1beta1(obj('PodDisruptionBudget', { spec: { selector: {} } }), 'policy/v1beta1');
    expect((pdbV1beta1ToV1(v1All, 'policy/v1') as KubeObject & { spec: unknown }).spec).toEqual({ selector: {} });
  });

  test('Ingress: backend, serviceName and servicePort (number or name) both ways', () => {
    const v1beta1 = obj('Ingress', {
      spec: { backend: { serviceName: 'def', servicePort: 80 }, rules: [{ http: { paths: [{ path: '/', pathType: 'Prefix', backend: { serviceName: 'api', servicePort: 'http' } }] } }] },
    });
    const v1 = ingressV1beta1ToV1(v1beta1, 'networking.k8s.io/v1');
    expect(v1['spec']).toEqual({
      defaultBackend: { service: { name: 'def', port: { number: 80 } } },
      rules: [{ http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'api', port: { name: 'http' } } } }] } }],
    });
    expect(ingressV1ToV1beta1(v1, 'x/v1beta1')).toEqual(v1beta1);
  });

  test('EndpointSlice: topology is zone, nodeName and deprecatedTopology; a hostname other than nodeName is kept', () => {
    const topology = { 'topology.kubernetes.io/zone': 'a', 'kubernetes.io/hostname': 'other', rack: 'r1' };
    const v1 = sliceV1beta1ToV1(obj('EndpointSlice', { endpoints: [{ addresses: ['10.0.0.1'], nodeName: 'node-1', topology }] }), 'discovery.k8s.io/v1');
    expect(v1['endpoints']).toEqual([{ addresses: ['10.0.0.1'], nodeName: 'node-1', zone: 'a', deprecatedTopology: { 'kubernetes.io/hostname': 'other', rack: 'r1' } }]);
    expect(sliceV1ToV1beta1(v1, 'x/v1beta1')['endpoints']).toEqual([{ addresses: ['10.0.0.1'], nodeName: 'node-1', topology }]);
  });
});
