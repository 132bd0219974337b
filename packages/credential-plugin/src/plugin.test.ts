import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactSign } from 'jose';
import { parseArgs } from './args.js';
import { verifyClusterInfo } from './cluster-info.js';
import { execCredential, parseExecInfo } from './exec-credential.js';
import { credentialKey, credentialPlan, loadCredential, saveCredential } from './store.js';

const TOKEN = 'abcdef.0123456789abcdef';
const kubeconfig = `apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    certificate-authority-data: ${Buffer.from('CA PEM').toString('base64')}\n    server: https://10.0.0.1:6443\n  name: ""\n`;

async function sign(payload: string, key: string, alg = 'HS256'): Promise<string> {
  const jws = await new CompactSign(new TextEncoder().encode(payload)).setProtectedHeader({ alg, kid: 'abcdef' }).sign(new TextEncoder().encode(key));
  const [h, , s] = jws.split('.');
  return `${h}..${s}`;
}

describe('parseExecInfo (SPEC 2.11)', () => {
  test.each([
    ['v1, interactive', { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', spec: { interactive: true } }, { apiVersion: 'client.authentication.k8s.io/v1', interactive: true }],
    ['v1beta1 with cluster info', { apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', spec: { cluster: { server: 'https://x' } } }, { apiVersion: 'client.authentication.k8s.io/v1beta1', interactive: false, cluster: { server: 'https://x' } }],
  ])('%s', (_, info, want) => {
    expect(parseExecInfo(JSON.stringify(info), 'k8s.io')).toEqual(want);
  });

  test.each([
    [undefined, 'KUBERNETES_EXEC_INFO is not set'],
    ['{', 'not valid JSON'],
    [JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1alpha1', kind: 'ExecCredential' }), 'supported: client.authentication.k8s.io/v1, client.authentication.k8s.io/v1beta1'],
    [JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'Other' }), 'not ExecCredential'],
  ])('%s is refused', (raw, message) => {
    expect(() => parseExecInfo(raw, 'k8s.io')).toThrow(message);
  });

  test('the answer is an ExecCredential of the asked version', () => {
    expect(JSON.parse(execCredential('client.authentication.k8s.io/v1beta1', { token: 't' }))).toEqual({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status: { token: 't' } });
  });
});

describe('verifyClusterInfo (SPEC 4.12)', () => {
  test('a signature by the token verifies and pins the CA', async () => {
    const data = { kubeconfig, 'jws-kubeconfig-abcdef': await sign(kubeconfig, TOKEN) };
    expect(await verifyClusterInfo(data, TOKEN)).toMatchObject({ server: 'https://10.0.0.1:6443', caPem: 'CA PEM' });
  });

  test.each([
    ['a tampered payload', async () => ({ kubeconfig: kubeconfig.replace('10.0.0.1', '10.6.6.6'), 'jws-kubeconfig-abcdef': await sign(kubeconfig, TOKEN) }), 'does not verify'],
    ['a signature by another token', async () => ({ kubeconfig, 'jws-kubeconfig-abcdef': await sign(kubeconfig, 'abcdef.ffffffffffffffff') }), 'does not verify'],
    ['a tampered signature', async () => ({ kubeconfig, 'jws-kubeconfig-abcdef': (await sign(kubeconfig, TOKEN)).replace(/..$/, 'AA') }), 'does not verify'],
    ['HS512 instead of HS256', async () => ({ kubeconfig, 'jws-kubeconfig-abcdef': await sign(kubeconfig, TOKEN, 'HS512') }), 'does not verify'],
    ['no signature for the token', async () => ({ kubeconfig }), 'no signature for token id abcdef'],
    ['an attached payload', async () => ({ kubeconfig, 'jws-kubeconfig-abcdef': 'a.b.c' }), 'not a detached JWS'],
  ])('%s is refused', async (_, data, message) => {
    await expect(verifyClusterInfo(await data(), TOKEN)).rejects.toThrow(message);
  });
});

describe('the credential store', () => {
  const now = new Date('2030-01-01T00:00:00Z');
  test.each<[string, Date | undefined, 'reuse' | 'renew' | 'join']>([
    ['nothing stored', undefined, 'join'],
    ['expired', new Date('2029-12-31T23:59:59Z'), 'join'],
    ['within the renewal margin', new Date('2030-01-01T00:05:00Z'), 'renew'],
    ['plenty left', new Date('2030-01-02T00:00:00Z'), 'reuse'],
  ])('%s: %s', (_, notAfter, want) => {
    expect(credentialPlan(notAfter && { certPem: '', keyPem: '', notAfter }, now, 10 * 60_000)).toBe(want);
  });

  test('saved files are 0600 and read back; a missing or broken store is nothing', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'cred-')), 'store');
    expect(await loadCredential(dir)).toBeUndefined();
    await saveCredential(dir, 'not a certificate', 'key');
    expect((statSync(join(dir, 'client.key')).mode & 0o777).toString(8)).toBe('600');
    expect((statSync(join(dir, 'client.crt')).mode & 0o777).toString(8)).toBe('600');
    expect(await loadCredential(dir)).toBeUndefined();
  });
});

test('parseArgs: known flags in both forms, repeatable ones collected, unknown refused', () => {
  expect([...parseArgs(['--server', 'https://x', '--organization=a', '--organization', 'b'], ['server', 'organization']).flags]).toEqual([
    ['server', ['https://x']],
    ['organization', ['a', 'b']],
  ]);
  expect(() => parseArgs(['--nope', 'x'], ['server'])).toThrow('unknown flag --nope');
  expect(() => parseArgs(['--server'], ['server'])).toThrow('flag --server needs a value');
});

describe('credentialKey', () => {
  test('a cluster made anew at the same address (another CA) keeps its credential apart', () => {
    const server = 'https://127.0.0.1:6443';
    const first = credentialKey(server, 'system:node:a', Buffer.from('CA one').toString('base64'));
    expect(credentialKey(server, 'system:node:a', Buffer.from('CA one').toString('base64'))).toBe(first);
    expect(credentialKey(server, 'system:node:a', Buffer.from('CA two').toString('base64'))).not.toBe(first);
    expect(credentialKey(server, 'system:node:b', Buffer.from('CA one').toString('base64'))).not.toBe(first);
    expect(credentialKey('https://127.0.0.1:7443', 'system:node:a', Buffer.from('CA one').toString('base64'))).not.toBe(first);
    expect(first).toMatch(/^[0-9a-f]{16}$/);
  });
});
