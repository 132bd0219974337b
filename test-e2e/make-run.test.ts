import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { kubectl, startMakeRunProcess, tokenKubeconfig, type KubectlResult, type ServerProcess } from './support/server-process.js';

// The server exactly as `make run` starts it (hack/make-run.sh, no other flag): the README's join
// flow works as written, and under the default Node,RBAC authorization a bootstrap token, a fresh
// service account and a joined node get what upstream gives them and no more.
const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = 'abcdef.0123456789abcdef';
// The node name the plugin uses by default, as the README's flow runs it.
const NODE = hostname().toLowerCase();
let server: ServerProcess;
let nodeEnv: Record<string, string>;

const ok = async (args: string[], env: Record<string, string> = {}): Promise<string> => {
  const r = await kubectl(server, args, env);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
};

/** Retries `probe` (bounded in count and time) until it says done; the Node authorizer's graph follows pods by a watch. */
async function until(what: string, probe: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const start = Date.now();
  for (let i = 0; i < 200; i++) {
    if (await probe()) return;
    if (Date.now() - start > ms) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const forbidden = (r: KubectlResult) => r.code !== 0 && /Forbidden|forbidden/.test(r.stderr);

beforeAll(async () => {
  server = await startMakeRunProcess();
  await ok(['-n', 'cluster-system', 'create', 'secret', 'generic', 'bootstrap-token-abcdef', '--type=bootstrap.k8s.io/token',
    '--from-literal=token-id=abcdef', '--from-literal=token-secret=0123456789abcdef',
    '--from-literal=usage-bootstrap-authentication=true', '--from-literal=usage-bootstrap-signing=true']);
  // The bootstrap signer signs cluster-info for the new token within a moment.
  await until('the signed cluster-info', async () => (await kubectl(server, ['-n', 'cluster-public', 'get', 'configmap', 'cluster-info', '-o', 'jsonpath={.data}'])).stdout.includes('jws-kubeconfig-abcdef'), 60_000);
}, 120_000);
afterAll(async () => {
  await server?.stop();
}, 30_000);

test('make run and hack/make-run.sh share the Makefile\'s flags, which authorize with Node,RBAC', async () => {
  const makefile = await readFile(join(ROOT, 'Makefile'), 'utf8');
  expect(makefile).toMatch(/^run: build\n\tnode packages\/server\/dist\/src\/main\.js --data-dir \$\(DATA_DIR\) --secure-port \$\(PORT\) --authorization-mode=Node,RBAC \$\(RUN_FLAGS\) \$\(ARGS\)$/m);
  // The recipe and print-run-flags (what hack/make-run.sh starts the server with) name the same mode.
  expect(makefile.match(/--authorization-mode=\S+/g)).toEqual(['--authorization-mode=Node,RBAC', '--authorization-mode=Node,RBAC']);
  expect(makefile).toMatch(/^print-run-flags:\n\t@echo "--authorization-mode=Node,RBAC \$\(RUN_FLAGS\)"$/m);
  const script = await readFile(join(ROOT, 'hack/make-run.sh'), 'utf8');
  expect(script).toContain('print-run-flags');
  // Anonymous requests are on, as with any mode but AlwaysAllow: public information is readable.
  const r = await fetchAnonymous('/version');
  expect(r).toBe(200);
  expect(await fetchAnonymous('/api/v1/namespaces/cluster-system/secrets')).toBe(403);
});

async function fetchAnonymous(path: string): Promise<number> {
  const { stdout } = await exec('curl', ['-sk', '-o', '/dev/null', '-w', '%{http_code}', `${server.url}${path}`], { timeout: 20_000 });
  return Number(stdout);
}

test('the README\'s join flow works as written', async () => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const join_ = readme.split('\n').find((l) => l.startsWith('npx cluster-credential kubeconfig --mode bootstrap'));
  const whoami = readme.split('\n').find((l) => l.startsWith('KUBECONFIG=node.kubeconfig kubectl auth whoami'));
  expect(join_).toBeDefined();
  expect(whoami).toBeDefined();
  // The README's own command with this server's address (its token is the one created above).
  const file = join(server.dataDir, 'node.kubeconfig');
  const command = join_!.replace('https://10.0.0.1:6443', server.url).replace('> node.kubeconfig', `> ${file}`);
  expect(command).toContain(`--token ${TOKEN}`);
  nodeEnv = { KUBECONFIG: file, XDG_STATE_HOME: join(server.dataDir, 'state') };
  await exec('bash', ['-c', command], { cwd: ROOT, env: { ...process.env, ...nodeEnv }, timeout: 60_000 });
  const out = await ok(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username} {.status.userInfo.groups}'], nodeEnv);
  expect(out).toBe(`system:node:${NODE} ["system:nodes","system:authenticated"]`);
}, 90_000);

test('a bootstrap token and a fresh service account are denied Secrets', async () => {
  const bootstrap = await tokenKubeconfig(server, 'bootstrap', TOKEN);
  const r = await kubectl(server, ['-n', 'cluster-system', 'get', 'secrets'], bootstrap);
  expect(forbidden(r)).toBe(true);
  expect(r.stderr).toContain('User "system:bootstrap:abcdef" cannot list resource "secrets" in API group "" in the namespace "cluster-system"');
  expect((await kubectl(server, ['-n', 'cluster-system', 'get', 'secret', 'bootstrap-token-abcdef'], bootstrap)).code).not.toBe(0);
  // What a bootstrap token may do: request certificates.
  expect((await kubectl(server, ['auth', 'can-i', 'create', 'certificatesigningrequests'], bootstrap)).stdout.trim()).toBe('yes');

  await ok(['create', 'serviceaccount', 'fresh']);
  const token = (await ok(['create', 'token', 'fresh'])).trim();
  const sa = await tokenKubeconfig(server, 'fresh', token);
  const s = await kubectl(server, ['-n', 'cluster-system', 'get', 'secrets'], sa);
  expect(forbidden(s)).toBe(true);
  expect(s.stderr).toContain('User "system:serviceaccount:default:fresh" cannot list resource "secrets"');
  expect(forbidden(await kubectl(server, ['get', 'secrets'], sa))).toBe(true);
  expect((await kubectl(server, ['auth', 'can-i', '--list'], sa)).stdout).not.toMatch(/^\*\.\*/m);
}, 60_000);

test('kubectl auth can-i --list as a joined node shows node rules only', async () => {
  const r = await kubectl(server, ['auth', 'can-i', '--list'], nodeEnv);
  expect(r.code).toBe(0);
  const resources = r.stdout.split('\n').slice(1).map((l) => l.split(/\s+/)[0]).filter(Boolean);
  expect(resources).not.toContain('*.*');
  expect(resources).toEqual(expect.arrayContaining(['nodes', 'pods', 'nodes/status', 'certificatesigningrequests.certificates.k8s.io']));
  expect(resources.some((x) => /secrets|configmaps|clusterroles|namespaces/.test(x!))).toBe(false);
  expect(r.stderr).toContain('the list may be incomplete');
  expect((await kubectl(server, ['auth', 'can-i', 'list', 'secrets', '-A'], nodeEnv)).stdout.trim()).toBe('no - can only read namespaced object of this type');
}, 60_000);

test('a node reads the secrets of pods bound to it, and no other', async () => {
  await ok(['create', 'secret', 'generic', 'for-node', '--from-literal=k=v']);
  await ok(['create', 'secret', 'generic', 'unrelated', '--from-literal=k=v']);
  const pod = join(server.dataDir, 'pod.yaml');
  await writeFile(
    pod,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default' },
      spec: { nodeName: NODE, containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 's', secret: { secretName: 'for-node' } }] },
    }),
  );
  await ok(['apply', '-f', pod]);
  await until('the node to read its pod\'s secret', async () => (await kubectl(server, ['get', 'secret', 'for-node', '-o', 'name'], nodeEnv)).code === 0);
  // kubelet-style: a watch of that one secret by name.
  expect((await ok(['get', 'secrets', '--field-selector', 'metadata.name=for-node', '-o', 'name'], nodeEnv)).trim()).toBe('secret/for-node');
  const other = await kubectl(server, ['get', 'secret', 'unrelated'], nodeEnv);
  expect(forbidden(other)).toBe(true);
  expect(other.stderr).toContain(`no relationship found between node '${NODE}' and this object`);
  expect(forbidden(await kubectl(server, ['get', 'secrets'], nodeEnv))).toBe(true);
  expect(forbidden(await kubectl(server, ['-n', 'cluster-system', 'get', 'secret', 'bootstrap-token-abcdef'], nodeEnv))).toBe(true);
  // Forged identities: the node's name without the group, or the group without the name, are not the node.
  const asName = await kubectl(server, ['get', 'secret', 'for-node', `--as=system:node:${NODE}`]);
  expect(forbidden(asName)).toBe(true);
  const asGroup = await kubectl(server, ['get', 'secret', 'for-node', `--as=${NODE}`, '--as-group=system:nodes']);
  expect(forbidden(asGroup)).toBe(true);
  // Tokens: only for the account of a pod on the node (authorizer), and only bound to such a pod (NodeRestriction).
  await ok(['create', 'serviceaccount', 'elsewhere']);
  const unbound = await kubectl(server, ['create', 'token', 'default'], nodeEnv);
  expect(forbidden(unbound)).toBe(true);
  expect(unbound.stderr).toContain('node requested token not bound to a pod');
  const otherAccount = await kubectl(server, ['create', 'token', 'elsewhere'], nodeEnv);
  expect(forbidden(otherAccount)).toBe(true);
  expect(otherAccount.stderr).toContain(`no relationship found between node '${NODE}' and this object`);
  // Once the pod is gone, so is the access.
  await ok(['delete', 'pod', 'web', '--wait=false']);
  await until('the access to end with the pod', async () => forbidden(await kubectl(server, ['get', 'secret', 'for-node'], nodeEnv)));
}, 90_000);

test('a node may change its own Node but not another (NodeRestriction)', async () => {
  await ok(['create', '-f', await nodeFile('other-node')]);
  await ok(['create', '-f', await nodeFile(NODE)], nodeEnv);
  const other = await kubectl(server, ['label', 'node', 'other-node', 'stolen=yes'], nodeEnv);
  expect(forbidden(other)).toBe(true);
  expect(other.stderr).toContain(`node "${NODE}" is not allowed to modify node "other-node"`);
  expect(forbidden(await kubectl(server, ['delete', 'node', 'other-node'], nodeEnv))).toBe(true);
  expect(forbidden(await kubectl(server, ['create', '-f', await nodeFile('third-node')], nodeEnv))).toBe(true);
  await ok(['label', 'node', NODE, 'example.com/team=a'], nodeEnv);
  const restricted = await kubectl(server, ['label', 'node', NODE, 'node-restriction.k8s.io/pool=gold'], nodeEnv);
  expect(forbidden(restricted)).toBe(true);
  expect(restricted.stderr).toContain('is not allowed to modify labels: node-restriction.k8s.io/pool');
  expect(await ok(['get', 'node', 'other-node', '-o', 'jsonpath={.metadata.labels}'])).not.toContain('stolen');
}, 60_000);

async function nodeFile(name: string): Promise<string> {
  const file = join(server.dataDir, `node-${name}.json`);
  await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name } }));
  return file;
}

test('orphan and foreground deletes finish promptly: the built-in garbage collector removes their finalizers', async () => {
  for (const cascade of ['orphan', 'foreground']) {
    const name = `cascade-${cascade}`;
    await ok(['create', 'configmap', name, '--from-literal=a=b']);
    // kubectl waits for the object to be gone: the collector must drop the orphan/foregroundDeletion finalizer.
    const r = await kubectl(server, ['delete', 'configmap', name, `--cascade=${cascade}`, '--timeout=20s']);
    expect(r.code).toBe(0);
    expect((await kubectl(server, ['get', 'configmap', name])).stderr).toMatch(/NotFound|not found/);
  }
}, 60_000);
