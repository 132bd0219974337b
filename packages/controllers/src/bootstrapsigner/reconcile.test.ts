import { compactVerify, decodeProtectedHeader } from 'jose';
import { bootstrapTokenSecret } from '../bootstraptoken/fixtures.js';
import type { Secret } from '../bootstraptoken/secrets.js';
import { clusterInfoKubeconfig } from './kubeconfig.js';
import { reconcileClusterInfo, signingTokens, type ConfigMap } from './reconcile.js';

const D = 'example.org';
const NOW = Date.parse('2030-01-01T00:00:00Z');
const KC = clusterInfoKubeconfig({ serverUrl: 'https://10.0.0.1:6443', caPem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' });
const SECRET = '0123456789abcdef';

const token = (id: string, data: Record<string, string> = {}, meta: Partial<Secret['metadata']> = {}): Secret =>
  bootstrapTokenSecret(D, id, { 'token-secret': SECRET, 'usage-bootstrap-signing': 'true', ...data }, meta);

const cm = (data: Record<string, string>): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cluster-info', namespace: 'cluster-public', resourceVersion: '7' },
  data,
});

/** Verifies as SPEC 4.12 tells a client to: the payload's base64url goes back between the dots. */
async function verifies(jws: string, kubeconfig: string, fullToken: string): Promise<boolean> {
  const [header, empty, signature] = jws.split('.');
  if (empty !== '' || !header || !signature) return false;
  const attached = `${header}.${Buffer.from(kubeconfig).toString('base64url')}.${signature}`;
  try {
    const { payload, protectedHeader } = await compactVerify(attached, new TextEncoder().encode(fullToken), { algorithms: ['HS256'] });
    return protectedHeader.alg === 'HS256' && new TextDecoder().decode(payload) === kubeconfig;
  } catch {
    return false;
  }
}

const plan = (current: ConfigMap | undefined, secrets: Secret[], kubeconfig = KC) => reconcileClusterInfo({ current, secrets, kubeconfig, apiDomain: D, now: NOW });

describe('clusterInfoKubeconfig', () => {
  test('one unnamed cluster with server and CA data, nothing else', () => {
    expect(KC).toContain('server: https://10.0.0.1:6443');
    expect(KC).toContain(`certificate-authority-data: ${Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n').toString('base64')}`);
    expect(KC).toContain('users: []');
    expect(KC).not.toContain('token');
    expect(clusterInfoKubeconfig({ serverUrl: 'http://x' })).not.toContain('certificate-authority-data');
  });
});

describe('signingTokens', () => {
  test.each<[string, Secret, boolean]>([
    ['signing, no expiration', token('abcdef'), true],
    ['signing, expires later', token('abcdef', { expiration: '2030-01-01T00:00:01Z' }), true],
    ['expired', token('abcdef', { expiration: '2029-12-31T23:59:59Z' }), false],
    ['expires exactly now', token('abcdef', { expiration: '2030-01-01T00:00:00Z' }), false],
    ['malformed expiration counts as expired', token('abcdef', { expiration: 'tomorrow' }), false],
    ['not for signing', token('abcdef', { 'usage-bootstrap-signing': '' }), false],
    ['signing absent', bootstrapTokenSecret(D, 'abcdef', { 'token-secret': SECRET }), false],
    ['short secret', token('abcdef', { 'token-secret': 'short' }), false],
    ['name does not match the id', token('abcdef', {}, { name: 'bootstrap-token-zzzzzz' }), false],
    ['other namespace', token('abcdef', {}, { namespace: 'default' }), false],
    ['being deleted', token('abcdef', {}, { deletionTimestamp: '2029-01-01T00:00:00Z' }), false],
    ['other type', { ...token('abcdef'), type: 'Opaque' }, false],
    ['type under another domain', { ...token('abcdef'), type: 'bootstrap.k8s.io/token' }, false],
  ])('%s', (_name, secret, signs) => {
    expect(signingTokens([secret], D, NOW)).toEqual(signs ? [{ id: 'abcdef', secret: SECRET }] : []);
  });
});

describe('reconcileClusterInfo', () => {
  test('missing ConfigMap: created with the kubeconfig and a verifying signature per signing token', async () => {
    const p = await plan(undefined, [token('abcdef'), token('ghijkl', { expiration: '2000-01-01T00:00:00Z' }), token('mnopqr')]);
    expect(p.op).toBe('create');
    if (p.op === 'none') return;
    expect(p.object.metadata).toEqual({ name: 'cluster-info', namespace: 'cluster-public' });
    const data = p.object.data!;
    expect(Object.keys(data).sort()).toEqual(['jws-kubeconfig-abcdef', 'jws-kubeconfig-mnopqr', 'kubeconfig']);
    expect(data.kubeconfig).toBe(KC);
    const jws = data['jws-kubeconfig-abcdef']!;
    expect(jws).toMatch(/^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+$/);
    expect(decodeProtectedHeader(jws)).toEqual({ alg: 'HS256', kid: 'abcdef' });
    expect(await verifies(jws, KC, `abcdef.${SECRET}`)).toBe(true);
    expect(await verifies(jws, KC, `abcdef.${'f'.repeat(16)}`)).toBe(false);
    expect(await verifies(jws, `${KC}#`, `abcdef.${SECRET}`)).toBe(false);
    expect(await verifies(data['jws-kubeconfig-mnopqr']!, KC, `mnopqr.${SECRET}`)).toBe(true);
  });

  test('unchanged input: no write', async () => {
    const first = await plan(undefined, [token('abcdef')]);
    if (first.op === 'none') throw new Error('expected a create');
    expect(await plan(cm(first.object.data!), [token('abcdef')])).toEqual({ op: 'none' });
    expect(await plan(cm({ kubeconfig: KC }), [])).toEqual({ op: 'none' });
  });

  test.each<[string, Record<string, string>, Secret[], string[]]>([
    ['a new token is added', { kubeconfig: KC }, [token('abcdef')], ['jws-kubeconfig-abcdef', 'kubeconfig']],
    ['a deleted token loses its signature', { kubeconfig: KC, 'jws-kubeconfig-abcdef': 'x..y' }, [], ['kubeconfig']],
    [
      'an expired token loses its signature',
      { kubeconfig: KC, 'jws-kubeconfig-abcdef': 'x..y' },
      [token('abcdef', { expiration: '2029-01-01T00:00:00Z' })],
      ['kubeconfig'],
    ],
    [
      'a token no longer for signing loses its signature',
      { kubeconfig: KC, 'jws-kubeconfig-abcdef': 'x..y' },
      [token('abcdef', { 'usage-bootstrap-signing': 'false' })],
      ['kubeconfig'],
    ],
    ['a wrong signature is replaced', { kubeconfig: KC, 'jws-kubeconfig-abcdef': 'x..y' }, [token('abcdef')], ['jws-kubeconfig-abcdef', 'kubeconfig']],
    ['other keys are kept', { kubeconfig: KC, note: 'mine' }, [token('abcdef')], ['jws-kubeconfig-abcdef', 'kubeconfig', 'note']],
    ['a missing kubeconfig is written', {}, [], ['kubeconfig']],
  ])('%s', async (_name, data, secrets, keys) => {
    const p = await plan(cm(data), secrets);
    expect(p.op).toBe('update');
    if (p.op === 'none') return;
    expect(Object.keys(p.object.data!).sort()).toEqual(keys);
    expect(p.object.metadata.resourceVersion).toBe('7');
    expect(p.object.data!.kubeconfig).toBe(KC);
    if (p.object.data!['jws-kubeconfig-abcdef']) expect(await verifies(p.object.data!['jws-kubeconfig-abcdef'], KC, `abcdef.${SECRET}`)).toBe(true);
  });

  test('a new CA rewrites the kubeconfig and every signature', async () => {
    const before = await plan(undefined, [token('abcdef')]);
    if (before.op === 'none') throw new Error('expected a create');
    const newKc = clusterInfoKubeconfig({ serverUrl: 'https://10.0.0.1:6443', caPem: 'another CA' });
    const p = await plan(cm(before.object.data!), [token('abcdef')], newKc);
    expect(p.op).toBe('update');
    if (p.op === 'none') return;
    expect(p.object.data!.kubeconfig).toBe(newKc);
    const jws = p.object.data!['jws-kubeconfig-abcdef']!;
    expect(jws).not.toBe(before.object.data!['jws-kubeconfig-abcdef']);
    expect(await verifies(jws, newKc, `abcdef.${SECRET}`)).toBe(true);
    expect(await verifies(jws, KC, `abcdef.${SECRET}`)).toBe(false);
  });
});
