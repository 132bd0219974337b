import type { CustomResourceDefinition } from '@cluster/apimachinery';
import { customResourceServing } from './registrations.js';

const crd = (): CustomResourceDefinition => ({
  metadata: { name: 'crontabs.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    scope: 'Namespaced',
    names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'], categories: ['all'] },
    versions: [
      { name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object' } } },
      { name: 'v1beta1', served: true, storage: false, deprecated: true, schema: { openAPIV3Schema: { type: 'object' } } },
      { name: 'v1alpha1', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
    ],
  },
});

describe('customResourceServing', () => {
  test('one registration per served version, stored in the storage version', () => {
    const { registrations, definitions } = customResourceServing(crd());
    expect(registrations.map((r) => r.info.version)).toEqual(['v1', 'v1beta1']);
    expect(registrations.every((r) => r.info.storageVersion === 'v1' && r.info.customResource)).toBe(true);
    expect(registrations[0]!.info).toMatchObject({
      group: 'stable.example.com',
      resource: 'crontabs',
      kind: 'CronTab',
      listKind: 'CronTabList',
      namespaced: true,
      shortNames: ['ct'],
      categories: ['all'],
      definitionName: 'com.example.stable.v1.CronTab',
      subresources: [{ name: 'status', kind: 'CronTab', verbs: ['get', 'patch', 'update'], definitionName: 'com.example.stable.v1.CronTab' }],
    });
    expect(registrations[1]!.info.subresources).toBeUndefined();
    expect(registrations[1]!.info.deprecationWarning).toBe('stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v1 CronTab');
    expect(Object.keys(definitions).sort()).toEqual([
      'com.example.stable.v1.CronTab',
      'com.example.stable.v1.CronTabList',
      'com.example.stable.v1beta1.CronTab',
      'com.example.stable.v1beta1.CronTabList',
    ]);
  });

  test('accepted names win over requested ones', () => {
    const c = crd();
    c.status = { acceptedNames: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: [] } };
    c.spec.names!.shortNames = ['ct', 'taken'];
    expect(customResourceServing(c).registrations[0]!.info.shortNames).toBeUndefined();
  });

  test('a terminating CRD serves strategies that refuse creates', () => {
    const c = crd();
    c.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    const strategy = customResourceServing(c).registrations[0]!.strategy;
    expect(() => strategy.prepareForCreate({ metadata: { name: 'x' } }, {})).toThrow('terminating');
  });
});
