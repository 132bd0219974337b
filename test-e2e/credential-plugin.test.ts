import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { KubeconfigClient } from './support/http-client.js';
import { kubectl, startServerProcess, type ServerProcess } from './support/server-process.js';

// The exec credential plugin (SPEC 2.11, 5.6) run by the real kubectl against the built server
// with `make run`'s flags: it joins with a bootstrap token, reuses its stored certificate, renews
// it near expiry (with the certificate itself), and fails with one line for bad input.
const exec = promisify(execFile);
const PLUGIN = join(fileURLToPath(new URL('..', import.meta.url)), 'packages/credential-plugin/dist/src/main.js');
const TOKEN = 'b0b0b0.0123456789abcdef';
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
let server: ServerProcess;
let admin: KubeconfigClient;
let dir = '';

beforeAll(async () => {
  server = await startServerProcess(['--authorization-mode=Node,RBAC', '--enable-bootstrap-token-auth', '--node-join-bindings', '--controllers=*,bootstrapsigner,tokencleaner']);
  admin = new KubeconfigClient(server.kubeconfig);
  dir = await mkdtemp(join(tmpdir(), 'plugin-'));
  const secret = (id: string, secretPart: string, signing: boolean) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'cluster-system' },
    type: 'bootstrap.k8s.io/token',
    stringData: { 'token-id': id, 'token-secret': secretPart, 'usage-bootstrap-authentication': 'true', ...(signing ? { 'usage-bootstrap-signing': 'true' } : {}) },
  });
  expect((await admin.call('POST', '/api/v1/namespaces/cluster-system/secrets', secret('b0b0b0', '0123456789abcdef', true))).status).toBe(201);
  expect((await admin.call('POST', '/api/v1/namespaces/cluster-system/secrets', secret('n0sign', '0123456789abcdef', false))).status).toBe(201);
  // The bootstrap signer publishes the signature within a moment.
  for (let i = 0; i < 100; i++) {
    const ci = await admin.call('GET', '/api/v1/namespaces/cluster-public/configmaps/cluster-info');
    if (ci.json?.data?.['jws-kubeconfig-b0b0b0']) break;
    await new Promise((r) => setTimeout(r, 100));
  }
}, 60_000);

afterAll(async () => {
  admin?.close();
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
}, 30_000);

/** A kubeconfig whose user is the plugin; `extra` are more plugin flags. */
async function pluginKubeconfig(name: string, apiVersion: string, extra: string[], interactiveMode?: string): Promise<Record<string, string>> {
  const ca = Buffer.from(admin.ca).toString('base64');
  const args = ['bootstrap', '--server', server.url, '--token', TOKEN, '--dir', join(dir, name), ...extra];
  const file = join(dir, `${name}.kubeconfig`);
  await writeFile(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters:\n- name: c\n  cluster:\n    server: ${server.url}\n    certificate-authority-data: ${ca}`,
      'users:',
      '- name: plugin',
      '  user:',
      '    exec:',
      `      apiVersion: ${apiVersion}`,
      `      command: ${JSON.stringify(process.execPath)}`,
      `      args: ${JSON.stringify([PLUGIN, ...args])}`,
      ...(interactiveMode ? [`      interactiveMode: ${interactiveMode}`] : []),
      'contexts:\n- name: x\n  context: {cluster: c, user: plugin}',
      'current-context: x',
      '',
    ].join('\n'),
  );
  return { KUBECONFIG: file };
}

/** The requests the plugin made for node `node` (it names them after the subject). */
const csrCount = async (node: string) =>
  ((await admin.call('GET', CSRS)).json.items as { metadata: { name: string } }[]).filter((c) => c.metadata.name.startsWith(`system-node-${node}-`)).length;

test('kubectl joins through the plugin, reuses the stored certificate, and renews it near expiry', async () => {
  // A 600 s certificate renewed when less than 590 s are left: reused for ~10 s, then renewed.
  const env = await pluginKubeconfig('w1', 'client.authentication.k8s.io/v1', ['--node-name', 'w1', '--expiration-seconds', '600', '--renew-before', '590s'], 'Never');
  const first = await kubectl(server, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username} {.status.userInfo.groups}'], env);
  expect(first.stderr).not.toContain('error');
  expect(first.stdout).toBe('system:node:w1 ["system:nodes","system:authenticated"]');
  expect(await csrCount('w1')).toBe(1);
  expect(existsSync(join(dir, 'w1', 'client.crt'))).toBe(true);
  const second = await kubectl(server, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'], env);
  expect(second.stdout).toBe('system:node:w1');
  expect(await csrCount('w1')).toBe(1);
  await new Promise((r) => setTimeout(r, 10_500));
  const third = await kubectl(server, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'], env);
  expect(third.stdout).toBe('system:node:w1');
  expect(await csrCount('w1')).toBe(2);
  // The renewal was requested by the node itself (its certificate), not the bootstrap token.
  const requesters = ((await admin.call('GET', CSRS)).json.items as { metadata: { name: string }; spec: { username: string } }[])
    .filter((c) => c.metadata.name.startsWith('system-node-w1-'))
    .map((c) => c.spec.username)
    .sort();
  expect(requesters).toEqual(['system:bootstrap:b0b0b0', 'system:node:w1']);
}, 60_000);

test('v1beta1 exec credentials work too', async () => {
  const env = await pluginKubeconfig('w2', 'client.authentication.k8s.io/v1beta1', ['--node-name', 'w2']);
  const r = await kubectl(server, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'], env);
  expect(r.stdout).toBe('system:node:w2');
}, 60_000);

const EXEC_INFO = { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', spec: { interactive: false } };

/** Runs the plugin as kubectl would (KUBERNETES_EXEC_INFO set), or bare when `withInfo` is false. */
async function runPlugin(args: string[], withInfo = true) {
  const env = { ...process.env, KUBERNETES_EXEC_INFO: withInfo ? JSON.stringify(EXEC_INFO) : '' };
  return exec(process.execPath, [PLUGIN, ...args], { env, timeout: 30_000 }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
}

test.each<[string, string[], boolean, string]>([
  ['no exec info (not run by kubectl)', ['--token', TOKEN], false, 'KUBERNETES_EXEC_INFO is not set'],
  ['a missing token, not interactive', [], true, 'no bootstrap token: pass --token'],
  ['a malformed token', ['--token', 'nope'], true, 'the bootstrap token must look like'],
  ['a server that is down', ['--token', TOKEN, '--server', 'https://127.0.0.1:1'], true, 'cannot reach https://127.0.0.1:1'],
  ['a token cluster-info is not signed for', ['--token', 'n0sign.0123456789abcdef'], true, 'no signature for token id n0sign'],
])('%s: one line on stderr, exit 1, nothing stored', async (_, args, withInfo, message) => {
  const store = join(dir, `bad-${Math.random().toString(36).slice(2)}`);
  const server_ = args.includes('--server') ? [] : ['--server', server.url];
  const r = await runPlugin(['bootstrap', ...server_, ...args, '--dir', store], withInfo);
  expect(r.code).toBe(1);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toContain(message);
  expect(existsSync(store)).toBe(false);
}, 30_000);

test('an interactive session reads a missing token from stdin', async () => {
  const store = join(dir, 'interactive');
  const child = execFile(process.execPath, [PLUGIN, 'bootstrap', '--server', server.url, '--node-name', 'w3', '--dir', store], {
    env: { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', spec: { interactive: true } }) },
  });
  child.stdin!.end(`${TOKEN}\n`);
  const out = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`exit ${code}`))));
  });
  const cred = JSON.parse(out) as { apiVersion: string; kind: string; status: { clientCertificateData: string; expirationTimestamp: string } };
  expect(cred).toMatchObject({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential' });
  expect(cred.status.clientCertificateData).toContain('BEGIN CERTIFICATE');
  expect(cred.status.expirationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
}, 60_000);

test('a denied request fails with one line and stores nothing', async () => {
  const store = join(dir, 'denied');
  const running = runPlugin(['bootstrap', '--server', server.url, '--token', TOKEN, '--signer', 'k8s.io/api-server-client', '--common-name', 'carol', '--dir', store, '--wait', '20s']);
  let name: string | undefined;
  for (let i = 0; i < 100 && !name; i++) {
    const items = (await admin.call('GET', CSRS)).json.items as { metadata: { name: string } }[];
    name = items.find((c) => c.metadata.name.startsWith('carol-'))?.metadata.name;
    if (!name) await new Promise((r) => setTimeout(r, 100));
  }
  expect(name).toBeDefined();
  expect((await kubectl(server, ['certificate', 'deny', name!])).code).toBe(0);
  const r = await running;
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`the certificate request ${name} was denied`);
  expect(existsSync(store)).toBe(false);
}, 60_000);

test('kubeconfig --mode bootstrap prints a kubeconfig that kubectl uses as is', async () => {
  const r = await runPlugin(['kubeconfig', '--mode', 'bootstrap', '--server', server.url, '--token', TOKEN, '--node-name', 'w4', '--dir', join(dir, 'w4')]);
  expect(r.code).toBe(0);
  const file = join(dir, 'printed.kubeconfig');
  await writeFile(file, r.stdout);
  const who = await kubectl(server, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'], { KUBECONFIG: file });
  expect(who.stdout).toBe('system:node:w4');
}, 60_000);

test('kubeconfig --mode serviceaccount prints a kubeconfig with a TokenRequest token', async () => {
  expect((await admin.call('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'robot' } })).status).toBe(201);
  const r = await runPlugin(['kubeconfig', '--mode', 'serviceaccount', '--namespace', 'default', '--name', 'robot', '--kubeconfig', server.kubeconfig]);
  expect(r.code).toBe(0);
  const file = join(dir, 'sa.kubeconfig');
  await writeFile(file, r.stdout);
  const who = await kubectl(server, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'], { KUBECONFIG: file });
  expect(who.stdout).toBe('system:serviceaccount:default:robot');
}, 60_000);

test.each([
  ['IfAvailable', true],
  ['Always', false],
])('interactiveMode %s (kubectl without a terminal)', async (mode, works) => {
  const env = await pluginKubeconfig(`mode-${mode}`, 'client.authentication.k8s.io/v1', ['--node-name', `m-${mode.toLowerCase()}`], mode);
  const r = await kubectl(server, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'], env);
  if (works) {
    expect(r.stdout).toBe(`system:node:m-${mode.toLowerCase()}`);
  } else {
    // kubectl itself refuses to run a plugin that must be interactive when stdin is no terminal.
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/interactive/i);
    expect(existsSync(join(dir, `mode-${mode}`))).toBe(false);
  }
}, 60_000);
