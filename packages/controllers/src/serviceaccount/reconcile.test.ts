import type { KubeObject } from '@cluster/apimachinery';
import type { Namespace } from '../namespace/reconcile.js';
import { defaultServiceAccountFor, namespaceActive } from './reconcile.js';

const ns = (meta: Partial<Namespace['metadata']> = {}, phase?: string): Namespace => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'team-a', ...meta },
  ...(phase ? { status: { phase } } : {}),
});
const sa: KubeObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'team-a' } };

describe('namespaceActive', () => {
  test.each<[string, Namespace | undefined, boolean]>([
    ['active', ns({}, 'Active'), true],
    ['no status yet', ns(), true],
    ['deletion requested', ns({ deletionTimestamp: '2030-01-01T00:00:00Z' }), false],
    ['phase Terminating', ns({}, 'Terminating'), false],
    ['gone', undefined, false],
  ])('%s', (_name, namespace, active) => {
    expect(namespaceActive(namespace)).toBe(active);
  });
});

describe('defaultServiceAccountFor', () => {
  test.each<[string, Namespace | undefined, KubeObject | undefined, boolean]>([
    ['new namespace: created', ns({}, 'Active'), undefined, true],
    ['account deleted: created again', ns(), undefined, true],
    ['account present: nothing', ns(), sa, false],
    ['terminating namespace: nothing', ns({ deletionTimestamp: '2030-01-01T00:00:00Z' }, 'Terminating'), undefined, false],
    ['phase Terminating without timestamp: nothing', ns({}, 'Terminating'), undefined, false],
    ['namespace gone: nothing', undefined, undefined, false],
  ])('%s', (_name, namespace, existing, created) => {
    const want = created ? { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'team-a' } } : undefined;
    expect(defaultServiceAccountFor(namespace, existing)).toEqual(want);
  });
});
