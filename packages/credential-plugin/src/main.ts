#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseGoDuration } from '@cluster/apimachinery';
import { parse as parseYaml } from 'yaml';
import { call } from './api.js';
import { parseArgs } from './args.js';
import { bootstrapCredential, pinCluster } from './bootstrap.js';
import { execCredential, parseExecInfo, type ExecInfo } from './exec-credential.js';
import { credentialKey } from './store.js';

const USAGE = `Usage:
  cluster-credential bootstrap --server URL --token ID.SECRET [--signer NAME] [--node-name NAME | --common-name CN --organization O]
                               [--dir DIR] [--expiration-seconds N] [--renew-before DURATION] [--wait DURATION] [--api-domain DOMAIN]
  cluster-credential token-file --file PATH [--expiry RFC3339 | --expires-in DURATION]
  cluster-credential kubeconfig --mode bootstrap --server URL --token ID.SECRET [bootstrap flags]
  cluster-credential kubeconfig --mode serviceaccount --namespace NS --name SA [--kubeconfig PATH] [--duration DURATION]`;

const one = (flags: Map<string, string[]>, name: string) => flags.get(name)?.at(-1);

function fail(message: string): never {
  throw new Error(message);
}

/** A missing required value: read from stdin when kubectl says it is interactive, else an error. */
async function required(value: string | undefined, what: string, flag: string, info: ExecInfo | undefined): Promise<string> {
  if (value) return value;
  if (!info?.interactive) fail(`no ${what}: pass ${flag}`);
  process.stderr.write(`${what}: `);
  const rl = createInterface({ input: process.stdin });
  const line = await new Promise<string>((res) => rl.once('line', res).once('close', () => res('')));
  rl.close();
  if (!line.trim()) fail(`no ${what} given`);
  return line.trim();
}

const BOOTSTRAP_FLAGS = ['server', 'token', 'signer', 'node-name', 'common-name', 'organization', 'dir', 'expiration-seconds', 'renew-before', 'wait', 'api-domain'];

async function bootstrap(argv: string[]): Promise<void> {
  const { flags } = parseArgs(argv, BOOTSTRAP_FLAGS);
  const apiDomain = one(flags, 'api-domain') ?? 'k8s.io';
  const info = parseExecInfo(process.env['KUBERNETES_EXEC_INFO'], apiDomain);
  const server = await required(one(flags, 'server') ?? info.cluster?.server, 'API server URL', '--server (or provideClusterInfo)', info);
  const token = await required(one(flags, 'token'), 'bootstrap token', '--token', info);
  const signerName = one(flags, 'signer') ?? `${apiDomain}/api-server-client-node-agent`;
  const nodeSigner = signerName === `${apiDomain}/api-server-client-node-agent`;
  const nodeName = (one(flags, 'node-name') ?? hostname()).toLowerCase();
  const commonName = one(flags, 'common-name') ?? (nodeSigner ? `system:node:${nodeName}` : fail('--common-name is required for this signer'));
  const organizations = flags.get('organization') ?? (nodeSigner ? ['system:nodes'] : []);
  const key = credentialKey(server, commonName, info.cluster?.['certificate-authority-data']);
  const dir = resolve(one(flags, 'dir') ?? join(process.env['XDG_STATE_HOME'] ?? join(homedir(), '.local', 'state'), 'cluster-credential', key));
  const expiration = one(flags, 'expiration-seconds');
  const cred = await bootstrapCredential({
    server,
    token,
    apiDomain,
    signerName,
    commonName,
    organizations,
    dir,
    expirationSeconds: expiration ? Number(expiration) : undefined,
    renewBeforeMs: parseGoDuration(one(flags, 'renew-before') ?? '10m'),
    waitMs: parseGoDuration(one(flags, 'wait') ?? '2m'),
    log: (line) => process.stderr.write(`cluster-credential: ${line}\n`),
  });
  process.stdout.write(
    execCredential(info.apiVersion, {
      clientCertificateData: cred.certPem,
      clientKeyData: cred.keyPem,
      expirationTimestamp: cred.notAfter.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    }),
  );
}

async function tokenFile(argv: string[]): Promise<void> {
  const { flags } = parseArgs(argv, ['file', 'expiry', 'expires-in', 'api-domain']);
  const info = parseExecInfo(process.env['KUBERNETES_EXEC_INFO'], one(flags, 'api-domain') ?? 'k8s.io');
  const file = await required(one(flags, 'file'), 'token file', '--file', info);
  const token = (await readFile(file, 'utf8').catch(() => fail(`cannot read the token file ${file}`))).trim();
  if (!token) fail(`the token file ${file} is empty`);
  let expirationTimestamp: string | undefined;
  const expiry = one(flags, 'expiry');
  const expiresIn = one(flags, 'expires-in');
  if (expiry) {
    if (Number.isNaN(Date.parse(expiry))) fail(`--expiry ${expiry} is not an RFC 3339 time`);
    expirationTimestamp = expiry;
  } else if (expiresIn) {
    expirationTimestamp = new Date(Date.now() + parseGoDuration(expiresIn)).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  process.stdout.write(execCredential(info.apiVersion, { token, ...(expirationTimestamp ? { expirationTimestamp } : {}) }));
}

function kubeconfigYaml(server: string, caPem: string, user: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: cluster',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`,
    'users:',
    '- name: user',
    '  user:',
    user,
    'contexts:',
    '- name: default',
    '  context: {cluster: cluster, user: user}',
    'current-context: default',
    '',
  ].join('\n');
}

async function kubeconfig(argv: string[]): Promise<void> {
  const { flags } = parseArgs(argv, [...BOOTSTRAP_FLAGS, 'mode', 'namespace', 'name', 'kubeconfig', 'duration']);
  const mode = one(flags, 'mode') ?? fail('--mode bootstrap or --mode serviceaccount is required');
  if (mode === 'bootstrap') {
    const server = one(flags, 'server') ?? fail('--server is required');
    const token = one(flags, 'token') ?? fail('--token is required');
    const cluster = await pinCluster(server, token);
    const pass = [...flags].filter(([k]) => BOOTSTRAP_FLAGS.includes(k)).flatMap(([k, vs]) => vs.flatMap((v) => [`--${k}`, v]));
    const args = [process.argv[1]!, 'bootstrap', ...pass].map((a) => `      - ${JSON.stringify(a)}`).join('\n');
    const exec = [
      '    exec:',
      `      apiVersion: client.authentication.${one(flags, 'api-domain') ?? 'k8s.io'}/v1`,
      `      command: ${JSON.stringify(process.execPath)}`,
      '      args:',
      args.replace(/^ {6}/gm, '      '),
      '      interactiveMode: IfAvailable',
      '      provideClusterInfo: true',
    ].join('\n');
    process.stdout.write(kubeconfigYaml(cluster.server, cluster.caPem, exec));
    return;
  }
  if (mode === 'serviceaccount') {
    const namespace = one(flags, 'namespace') ?? fail('--namespace is required');
    const name = one(flags, 'name') ?? fail('--name is required');
    const path = one(flags, 'kubeconfig') ?? process.env['KUBECONFIG']?.split(':')[0] ?? join(homedir(), '.kube', 'config');
    const kc = parseYaml(await readFile(path, 'utf8').catch(() => fail(`cannot read the kubeconfig ${path}`))) as {
      clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
      users: { user: { token?: string; 'client-certificate-data'?: string; 'client-key-data'?: string } }[];
    };
    const c = kc.clusters[0]!.cluster;
    const u = kc.users[0]!.user;
    const caPem = Buffer.from(c['certificate-authority-data'], 'base64').toString();
    const b64 = (s?: string) => (s ? Buffer.from(s, 'base64').toString() : undefined);
    const seconds = Math.round(parseGoDuration(one(flags, 'duration') ?? '1h') / 1000);
    const r = await call(c.server, 'POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, { caPem, token: u.token, certPem: b64(u['client-certificate-data']), keyPem: b64(u['client-key-data']) }, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: seconds },
    });
    if (r.status !== 201) fail(`TokenRequest for ${namespace}/${name} failed: HTTP ${r.status} ${r.json?.message ?? ''}`.trim());
    process.stdout.write(kubeconfigYaml(c.server, caPem, `    token: ${r.json.status.token}`));
    return;
  }
  fail(`unknown --mode ${mode}: bootstrap or serviceaccount`);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'bootstrap') return bootstrap(rest);
  if (command === 'token-file') return tokenFile(rest);
  if (command === 'kubeconfig') return kubeconfig(rest);
  process.stderr.write(`${USAGE}\n`);
  process.exit(command === undefined || command === '--help' || command === 'help' ? 0 : 2);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`cluster-credential: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}\n`);
  process.exit(1);
});
