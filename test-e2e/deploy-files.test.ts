import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// deploy/ is checked by the tools that will read it: systemd's verifier for the units, promtool
// for the Prometheus configuration and rules, haproxy -c for the load balancer's configuration.
const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Each check starts a tool process or two: a starved CI machine needs more than jest's 5 s.
const TOOL_TIMEOUT_MS = 30_000;
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deploy-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('the systemd units verify', async () => {
  const units = ['cluster-etcd.service', 'cluster-apiserver.service'].map((u) => join(ROOT, 'deploy/systemd', u));
  const r = await exec('systemd-analyze', ['verify', ...units]);
  expect(r.stderr).toBe('');
}, TOOL_TIMEOUT_MS);

test('the Prometheus configuration and rules check', async () => {
  await writeFile(join(dir, 'ca.crt'), '');
  await writeFile(join(dir, 'token'), 'x');
  const config = (await readFile(join(ROOT, 'deploy/prometheus/prometheus.yml'), 'utf8'))
    .replace('@CA_FILE@', join(dir, 'ca.crt'))
    .replace('@TOKEN_FILE@', join(dir, 'token'))
    .replace('@TARGETS@', "'10.0.0.1:6443', '10.0.0.2:6443', '10.0.0.3:6443'");
  await writeFile(join(dir, 'prometheus.yml'), config);
  await writeFile(join(dir, 'rules.yml'), await readFile(join(ROOT, 'deploy/prometheus/rules.yml'), 'utf8'));
  expect((await exec('promtool', ['check', 'config', join(dir, 'prometheus.yml')])).stdout).toContain('SUCCESS');
  expect((await exec('promtool', ['check', 'rules', join(ROOT, 'deploy/prometheus/rules.yml')])).stdout).toContain('SUCCESS: 11 rules found');
}, TOOL_TIMEOUT_MS);

test('the HAProxy configuration checks once rendered', async () => {
  const cfg = (await readFile(join(ROOT, 'deploy/haproxy/haproxy.cfg'), 'utf8'))
    .replace('@BIND@', '127.0.0.1:16443')
    .replace('@SERVERS@', ['a', 'b', 'c'].map((n, i) => `    server replica-${n} 127.0.0.1:${7443 + i}`).join('\n'));
  await writeFile(join(dir, 'haproxy.cfg'), cfg);
  await exec('haproxy', ['-c', '-q', '-f', join(dir, 'haproxy.cfg')]);
}, TOOL_TIMEOUT_MS);

test('every replica example and unit authorizes with Node,RBAC', async () => {
  // deploy/README.md's APISERVER_ARGS (what the unit runs), make up-ha's replicas and make run.
  for (const file of ['deploy/README.md', 'hack/local-up-ha.sh', 'Makefile']) {
    const text = await readFile(join(ROOT, file), 'utf8');
    const modes = text.match(/--authorization-mode=\S+/g) ?? [];
    expect([file, modes.length > 0 && modes.every((m) => m === '--authorization-mode=Node,RBAC')]).toEqual([file, true]);
  }
  expect(await readFile(join(ROOT, 'deploy/systemd/cluster-apiserver.service'), 'utf8')).toContain('$APISERVER_ARGS');
});
