import type { KubeObject } from '@cluster/apimachinery';
import { crdV1beta1ToV1, crdV1ToV1beta1, defaultCrdV1beta1, validateCrdV1beta1 } from './v1beta1-conversion.js';

const V1 = 'apiextensions.k8s.io/v1';
const V1BETA1 = 'apiextensions.k8s.io/v1beta1';
const crd = (apiVersion: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion, kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' }, spec });
const schema = (prop: string) => ({ openAPIV3Schema: { type: 'object', properties: { [prop]: { type: 'string' } } } });
const names = { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' };

describe('apiextensions/v1beta1 CustomResourceDefinition conversion (upstream v1.24)', () => {
  test('top-level version, validation, subresources and columns become every version\'s own, and come back on top', () => {
    const old = crd(V1BETA1, {
      group: 'example.com',
      version: 'v1',
      names,
      scope: 'Namespaced',
      validation: schema('size'),
      subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
      versions: [
        { name: 'v1', served: true, storage: true },
        { name: 'v1alpha1', served: true, storage: false },
      ],
      additionalPrinterColumns: [{ name: 'Size', type: 'string', JSONPath: '.spec.size' }],
      conversion: { strategy: 'None' },
      preserveUnknownFields: false,
    });
    const v1 = crdV1beta1ToV1(old, V1);
    const perVersion = {
      schema: schema('size'),
      subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
      additionalPrinterColumns: [{ name: 'Size', type: 'string', jsonPath: '.spec.size' }],
    };
    expect(v1).toEqual(
      crd(V1, {
        group: 'example.com',
        names,
        scope: 'Namespaced',
        versions: [
          { name: 'v1', served: true, storage: true, ...perVersion },
          { name: 'v1alpha1', served: true, storage: false, ...perVersion },
        ],
        conversion: { strategy: 'None' },
      }),
    );
    expect(crdV1ToV1beta1(v1, V1BETA1)).toEqual(old);
  });

  test('per-version values that differ stay per version; those alike move to the top', () => {
    const v1 = crd(V1, {
      group: 'example.com',
      names,
      scope: 'Cluster',
      versions: [
        { name: 'v2', served: true, storage: true, schema: schema('a'), subresources: { status: {} } },
        { name: 'v1', served: true, storage: false, schema: schema('b'), subresources: { status: {} }, additionalPrinterColumns: [{ name: 'A', type: 'string', jsonPath: '.a' }] },
      ],
    });
    const old = crdV1ToV1beta1(v1, V1BETA1);
    expect(old['spec']).toEqual({
      group: 'example.com',
      version: 'v2',
      names,
      scope: 'Cluster',
      subresources: { status: {} },
      versions: [
        { name: 'v2', served: true, storage: true, schema: schema('a') },
        { name: 'v1', served: true, storage: false, schema: schema('b'), additionalPrinterColumns: [{ name: 'A', type: 'string', JSONPath: '.a' }] },
      ],
      preserveUnknownFields: false,
    });
    expect(crdV1beta1ToV1(old, V1)).toEqual(v1);
  });

  test('webhook conversion settings move between conversion and conversion.webhook', () => {
    const clientConfig = { url: 'https://example.com/convert' };
    const v1 = crdV1beta1ToV1(crd(V1BETA1, { conversion: { strategy: 'Webhook', webhookClientConfig: clientConfig, conversionReviewVersions: ['v1'] } }), V1);
    expect(v1['spec']).toEqual({ conversion: { strategy: 'Webhook', webhook: { clientConfig, conversionReviewVersions: ['v1'] } } });
    expect(crdV1ToV1beta1(v1, V1BETA1)['spec']).toEqual({
      conversion: { strategy: 'Webhook', webhookClientConfig: clientConfig, conversionReviewVersions: ['v1'] },
      preserveUnknownFields: false,
    });
  });

  test('v1beta1 defaults: scope, names, versions from version, conversion None, preserveUnknownFields true', () => {
    const obj = crd(V1BETA1, { group: 'example.com', version: 'v1', names: { plural: 'widgets', kind: 'Widget' } });
    defaultCrdV1beta1(obj);
    expect(obj['spec']).toEqual({
      group: 'example.com',
      version: 'v1',
      names,
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true }],
      conversion: { strategy: 'None' },
      preserveUnknownFields: true,
    });
    const withVersions = crd(V1BETA1, { versions: [{ name: 'v2' }, { name: 'v1' }], conversion: { strategy: 'Webhook', webhookClientConfig: { service: { namespace: 'ns', name: 'svc' } } } });
    defaultCrdV1beta1(withVersions);
    expect(withVersions['spec']).toMatchObject({ version: 'v2', conversion: { conversionReviewVersions: ['v1beta1'], webhookClientConfig: { service: { port: 443 } } } });
  });

  test.each([
    ['a top-level schema beside per-version ones', { validation: schema('a'), versions: [{ name: 'v1', schema: schema('b') }, { name: 'v2' }] }, 'spec.validation', 'top-level and per-version schemas are mutually exclusive'],
    ['top-level subresources beside per-version ones', { subresources: { status: {} }, versions: [{ name: 'v1', subresources: { status: {} } }, { name: 'v2' }] }, 'spec.subresources', 'top-level and per-version subresources are mutually exclusive'],
    ['identical per-version schemas', { versions: [{ name: 'v1', schema: schema('a') }, { name: 'v2', schema: schema('a') }] }, 'spec.versions', 'per-version schemas may not all be set to identical values (top-level validation should be used instead)'],
    ['a single version\'s own columns', { versions: [{ name: 'v1', additionalPrinterColumns: [{ name: 'A', type: 'string', JSONPath: '.a' }] }] }, 'spec.versions', 'per-version additionalPrinterColumns may not all be set to identical values'],
    ['a version other than the first', { version: 'v2', versions: [{ name: 'v1' }, { name: 'v2' }] }, 'spec.version', 'must match the first version in spec.versions'],
  ])('refused: %s', (_name, spec, field, detail) => {
    const errs = validateCrdV1beta1(crd(V1BETA1, spec));
    expect(errs.find((e) => e.field === field)?.detail).toContain(detail);
  });

  test('different per-version schemas are allowed', () => {
    expect(validateCrdV1beta1(crd(V1BETA1, { version: 'v1', versions: [{ name: 'v1', schema: schema('a') }, { name: 'v2', schema: schema('b') }] }))).toEqual([]);
  });
});
