import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentialsFromKubeconfig, loadWebhookCredentials } from './webhook-credentials.js';

const dir = mkdtempSync(join(tmpdir(), 'webhook-creds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfig(users: Array<{ name: string; user: Record<string, string> }>): string {
  const path = join(dir, `kc-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify({ apiVersion: 'v1', kind: 'Config', users }));
  return path;
}

describe('credentials by webhook host, as upstream resolves them', () => {
  const lookup = credentialsFromKubeconfig(
    kubeconfig([
      { name: 'hook.ns.svc:8443', user: { token: 'exact' } },
      { name: '*.example.com', user: { token: 'wildcard' } },
      { name: 'plain.org', user: { username: 'u', password: 'p' } },
      { name: '*', user: { token: 'default' } },
    ]),
  );
  test.each([
    ['hook.ns.svc:8443', 'exact'],
    ['a.b.example.com:443', 'wildcard'],
    // The port is part of the name: `*.example.com` names port 443 only.
    ['a.b.example.com:9000', 'default'],
    ['plain.org:443', undefined],
    ['hook.ns.svc:443', 'default'],
    ['10.0.0.1:443', 'default'],
  ])('%s', (host, token) => {
    expect(lookup(host)?.token).toBe(token);
  });
  test('a default port 443 is tried without the port; basic credentials are kept', () => {
    expect(lookup('plain.org:443')).toEqual({ username: 'u', password: 'p' });
  });
  test('without a `*` user, an unknown host gets no credentials', () => {
    const none = credentialsFromKubeconfig(kubeconfig([{ name: 'only.one:443', user: { token: 't' } }]));
    expect(none('other.host:443')).toBeUndefined();
    expect(none('only.one')).toBeUndefined();
    expect(none('only.one:443')?.token).toBe('t');
  });
  test('a certificate without its key is refused', () => {
    expect(() => credentialsFromKubeconfig(kubeconfig([{ name: 'x', user: { 'client-certificate-data': 'AAAA' } }]))).toThrow(/both a client certificate and its key/);
  });
});

describe('the AdmissionConfiguration file', () => {
  test('each webhook plugin gets its own kubeconfig, inline or by path', () => {
    const kc = kubeconfig([{ name: '*', user: { token: 'from-file' } }]);
    writeFileSync(join(dir, 'validating.yaml'), `apiVersion: apiserver.config.k8s.io/v1\nkind: WebhookAdmissionConfiguration\nkubeConfigFile: ${kc}\n`);
    const config = join(dir, 'admission.yaml');
    writeFileSync(config, ['apiVersion: apiserver.config.k8s.io/v1', 'kind: AdmissionConfiguration', 'plugins:', '- name: ValidatingAdmissionWebhook', '  path: validating.yaml', '- name: EventRateLimit', '  path: nowhere.yaml', ''].join('\n'));
    const creds = loadWebhookCredentials(config);
    expect(creds.validating?.('x:443')?.token).toBe('from-file');
    expect(creds.mutating).toBeUndefined();
  });
  test('a relative kubeConfigFile and a wrong kind are refused', () => {
    const rel = join(dir, 'rel.yaml');
    writeFileSync(rel, ['kind: AdmissionConfiguration', 'plugins:', '- name: MutatingAdmissionWebhook', '  configuration:', '    kind: WebhookAdmissionConfiguration', '    kubeConfigFile: kc.yaml', ''].join('\n'));
    expect(() => loadWebhookCredentials(rel)).toThrow(/must be an absolute file path/);
    const wrong = join(dir, 'wrong.yaml');
    writeFileSync(wrong, 'kind: Policy\n');
    expect(() => loadWebhookCredentials(wrong)).toThrow(/kind must be AdmissionConfiguration/);
    expect(() => loadWebhookCredentials(join(dir, 'missing.yaml'))).toThrow(/missing.yaml/);
  });
});
