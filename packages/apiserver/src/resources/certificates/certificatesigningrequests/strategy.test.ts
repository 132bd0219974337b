import type { CertificateSigningRequest } from '../types.js';
import { csrStrategy, defaultConditionTimes, preserveApprovalConditions } from './strategy.js';

const T0 = '2024-05-01T10:00:00Z';
const NOW = new Date('2024-05-01T12:00:00.123Z');
const strategy = csrStrategy('k8s.io', () => NOW);

const base = (over: Partial<CertificateSigningRequest> = {}): CertificateSigningRequest => ({
  metadata: { name: 'c' },
  spec: { request: 'x', signerName: 'example.com/s', usages: ['any'] },
  ...over,
});

describe('prepareForCreate', () => {
  test('records the requester over whatever the client sent, and clears status', () => {
    const obj = base({ spec: { ...base().spec, username: 'mallory', uid: 'm', groups: ['system:masters'], extra: { k: ['v'] } }, status: { certificate: 'abc' } });
    strategy.prepareForCreate(obj, { user: { username: 'alice', uid: 'u1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a', 'b'] } } });
    expect(obj.spec).toEqual({
      request: 'x',
      signerName: 'example.com/s',
      usages: ['any'],
      username: 'alice',
      uid: 'u1',
      groups: ['devs', 'system:authenticated'],
      extra: { scopes: ['a', 'b'] },
    });
    expect(obj.status).toEqual({});
  });

  test('without a user the requester fields stay empty', () => {
    const obj = base({ spec: { ...base().spec, username: 'mallory', groups: ['g'] } });
    strategy.prepareForCreate(obj, {});
    expect(obj.spec).toEqual(base().spec);
  });
});

test('prepareForUpdate keeps the stored status', () => {
  const old = base({ status: { conditions: [{ type: 'Approved', status: 'True' }] } });
  const obj = base({ status: { conditions: [] } });
  strategy.prepareForUpdate(obj, old);
  expect(obj.status).toEqual(old.status);
});

describe('defaultConditionTimes', () => {
  const stamp = '2024-05-01T12:00:00Z';
  test.each<[string, { type: string; status: string; lastTransitionTime?: string; lastUpdateTime?: string }[], { lastUpdateTime: string; lastTransitionTime: string }]>([
    ['a new condition gets now twice', [], { lastUpdateTime: stamp, lastTransitionTime: stamp }],
    ['same status keeps the transition time', [{ type: 'Checked', status: 'True', lastTransitionTime: T0 }], { lastUpdateTime: stamp, lastTransitionTime: T0 }],
    ['a changed status transitions now', [{ type: 'Checked', status: 'False', lastTransitionTime: T0 }], { lastUpdateTime: stamp, lastTransitionTime: stamp }],
  ])('%s', (_name, old, want) => {
    expect(defaultConditionTimes([{ type: 'Checked', status: 'True' }], old, NOW)).toEqual([{ type: 'Checked', status: 'True', ...want }]);
  });

  test('given times are kept', () => {
    const c = { type: 'Checked', status: 'True', lastUpdateTime: T0, lastTransitionTime: T0 };
    expect(defaultConditionTimes([c], [], NOW)).toEqual([c]);
  });
});

describe('subresource merges', () => {
  const cert = 'Y2VydA==';
  const current = base({ metadata: { name: 'c', labels: { a: 'b' } }, status: { conditions: [], certificate: '' } });
  const requested = base({
    metadata: { name: 'c', labels: { changed: 'yes' } },
    spec: { request: 'other', signerName: 'example.com/other', usages: ['any'] },
    status: { conditions: [{ type: 'Approved', status: 'True' }], certificate: cert },
  });

  test('approval takes only the conditions (and metadata changes, as upstream)', () => {
    const merged = strategy.subresources.approval.merge(requested, structuredClone(current));
    expect(merged.metadata).toEqual(requested.metadata);
    expect(merged.spec).toEqual(current.spec);
    expect(merged.status).toEqual({ conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: '2024-05-01T12:00:00Z', lastTransitionTime: '2024-05-01T12:00:00Z' }], certificate: '' });
  });

  test('status takes the certificate and conditions; an Approved it adds is left for validation to refuse', () => {
    const merged = strategy.subresources.status.merge(requested, structuredClone(current));
    expect(merged.spec).toEqual(current.spec);
    expect(merged.status?.certificate).toBe(cert);
    expect(merged.status?.conditions?.map((c) => c.type)).toEqual(['Approved']);
    expect(strategy.subresources.status.validateUpdate!(merged, current)).toContainEqual(
      expect.objectContaining({ field: 'status.conditions', detail: 'updates may not add a condition of type "Approved"' }),
    );
  });

  test('status keeps the stored Approved and Denied conditions as they were', () => {
    const stored = base({ status: { conditions: [{ type: 'Approved', status: 'True', reason: 'ByAdmin', message: 'ok', lastUpdateTime: T0, lastTransitionTime: T0 }] } });
    const retouched = base({ status: { conditions: [{ type: 'Checked', status: 'True' }, { type: 'Approved', status: 'True', reason: 'BySigner', message: 'mine' }] } });
    const merged = strategy.subresources.status.merge(retouched, structuredClone(stored));
    expect(merged.status?.conditions?.[1]).toEqual(stored.status?.conditions?.[0]);
    expect(merged.status?.conditions?.[0]).toMatchObject({ type: 'Checked', lastUpdateTime: '2024-05-01T12:00:00Z' });
  });

  test('preserveApprovalConditions keeps instances only when the count is unchanged', () => {
    const old = [{ type: 'Denied', status: 'True', reason: 'A' }];
    expect(preserveApprovalConditions([{ type: 'Denied', status: 'True', reason: 'B' }], old)).toEqual(old);
    expect(preserveApprovalConditions([], old)).toEqual([]);
  });
});

test('table cells', () => {
  const obj = base({
    metadata: { name: 'c', creationTimestamp: T0 },
    spec: { ...base().spec, username: 'alice', expirationSeconds: 7200 }, // HumanDuration: under 3h prints minutes
    status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Failed', status: 'True' }] },
  });
  expect(strategy.table.cells(obj)).toEqual(['c', expect.any(String), 'example.com/s', 'alice', '120m', 'Approved,Failed']);
  expect(strategy.table.cells(base({ status: { conditions: [{ type: 'Denied', status: 'True' }] } }))[5]).toBe('Denied');
});
