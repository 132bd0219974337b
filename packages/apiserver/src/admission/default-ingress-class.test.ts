import type { KubeObject } from '@cluster/apimachinery';
import { defaultIngressClassAdmission, defaultIngressClassFor } from './default-ingress-class.js';
import type { AdmissionAttributes } from './admission.js';
import type { ResourceInfo } from '../registry/resource-info.js';

const cls = (name: string, isDefault?: string): KubeObject => ({
  metadata: { name, ...(isDefault !== undefined ? { annotations: { 'ingressclass.kubernetes.io/is-default-class': isDefault } } : {}) },
});
const ing = (spec: Record<string, unknown> = {}, annotations?: Record<string, string>) => ({ metadata: { name: 'i', ...(annotations ? { annotations } : {}) }, spec });

describe('defaultIngressClassFor (upstream DefaultIngressClass, v1.24)', () => {
  test.each([
    ['no classes', ing(), [], {}],
    ['no default class', ing(), [cls('a'), cls('b', 'false')], {}],
    ['one default class', ing(), [cls('a'), cls('nginx', 'true')], { className: 'nginx' }],
    ['a class already named', ing({ ingressClassName: 'mine' }), [cls('nginx', 'true')], {}],
    ['the legacy class annotation', ing({}, { 'kubernetes.io/ingress.class': 'mine' }), [cls('nginx', 'true')], {}],
    ['two default classes', ing(), [cls('a', 'true'), cls('b', 'true')], { error: '2 default IngressClasses were found, only 1 allowed' }],
  ])('%s', (_name, ingress, classes, expected) => {
    expect(defaultIngressClassFor(ingress, classes)).toEqual(expected);
  });
});

describe('defaultIngressClassAdmission', () => {
  const resource = { group: 'networking.k8s.io', resource: 'ingresses' } as ResourceInfo;
  const attrs = (object: KubeObject, operation: AdmissionAttributes['operation'] = 'CREATE'): AdmissionAttributes => ({
    operation,
    resource,
    subresource: '',
    namespace: 'default',
    name: 'i',
    object,
    dryRun: false,
  });

  test('sets the default class on create only', async () => {
    const plugin = defaultIngressClassAdmission('networking.k8s.io', async () => [cls('nginx', 'true')]);
    const created = ing() as KubeObject;
    await plugin.admit!(attrs(created));
    expect(created['spec']).toEqual({ ingressClassName: 'nginx' });
    const updated = ing() as KubeObject;
    await plugin.admit!(attrs(updated, 'UPDATE'));
    expect(updated['spec']).toEqual({});
  });

  test('two default classes make the create 403 Forbidden', async () => {
    const plugin = defaultIngressClassAdmission('networking.k8s.io', async () => [cls('a', 'true'), cls('b', 'true')]);
    await expect(plugin.admit!(attrs(ing() as KubeObject))).rejects.toMatchObject({
      status: { code: 403, reason: 'Forbidden', message: 'ingresses.networking.k8s.io "i" is forbidden: 2 default IngressClasses were found, only 1 allowed' },
    });
  });
});
