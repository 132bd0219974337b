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
    await expect(Promise.resolve(plugin.validate(attrs))).resolves.toBeUndefined();
    expect(obj.spec.serviceAccountName).toBe(defaulted ? 'default' : undefined);
  });
});

const MOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';
interface TestPod extends KubeObject {
  spec: {
    serviceAccountName?: string;
    automountServiceAccountToken?: boolean;
    containers: { name: string; volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[] }[];
    initContainers?: { name: string; volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[] }[];
    volumes?: { name: string; projected?: unknown; emptyDir?: unknown }[];
    imagePullSecrets?: { name: string }[];
  };
}
const pod = (spec: Partial<TestPod['spec']> = {}, annotations?: Record<string, string>): TestPod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns', ...(annotations ? { annotations } : {}) },
  spec: { containers: [{ name: 'c' }], ...spec },
});
const accounts: Record<string, KubeObject> = {
  default: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'ns' } },
  mount: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'mount', namespace: 'ns' }, automountServiceAccountToken: true } as KubeObject,
  nomount: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'nomount', namespace: 'ns' }, automountServiceAccountToken: false } as KubeObject,
  puller: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'puller', namespace: 'ns' }, imagePullSecrets: [{ name: 'registry' }] } as KubeObject,
};
async function admitPod(p: TestPod, lookup = async (_ns: string, name: string) => accounts[name]): Promise<TestPod> {
  const attrs: AdmissionAttributes = { operation: 'CREATE', resource: info('pods'), subresource: '', namespace: 'ns', name: 'p', object: p, dryRun: false };
  await serviceAccountAdmission(D, lookup).admit!(attrs);
  return p;
}
const mounted = (p: TestPod) => p.spec.containers.some((c) => (c.volumeMounts ?? []).some((m) => m.mountPath === MOUNT));

describe('serviceAccountAdmission: the API credentials volume', () => {
  // The cases of upstream's conformance spec "should allow opting out of API token automount".
  test.each<[string, boolean | undefined, boolean]>([
    ['default', undefined, true],
    ['mount', undefined, true],
    ['nomount', undefined, false],
    ['default', true, true],
    ['mount', true, true],
    ['nomount', true, true],
    ['default', false, false],
    ['mount', false, false],
    ['nomount', false, false],
    ['missing', undefined, true],
    ['missing', false, false],
  ])('account %s, pod automount %s: mounted %s', async (account, automount, want) => {
    const p = await admitPod(pod({ serviceAccountName: account, ...(automount === undefined ? {} : { automountServiceAccountToken: automount }) }));
    expect(mounted(p)).toBe(want);
    expect((p.spec.volumes ?? []).some((v) => v.name.startsWith('kube-api-access-'))).toBe(want);
  });

  test('the volume and mounts are upstream\'s, in containers and init containers', async () => {
    const p = await admitPod(pod({ initContainers: [{ name: 'i' }], containers: [{ name: 'a' }, { name: 'b', volumeMounts: [{ name: 'data', mountPath: '/data' }] }], volumes: [{ name: 'data', emptyDir: {} }] }));
    const vol = p.spec.volumes!.find((v) => v.name !== 'data')!;
    expect(vol.name).toMatch(/^kube-api-access-[a-z0-9]{5}$/);
    expect(vol).toEqual({
      name: vol.name,
      projected: {
        defaultMode: 420,
        sources: [
          { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
        ],
      },
    });
    const m = { name: vol.name, readOnly: true, mountPath: MOUNT };
    expect(p.spec.initContainers![0]!.volumeMounts).toEqual([m]);
    expect(p.spec.containers[0]!.volumeMounts).toEqual([m]);
    expect(p.spec.containers[1]!.volumeMounts).toEqual([{ name: 'data', mountPath: '/data' }, m]);
  });

  test('not added twice: an existing kube-api-access volume is reused, an existing mount kept', async () => {
    const p = await admitPod(
      pod({
        containers: [{ name: 'a', volumeMounts: [{ name: 'own', mountPath: MOUNT }] }, { name: 'b' }],
        volumes: [{ name: 'kube-api-access-abcde', projected: { sources: [] } }],
      }),
    );
    expect(p.spec.volumes).toEqual([{ name: 'kube-api-access-abcde', projected: { sources: [] } }]);
    expect(p.spec.containers[0]!.volumeMounts).toEqual([{ name: 'own', mountPath: MOUNT }]);
    expect(p.spec.containers[1]!.volumeMounts).toEqual([{ name: 'kube-api-access-abcde', readOnly: true, mountPath: MOUNT }]);
    // Admitting the result again changes nothing.
    const again = JSON.parse(JSON.stringify(p)) as TestPod;
    await admitPod(again);
    expect(again).toEqual(p);
  });

  test('every container already mounting the path: no volume is added', async () => {
    const p = await admitPod(pod({ containers: [{ name: 'a', volumeMounts: [{ name: 'own', mountPath: MOUNT }] }], volumes: [{ name: 'own', emptyDir: {} }] }));
    expect(p.spec.volumes).toEqual([{ name: 'own', emptyDir: {} }]);
  });

  test('mirror pods are left alone', async () => {
    const p = await admitPod(pod({}, { 'example.org/config.mirror': 'x' }));
    expect(p.spec).toEqual({ containers: [{ name: 'c' }] });
  });

  test("the account's imagePullSecrets fill a pod that names none", async () => {
    expect((await admitPod(pod({ serviceAccountName: 'puller' }))).spec.imagePullSecrets).toEqual([{ name: 'registry' }]);
    expect((await admitPod(pod({ serviceAccountName: 'puller', imagePullSecrets: [{ name: 'own' }] }))).spec.imagePullSecrets).toEqual([{ name: 'own' }]);
  });

  test('the account looked up is the defaulted one, in the pod\'s namespace', async () => {
    const seen: string[] = [];
    await admitPod(pod(), async (ns, name) => {
      seen.push(`${ns}/${name}`);
      return undefined;
    });
    expect(seen).toEqual(['ns/default']);
  });
});
