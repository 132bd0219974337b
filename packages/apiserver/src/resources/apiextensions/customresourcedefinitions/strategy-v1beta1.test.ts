import type { KubeObject } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { crdStrategy } from './strategy.js';
import { crdV1beta1Strategy } from './strategy-v1beta1.js';

const strategy = crdV1beta1Strategy(crdStrategy('k8s.io') as unknown as ResourceStrategy<KubeObject>, 'apiextensions.k8s.io/v1beta1', 'apiextensions.k8s.io/v1');
const column = (path: string) => ({ name: 'A', type: 'string', JSONPath: path });
const crd = (spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'apiextensions.k8s.io/v1beta1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: { group: 'example.com', names: { plural: 'widgets', kind: 'Widget' }, preserveUnknownFields: false, ...spec },
});
const fields = (obj: KubeObject) => {
  strategy.prepareForCreate(obj, {});
  return strategy.validate(obj).map((e) => e.field);
};

describe('apiextensions/v1beta1 CRD errors name the fields the request used', () => {
  test('a top-level schema\'s error is named once, under spec.validation, for all the versions it stands for', () => {
    const obj = crd({ validation: { openAPIV3Schema: { type: 'string' } }, versions: [{ name: 'v1', served: true, storage: true }, { name: 'v2', served: true, storage: false }] });
    expect(fields(obj)).toEqual(['spec.validation.openAPIV3Schema.type']);
  });

  test('a column\'s path is JSONPath, on top and per version', () => {
    expect(fields(crd({ version: 'v1', validation: { openAPIV3Schema: { type: 'object' } }, additionalPrinterColumns: [column('a')] }))).toEqual(['spec.additionalPrinterColumns[0].JSONPath']);
    const perVersion = crd({
      validation: { openAPIV3Schema: { type: 'object' } },
      versions: [
        { name: 'v1', served: true, storage: true, additionalPrinterColumns: [column('.a')] },
        { name: 'v2', served: true, storage: false, additionalPrinterColumns: [column('b')] },
      ],
    });
    expect(fields(perVersion)).toEqual(['spec.versions[1].additionalPrinterColumns[0].JSONPath']);
  });

  test('v1beta1\'s default preserveUnknownFields is refused by v1\'s rule', () => {
    const obj = crd({ version: 'v1', validation: { openAPIV3Schema: { type: 'object' } } });
    delete (obj['spec'] as Record<string, unknown>)['preserveUnknownFields'];
    expect(fields(obj)).toEqual(['spec.preserveUnknownFields']);
  });
});
