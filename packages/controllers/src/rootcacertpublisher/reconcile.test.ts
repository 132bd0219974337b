import type { Namespace } from '../namespace/reconcile.js';
import { planRootCaConfigMap, ROOT_CA_DESCRIPTION, type ConfigMap, type RootCaPlan } from './reconcile.js';

const D = 'example.org';
const CA = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
const OTHER_CA = '-----BEGIN CERTIFICATE-----\nBBBB\n-----END CERTIFICATE-----\n';
const DESC = { 'example.org/description': ROOT_CA_DESCRIPTION };

const ns = (meta: Partial<Namespace['metadata']> = {}, phase = 'Active'): Namespace => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'team-a', ...meta },
  status: { phase },
});
const cm = (data: Record<string, string> | null, annotations?: Record<string, string>): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'kube-root-ca.crt', namespace: 'team-a', resourceVersion: '7', ...(annotations ? { annotations } : {}) },
  data,
});

describe('planRootCaConfigMap', () => {
  test.each<[string, Namespace | undefined, ConfigMap | undefined, RootCaPlan]>([
    ['missing: created with the CA and a description', ns(), undefined, { op: 'create', object: { ...cm({ 'ca.crt': CA }, DESC), metadata: { name: 'kube-root-ca.crt', namespace: 'team-a', annotations: DESC } } }],
    ['already right: nothing', ns(), cm({ 'ca.crt': CA }, DESC), { op: 'none' }],
    ['a description someone wrote is kept', ns(), cm({ 'ca.crt': CA }, { 'example.org/description': 'ours' }), { op: 'none' }],
    ['CA edited: restored, resourceVersion kept', ns(), cm({ 'ca.crt': OTHER_CA }, DESC), { op: 'update', object: cm({ 'ca.crt': CA }, DESC) }],
    ['key removed: restored', ns(), cm(null, DESC), { op: 'update', object: cm({ 'ca.crt': CA }, DESC) }],
    ['extra key added: dropped', ns(), cm({ 'ca.crt': CA, extra: 'x' }, DESC), { op: 'update', object: cm({ 'ca.crt': CA }, DESC) }],
    ['description missing: added, other annotations kept', ns(), cm({ 'ca.crt': CA }, { keep: 'me' }), { op: 'update', object: cm({ 'ca.crt': CA }, { keep: 'me', ...DESC }) }],
    ['terminating namespace: nothing, even when missing', ns({ deletionTimestamp: '2030-01-01T00:00:00Z' }, 'Terminating'), undefined, { op: 'none' }],
    ['terminating namespace: an edited CA is left', ns({}, 'Terminating'), cm({ 'ca.crt': OTHER_CA }, DESC), { op: 'none' }],
    ['namespace gone: nothing', undefined, undefined, { op: 'none' }],
  ])('%s', (_name, namespace, current, plan) => {
    expect(planRootCaConfigMap({ ns: namespace, current, caPem: CA, apiDomain: D })).toEqual(plan);
  });

  test('the read object is not changed', () => {
    const current = cm({ 'ca.crt': OTHER_CA });
    planRootCaConfigMap({ ns: ns(), current, caPem: CA, apiDomain: D });
    expect(current).toEqual(cm({ 'ca.crt': OTHER_CA }));
  });
});
