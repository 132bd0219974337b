import { decodeProtobufObject, encodeProtobufObject } from './index.js';

// Bodies sent by stock kubectl 1.32 (captured from `kubectl create configmap a -n b
// --from-literal=k=v`, `kubectl create namespace demo` and `kubectl auth can-i create configmaps
// -n demo` against a recording server). They prove the field numbers match upstream's wire format.
const KUBECTL_CONFIGMAP =
  '6b3873000a0f0a0276311209436f6e6669674d6170121c0a120a016112001a016222002a0032003800420012060a016b1201761a002200';
const KUBECTL_NAMESPACE =
  '6b3873000a0f0a02763112094e616d657370616365121c0a140a0464656d6f12001a0022002a0032003800420012001a020a001a002200';
const KUBECTL_SSAR =
  '6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a65637441636365737352657669657712420a100a0012001a0022002a0032003800420012240a220a0464656d6f12066372656174651a0022002a0a636f6e6669676d61707332003a001a08080012001a0020001a002200';

// `kubectl create deployment web --image=nginx:1.25 --replicas=2 --port=80` (kubectl 1.32, captured
// by a logging proxy): the apps/v1 Deployment wire form, with a pod template inside.
const KUBECTL_DEPLOYMENT =
  '6b3873000a150a07617070732f7631120a4465706c6f796d656e7412bd010a1f0a0377656212001a0022002a003200380042005a0a0a036170701203776562128b010802120c0a0a0a0361707012037765621a710a1c0a0012001a0022002a003200380042005a0a0a036170701203776562125112330a056e67696e78120a6e67696e783a312e32352a00320a0a001000185022002a0042006a007200800100880100900100a201001a00320042004a0052005800600068008201008a01009a0100c2010022020a00280038001a0c0800100018002000280038001a002200';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const bytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, 'hex'));

// Hand-built protobuf: tag = field number << 3 | wire type (2 = length-delimited, 0 = varint).
const utf8 = (s: string): number[] => [...Buffer.from(s, 'utf8')];
const len = (num: number, payload: number[]): number[] => [(num << 3) | 2, payload.length, ...payload];
const varint = (num: number, value: number): number[] => [num << 3, value];

describe('golden bytes', () => {
  test('a ConfigMap built by hand from upstream field numbers matches what kubectl sends', () => {
    const objectMeta = [
      ...len(1, utf8('a')), // name
      ...len(2, []), // generateName
      ...len(3, utf8('b')), // namespace
      ...len(4, []), // selfLink
      ...len(5, []), // uid
      ...len(6, []), // resourceVersion
      ...varint(7, 0), // generation
      ...len(8, []), // creationTimestamp: zero Time is an empty message
    ];
    const configMap = [
      ...len(1, objectMeta), // metadata
      ...len(2, [...len(1, utf8('k')), ...len(2, utf8('v'))]), // data: one map entry {key = 1, value = 2}
    ];
    const unknown = [
      ...len(1, [...len(1, utf8('v1')), ...len(2, utf8('ConfigMap'))]), // typeMeta{apiVersion = 1, kind = 2}
      ...len(2, configMap), // raw
      ...len(3, []), // contentEncoding
      ...len(4, []), // contentType
    ];
    const handBuilt = Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...unknown]);
    expect(hex(handBuilt)).toBe(KUBECTL_CONFIGMAP);
  });

  test.each([
    [
      'ConfigMap',
      KUBECTL_CONFIGMAP,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'a', namespace: 'b', creationTimestamp: null },
        data: { k: 'v' },
      },
    ],
    [
      'Namespace',
      KUBECTL_NAMESPACE,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo', creationTimestamp: null }, spec: {}, status: {} },
    ],
    [
      'SelfSubjectAccessReview',
      KUBECTL_SSAR,
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        metadata: { creationTimestamp: null },
        spec: { resourceAttributes: { namespace: 'demo', verb: 'create', resource: 'configmaps' } },
        status: { allowed: false },
      },
    ],
    [
      'Deployment',
      KUBECTL_DEPLOYMENT,
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', creationTimestamp: null, labels: { app: 'web' } },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { creationTimestamp: null, labels: { app: 'web' } },
            spec: { containers: [{ name: 'nginx', image: 'nginx:1.25', ports: [{ containerPort: 80 }], resources: {} }] },
          },
          strategy: {},
        },
        status: {},
      },
    ],
  ])('kubectl %s body decodes to the JSON form kubectl would have sent', (_kind, body, json) => {
    expect(decodeProtobufObject(bytes(body))).toEqual(json);
  });

  test.each([
    ['ConfigMap', KUBECTL_CONFIGMAP],
    ['Namespace', KUBECTL_NAMESPACE],
    ['SelfSubjectAccessReview', KUBECTL_SSAR],
    ['Deployment', KUBECTL_DEPLOYMENT],
  ])('re-encoding the decoded %s gives the same bytes as upstream', (_kind, body) => {
    expect(hex(encodeProtobufObject(decodeProtobufObject(bytes(body))))).toBe(body);
  });

  test('a set Time is written as {seconds = 1, nanos = 2}', () => {
    const encoded = encodeProtobufObject({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'n', creationTimestamp: '2024-01-02T03:04:05Z' },
    });
    // 1704164645 seconds as a varint, then nanos 0.
    const seconds = 1704164645;
    const varintBytes: number[] = [];
    for (let v = seconds; ; v = Math.floor(v / 128)) {
      if (v < 128) {
        varintBytes.push(v);
        break;
      }
      varintBytes.push((v % 128) | 0x80);
    }
    const time = [0x08, ...varintBytes, 0x10, 0x00];
    expect(hex(encoded)).toContain(Buffer.from([0x42, time.length, ...time]).toString('hex'));
  });

  test('an autoscaling/v1 Scale built by hand from upstream field numbers matches the encoder', () => {
    const objectMeta = [
      ...len(1, utf8('web')), // name
      ...len(2, []), // generateName
      ...len(3, utf8('demo')), // namespace
      ...len(4, []), // selfLink
      ...len(5, []), // uid
      ...len(6, []), // resourceVersion
      ...varint(7, 0), // generation
      ...len(8, []), // creationTimestamp: zero Time is an empty message
    ];
    const scale = [
      ...len(1, objectMeta),
      ...len(2, varint(1, 3)), // spec{replicas = 1}
      ...len(3, [...varint(1, 2), ...len(2, utf8('app=web'))]), // status{replicas = 1, selector = 2}
    ];
    const unknown = [
      ...len(1, [...len(1, utf8('autoscaling/v1')), ...len(2, utf8('Scale'))]),
      ...len(2, scale),
      ...len(3, []),
      ...len(4, []),
    ];
    const handBuilt = Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...unknown]);
    const json = {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web', namespace: 'demo', creationTimestamp: null },
      spec: { replicas: 3 },
      status: { replicas: 2, selector: 'app=web' },
    };
    expect(hex(encodeProtobufObject(json))).toBe(hex(handBuilt));
    expect(decodeProtobufObject(handBuilt)).toEqual(json);
  });
});
