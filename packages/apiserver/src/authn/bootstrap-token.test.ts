import type { KubeObject } from '@cluster/apimachinery';
import { BootstrapTokenAuthenticator } from './bootstrap-token.js';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const TOKEN = 'abcdef.0123456789abcdef';
const enc = (d: Record<string, string>) => Object.fromEntries(Object.entries(d).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
const good = { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true' };

function authn(secret: Partial<KubeObject> & { type?: string; data?: Record<string, string> } | undefined, apiAudiences = ['api']) {
  const asked: string[] = [];
  const a = new BootstrapTokenAuthenticator({
    apiDomain: 'k8s.io',
    apiAudiences,
    now: () => NOW,
    secrets: async (ns, name) => {
      asked.push(`${ns}/${name}`);
      return secret ? ({ metadata: { name, namespace: ns, ...secret.metadata }, ...secret } as KubeObject) : undefined;
    },
  });
  return { a, asked };
}
const bt = (data: Record<string, string>, extra: object = {}) => ({ type: 'bootstrap.k8s.io/token', data: enc(data), ...extra });

describe('BootstrapTokenAuthenticator', () => {
  test('a valid token is system:bootstrap:<id> with the bootstrapper groups', async () => {
    const { a, asked } = authn(bt({ ...good, 'auth-extra-groups': 'system:bootstrappers:nodes', expiration: '2030-01-01T00:00:01Z' }));
    expect(await a.authenticateToken(TOKEN)).toEqual({
      user: { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:nodes'] },
    });
    expect(asked).toEqual(['cluster-system/bootstrap-token-abcdef']);
  });

  test.each<[string, ReturnType<typeof bt> | undefined]>([
    ['no such Secret', undefined],
    ['wrong type', { ...bt(good), type: 'Opaque' }],
    ['upstream type name', { ...bt(good), type: 'bootstrap.kubernetes.io/token' }],
    ['wrong secret', bt({ ...good, 'token-secret': 'fedcba9876543210' })],
    ['mismatched token-id', bt({ ...good, 'token-id': 'zzzzzz' })],
    ['expired', bt({ ...good, expiration: '2029-12-31T23:59:59Z' })],
    ['malformed expiration', bt({ ...good, expiration: 'never' })],
    ['missing usage', bt({ 'token-id': 'abcdef', 'token-secret': '0123456789abcdef' })],
    ['usage false', bt({ ...good, 'usage-bootstrap-authentication': 'false' })],
    ['signing usage only', bt({ 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-signing': 'true' })],
    ['a bad extra group', bt({ ...good, 'auth-extra-groups': 'system:masters' })],
    ['being deleted', bt(good, { metadata: { deletionTimestamp: '2029-12-31T00:00:00Z' } })],
    ['no data', { type: 'bootstrap.k8s.io/token' } as ReturnType<typeof bt>],
  ])('does not accept a token with %s', async (_n, secret) => {
    expect(await authn(secret).a.authenticateToken(TOKEN)).toBeUndefined();
  });

  test.each(['abcdef.0123456789abcde', 'ABCDEF.0123456789abcdef', 'abcdef0123456789abcdef', 'eyJ.eyJ.sig'])('ignores %s without a lookup', async (token) => {
    const { a, asked } = authn(bt(good));
    expect(await a.authenticateToken(token)).toBeUndefined();
    expect(asked).toEqual([]);
  });

  test('audience-agnostic: valid only for requested audiences that are the server\'s', async () => {
    const { a } = authn(bt(good), ['api', 'other']);
    expect(await a.authenticateToken(TOKEN, ['vault'])).toBeUndefined();
    expect((await a.authenticateToken(TOKEN, ['vault', 'other']))?.audiences).toEqual(['other']);
  });
});
