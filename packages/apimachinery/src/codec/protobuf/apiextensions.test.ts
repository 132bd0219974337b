import { decodeProtobufObject, encodeProtobufObject } from './index.js';

// A CustomResourceDefinition encoded by upstream's own code (apiextensions-apiserver v1 types and
// the runtime Protobuf serializer, v1.24) from the JSON below: it exercises the JSON-shaped
// wrappers (a JSON default and enum with a null, a schema-or-array list, a schema-or-bool false, a
// schema-or-string-array list) and the JSON names that are not field names ($ref, x-kubernetes-*).
const UPSTREAM_HEX =
  '6b3873000a330a17617069657874656e73696f6e732e6b38732e696f2f76311218437573746f6d5265736f75726365446566696e6974696f6e129b030a260a146469616c732e70622e6578616d706c652e636f6d12001a0022002a003200380042007a0012e4020a0e70622e6578616d706c652e636f6d1a110a056469616c73120022044469616c2a002207436c75737465723ab3020a0276311001180122a6020aa3020a00120022002a066f626a65637432003a00500060007a00900100ea012e0a016412290a00120022002a0032003a00500060007a009001008202080a01701203120171a80200b80200c00200ea01310a016d122c0a00120022002a066f626a65637432003a00500060007a00900100f201020800a80200b00201b80200c00200ea01440a016e123f0a00120022002a066e756d62657232003a0042050a03312e35490000000000002240500060007a00900100a201050a03312e35a20100a80200b80200c00200ea01500a0174124b0a00120022002a05617272617932003a00500060007a00900100c2012512230a0012001a03232f6122002a0032003a00500060007a00900100a80200b80200c00200a80200b80200c00200a80200b80200c00200380050001a0a12080a00120022002a001a002200';

const JSON_FORM = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'dials.pb.example.com' },
  spec: {
    group: 'pb.example.com',
    names: { plural: 'dials', kind: 'Dial' },
    scope: 'Cluster',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              n: { type: 'number', default: 1.5, maximum: 9, enum: [1.5, null] },
              m: { type: 'object', additionalProperties: false, 'x-kubernetes-preserve-unknown-fields': true },
              t: { type: 'array', items: [{ $ref: '#/a' }] },
              d: { dependencies: { p: ['q'] } },
            },
          },
        },
      },
    ],
  },
};

describe('CustomResourceDefinition over Protobuf', () => {
  test("upstream's bytes decode to the JSON they were made from", () => {
    const decoded = decodeProtobufObject(Buffer.from(UPSTREAM_HEX, 'hex'));
    expect(decoded).toEqual({
      ...JSON_FORM,
      metadata: { ...JSON_FORM.metadata, creationTimestamp: null },
      // Go's value struct status: its names' required keys; its null lists are left out here.
      status: { acceptedNames: { plural: '', kind: '' } },
    });
  });

  test('our encoding decodes back to the same object', () => {
    const back = decodeProtobufObject(encodeProtobufObject(JSON_FORM));
    expect(back).toMatchObject({ spec: JSON_FORM.spec });
  });

  test('a served CRD with conditions and a conversion webhook round-trips', () => {
    const crd = {
      ...JSON_FORM,
      metadata: { name: 'dials.pb.example.com', uid: 'u', resourceVersion: '5', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: {
        ...JSON_FORM.spec,
        conversion: { strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/c', port: 443 }, caBundle: 'Y2E=' }, conversionReviewVersions: ['v1'] } },
      },
      status: {
        conditions: [{ type: 'Established', status: 'True', lastTransitionTime: '2026-01-01T00:00:01Z', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }],
        acceptedNames: { plural: 'dials', kind: 'Dial', listKind: 'DialList', singular: 'dial' },
        storedVersions: ['v1'],
      },
    };
    expect(decodeProtobufObject(encodeProtobufObject(crd))).toEqual(crd);
  });
});
