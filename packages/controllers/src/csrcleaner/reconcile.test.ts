import { collectibleAt, UPSTREAM_RETENTION } from './reconcile.js';
import type { CertificateSigningRequest } from '../csrsigning/reconcile.js';

const T0 = Date.parse('2030-01-01T00:00:00Z');
const H = 3600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const csr = (status: CertificateSigningRequest['status'], created = T0): CertificateSigningRequest => ({
  metadata: { name: 'x', creationTimestamp: iso(created) },
  spec: {},
  status,
});
const cond = (type: string, at: number) => ({ type, status: 'True', lastUpdateTime: iso(at) });

describe('collectibleAt (SPEC 3.2 periods)', () => {
  test.each<[string, CertificateSigningRequest, number | undefined]>([
    ['pending: 24 h after creation', csr({}), T0 + 24 * H],
    ['approved: 1 h after the approval', csr({ conditions: [cond('Approved', T0 + 2 * H)] }), T0 + 3 * H],
    ['denied: 1 h after the denial', csr({ conditions: [cond('Denied', T0 + H)] }), T0 + 2 * H],
    ['failed: 1 h after the failure', csr({ conditions: [cond('Approved', T0), cond('Failed', T0 + 5 * H)] }), T0 + H],
    ['no timestamps at all', { metadata: { name: 'x' }, status: {} }, undefined],
  ])('%s', (_, c, want) => {
    expect(collectibleAt(c, UPSTREAM_RETENTION)).toBe(want);
  });

  test('shortened periods are honoured', () => {
    expect(collectibleAt(csr({}), { finishedMs: 1000, pendingMs: 2000 })).toBe(T0 + 2000);
  });
});
