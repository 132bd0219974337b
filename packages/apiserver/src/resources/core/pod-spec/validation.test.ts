import { portNameErrors, validatePodSpec, validatePodTemplateSpec } from './validation.js';
import type { PodSpec } from './types.js';

const valid = (): PodSpec => ({
  restartPolicy: 'Always',
  dnsPolicy: 'ClusterFirst',
  containers: [{ name: 'web', image: 'nginx', ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }], volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
  volumes: [{ name: 'data', emptyDir: {} }],
});

const fields = (spec: PodSpec, requireImage = true) => validatePodSpec(spec, 'spec', { requireImage }).map((e) => `${e.field} ${e.type}`);

describe('validatePodSpec', () => {
  test('a valid spec has no errors', () => {
    expect(fields(valid())).toEqual([]);
  });

  test.each<[string, (s: PodSpec) => void, string[]]>([
    ['no containers', (s) => (s.containers = []), ['spec.containers FieldValueRequired']],
    ['missing image', (s) => delete s.containers![0]!.image, ['spec.containers[0].image FieldValueRequired']],
    ['bad container name', (s) => (s.containers![0]!.name = 'Web_1'), ['spec.containers[0].name FieldValueInvalid']],
    ['duplicate with an init container', (s) => (s.initContainers = [{ name: 'web', image: 'x' }]), ['spec.containers[0].name FieldValueDuplicate']],
    ['port out of range', (s) => (s.containers![0]!.ports![0]!.containerPort = 0), ['spec.containers[0].ports[0].containerPort FieldValueRequired']],
    ['port too big', (s) => (s.containers![0]!.ports![0]!.containerPort = 65536), ['spec.containers[0].ports[0].containerPort FieldValueInvalid']],
    ['bad protocol', (s) => (s.containers![0]!.ports![0]!.protocol = 'ICMP'), ['spec.containers[0].ports[0].protocol FieldValueNotSupported']],
    ['mount of an unknown volume', (s) => (s.volumes = []), ['spec.containers[0].volumeMounts[0].name FieldValueNotFound']],
    ['duplicate volume', (s) => s.volumes!.push({ name: 'data', emptyDir: {} }), ['spec.volumes[1].name FieldValueDuplicate']],
    ['two volume sources', (s) => (s.volumes![0]!['hostPath'] = { path: '/x' }), ['spec.volumes[0].emptyDir FieldValueForbidden']],
    ['bad restart policy', (s) => (s.restartPolicy = 'Sometimes'), ['spec.restartPolicy FieldValueNotSupported']],
    ['bad dns policy', (s) => (s.dnsPolicy = 'Cluster'), ['spec.dnsPolicy FieldValueNotSupported']],
    ['negative grace period', (s) => (s.terminationGracePeriodSeconds = -1), ['spec.terminationGracePeriodSeconds FieldValueInvalid']],
  ])('%s', (_name, change, expected) => {
    const spec = valid();
    change(spec);
    expect(fields(spec)).toEqual(expected);
  });

  test('templates may leave the image empty', () => {
    const spec = valid();
    delete spec.containers![0]!.image;
    expect(fields(spec, false)).toEqual([]);
  });

  test('workload templates must restart Always', () => {
    const errs = validatePodTemplateSpec({ metadata: { labels: { a: 'b' } }, spec: { ...valid(), restartPolicy: 'OnFailure' } }, 'spec.template', { requireAlwaysRestart: true });
    expect(errs).toEqual([{ type: 'FieldValueNotSupported', field: 'spec.template.spec.restartPolicy', badValue: 'OnFailure', detail: 'supported values: "Always"' }]);
  });
});

describe('portNameErrors', () => {
  test.each([
    ['http', 0],
    ['web-8080', 0],
    ['8080', 1],
    ['a--b', 1],
    ['-a', 1],
    ['this-name-is-too-long', 1],
    ['UPPER', 2],
  ])('%s has %i error(s)', (name, count) => {
    expect(portNameErrors(name)).toHaveLength(count);
  });
});
