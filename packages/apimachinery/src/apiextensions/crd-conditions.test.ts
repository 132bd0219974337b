import { acceptNames } from './crd-naming.js';
import { desiredCrdStatus } from './crd-conditions.js';
import type { CustomResourceDefinition, CustomResourceDefinitionNames } from './types.js';

const NOW = '2026-01-01T00:00:00Z';
const crd = (name: string, group: string, names: CustomResourceDefinitionNames, accepted?: CustomResourceDefinitionNames): CustomResourceDefinition => ({
  metadata: { name },
  spec: { group, names, scope: 'Namespaced', versions: [] },
  ...(accepted ? { status: { acceptedNames: accepted } } : {}),
});
const cron = { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'] };

describe('acceptNames', () => {
  const existing = crd('crontabs.a.io', 'a.io', cron, cron);
  test.each<[string, CustomResourceDefinition, string, string]>([
    ['no conflict in another group', crd('crontabs.b.io', 'b.io', cron), 'True', 'NoConflicts'],
    ['plural taken', crd('crontabs2.a.io', 'a.io', { ...cron, plural: 'crontabs', kind: 'Other', listKind: 'OtherList', singular: 'o', shortNames: [] }), 'False', 'PluralConflict'],
    ['short name taken', crd('x.a.io', 'a.io', { plural: 'x', singular: 'x1', kind: 'X', listKind: 'XList', shortNames: ['ct'] }), 'False', 'ShortNamesConflict'],
    ['kind taken', crd('x.a.io', 'a.io', { plural: 'x', singular: 'x1', kind: 'CronTab', listKind: 'XList' }), 'False', 'KindConflict'],
    ['list kind taken', crd('x.a.io', 'a.io', { plural: 'x', singular: 'x1', kind: 'X', listKind: 'CronTabList' }), 'False', 'ListKindConflict'],
  ])('%s', (_name, candidate, status, reason) => {
    const d = acceptNames(candidate, [existing, candidate]);
    expect(d.condition).toMatchObject({ type: 'NamesAccepted', status, reason });
    if (status === 'True') expect(d.acceptedNames).toEqual(candidate.spec.names);
    else expect(d.acceptedNames).toEqual({});
  });

  test('a CRD does not conflict with itself', () => {
    const self = crd('crontabs.a.io', 'a.io', cron, cron);
    expect(acceptNames(self, [self]).condition.status).toBe('True');
  });
});

describe('desiredCrdStatus', () => {
  test('a new CRD gets NamesAccepted and Established', () => {
    const c = crd('crontabs.a.io', 'a.io', cron);
    const s = desiredCrdStatus(c, [c], NOW);
    expect(s?.acceptedNames).toEqual(cron);
    expect(s?.conditions).toEqual([
      { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found', lastTransitionTime: NOW },
      { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted', lastTransitionTime: NOW },
    ]);
  });

  test('nothing to write once the status says so (times kept)', () => {
    const c = crd('crontabs.a.io', 'a.io', cron);
    c.status = desiredCrdStatus(c, [c], NOW);
    expect(desiredCrdStatus(c, [c], '2030-01-01T00:00:00Z')).toBeUndefined();
  });

  test('a conflicting CRD is not established', () => {
    const existing = crd('crontabs.a.io', 'a.io', cron, cron);
    const c = crd('other.a.io', 'a.io', { ...cron, plural: 'other', singular: 'other', shortNames: [] });
    const s = desiredCrdStatus(c, [existing, c], NOW);
    expect(s?.conditions?.map((x) => [x.type, x.status, x.reason])).toEqual([
      ['NamesAccepted', 'False', 'KindConflict'],
      ['Established', 'False', 'NotAccepted'],
    ]);
  });

  test('deletion adds Terminating', () => {
    const c = crd('crontabs.a.io', 'a.io', cron);
    c.status = desiredCrdStatus(c, [c], NOW);
    const s = desiredCrdStatus(c, [c], NOW, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress' });
    expect(s?.conditions?.map((x) => x.type)).toEqual(['NamesAccepted', 'Established', 'Terminating']);
  });
});
