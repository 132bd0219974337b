import type { KubeObject } from '@cluster/apimachinery';
import type { AdmissionAttributes } from './admission.js';
import { mergeTolerations, runtimeClassAdmission, type RuntimeClassObject } from './runtime-class.js';
import type { ResourceInfo } from '../registry/resource-info.js';

const rc = (name: string, extra: Partial<RuntimeClassObject> = {}): RuntimeClassObject => ({ metadata: { name }, handler: 'runc', ...extra });
const classes = [
  rc('plain'),
  rc('pinned', { scheduling: { nodeSelector: { 'e2e/zone': 'a' }, tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }] } }),
  rc('heavy', { overhead: { podFixed: { cpu: '250m', memory: '120Mi' } } }),
];
const plugin = runtimeClassAdmission(async (name) => classes.find((c) => c.metadata.name === name));
const pod = (spec: Record<string, unknown>): KubeObject & { spec: Record<string, unknown> } => ({ metadata: { generateName: 'test-' }, spec: { containers: [], ...spec } });
const attrs = (object: KubeObject, operation: AdmissionAttributes['operation'] = 'CREATE', subresource = ''): AdmissionAttributes => ({
  operation,
  resource: { group: '', resource: 'pods' } as ResourceInfo,
  subresource,
  namespace: 'default',
  name: object.metadata.name ?? '',
  object,
  dryRun: false,
});
const outcome = async (p: Promise<void> | void) => Promise.resolve(p).then(() => 'admitted', (e: { status: { code: number; reason: string; message: string } }) => `${e.status.code} ${e.status.reason} ${e.status.message}`);
const admitThenValidate = async (o: KubeObject) => {
  await plugin.admit!(attrs(o));
  await plugin.validate(attrs(o));
};

describe('RuntimeClass admission (upstream v1.24)', () => {
  test('a pod naming a RuntimeClass that does not exist is 403 (the e2e "non-existent RuntimeClass" spec)', async () => {
    expect(await outcome(plugin.admit!(attrs(pod({ runtimeClassName: 'nope' }))))).toBe(
      '403 Forbidden pods "test-" is forbidden: pod rejected: RuntimeClass "nope" not found',
    );
    expect(await outcome(plugin.validate(attrs(pod({ runtimeClassName: 'nope' }))))).toMatch(/^403 Forbidden/);
  });

  test('a node selector conflicting with the class is 403 (the e2e "conflicting node selector" spec)', async () => {
    expect(await outcome(plugin.admit!(attrs(pod({ runtimeClassName: 'pinned', nodeSelector: { 'e2e/zone': 'b' } }))))).toBe(
      '403 Forbidden pods "test-" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[e2e/zone] = a; pod.spec.nodeSelector[e2e/zone] = b',
    );
  });

  test("the class's scheduling is merged into the pod", async () => {
    const p = pod({ runtimeClassName: 'pinned', nodeSelector: { disk: 'ssd' }, tolerations: [{ key: 'gpu', operator: 'Equal', value: 'x', effect: 'NoSchedule' }] });
    await admitThenValidate(p);
    expect(p.spec.nodeSelector).toEqual({ disk: 'ssd', 'e2e/zone': 'a' });
    // The class's Exists toleration covers the pod's Equal one, which is dropped.
    expect(p.spec.tolerations).toEqual([{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }]);
    const bare = pod({ runtimeClassName: 'pinned' });
    await admitThenValidate(bare);
    expect(bare.spec.nodeSelector).toEqual({ 'e2e/zone': 'a' });
  });

  test("the class's overhead is set; a different one is 403, an equal amount in other units is admitted", async () => {
    const p = pod({ runtimeClassName: 'heavy' });
    await admitThenValidate(p);
    expect(p.spec.overhead).toEqual({ cpu: '250m', memory: '120Mi' });
    expect(await outcome(admitThenValidate(pod({ runtimeClassName: 'heavy', overhead: { cpu: '0.25', memory: '120Mi' } })))).toBe('admitted');
    expect(await outcome(plugin.admit!(attrs(pod({ runtimeClassName: 'heavy', overhead: { cpu: '1' } }))))).toBe(
      `403 Forbidden pods "test-" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`,
    );
  });

  test('an overhead without a class defining one is refused at validation', async () => {
    expect(await outcome(admitThenValidate(pod({ overhead: { cpu: '1' } })))).toBe(
      '403 Forbidden pods "test-" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead',
    );
    expect(await outcome(admitThenValidate(pod({ runtimeClassName: 'plain', overhead: { cpu: '1' } })))).toMatch(/Pod Overhead set without/);
  });

  test('updates, subresources and pods without a class are left alone', async () => {
    expect(await outcome(plugin.admit!(attrs(pod({ runtimeClassName: 'nope' }), 'UPDATE')))).toBe('admitted');
    expect(await outcome(plugin.validate(attrs(pod({ runtimeClassName: 'nope' }), 'CREATE', 'binding')))).toBe('admitted');
    const p = pod({});
    await admitThenValidate(p);
    expect(p.spec).toEqual({ containers: [] });
  });

  test('mergeTolerations keeps the superset, and the first of two equal ones', () => {
    expect(
      mergeTolerations(
        [{ key: 'a', operator: 'Equal', value: '1' }, { operator: 'Exists', effect: 'NoExecute' }],
        [{ key: 'a', operator: 'Equal', value: '1' }, { key: 'b', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }],
      ),
    ).toEqual([{ key: 'a', operator: 'Equal', value: '1' }, { operator: 'Exists', effect: 'NoExecute' }]);
  });
});
