import { bootstrapTokenSecret } from '../bootstraptoken/fixtures.js';
import type { Secret } from '../bootstraptoken/secrets.js';
import { expiredTokens } from './reconcile.js';

const D = 'example.org';
const NOW = Date.parse('2030-01-01T00:00:00Z');
const token = (data: Record<string, string>, meta: Partial<Secret['metadata']> = {}): Secret =>
  bootstrapTokenSecret(D, 'abcdef', { 'token-secret': '0123456789abcdef', ...data }, { uid: 'u1', ...meta });

describe('expiredTokens', () => {
  test.each<[string, Secret, boolean]>([
    ['expired', token({ expiration: '2029-12-31T23:59:59Z' }), true],
    ['expires exactly now', token({ expiration: '2030-01-01T00:00:00Z' }), true],
    ['expired, with an offset', token({ expiration: '2030-01-01T00:30:00+01:00' }), true],
    ['expires later', token({ expiration: '2030-01-01T00:00:01Z' }), false],
    ['no expiration', token({}), false],
    ['malformed expiration: left alone', token({ expiration: 'yesterday' }), false],
    ['already being deleted', token({ expiration: '2000-01-01T00:00:00Z' }, { deletionTimestamp: '2029-01-01T00:00:00Z' }), false],
    ['not a bootstrap token', { ...token({ expiration: '2000-01-01T00:00:00Z' }), type: 'Opaque' }, false],
    ['not in cluster-system', token({ expiration: '2000-01-01T00:00:00Z' }, { namespace: 'default' }), false],
  ])('%s', (_name, secret, deleted) => {
    expect(expiredTokens([secret], D, NOW)).toEqual(deleted ? [{ name: 'bootstrap-token-abcdef', uid: 'u1' }] : []);
  });
});
