import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureAdminToken, parseTokenFile, writeAdminKubeconfig } from './admin-credentials.js';

const run = promisify(execFile);
const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';

describe('ensureAdminToken', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'admin-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('creates tokens.csv with an admin in system:masters, then reuses it', async () => {
    const first = await ensureAdminToken(join(dir, 'data'));
    expect(first.generated).toBe(true);
    expect(first.tokenFile).toBe(join(dir, 'data', 'tokens.csv'));
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await readFile(first.tokenFile, 'utf8')).toBe(`${first.token},admin,admin,"system:masters"\n`);
    expect((await stat(first.tokenFile)).mode & 0o777).toBe(0o600);
    expect((await parseTokenFile(first.tokenFile)).get(first.token)).toEqual({
      username: 'admin',
      uid: 'admin',
      groups: ['system:masters'],
    });

    const second = await ensureAdminToken(join(dir, 'data'));
    expect(second).toEqual({ ...first, generated: false });
  });

  test('appends an admin to a file without one and keeps the other records', async () => {
    const tokenFile = join(dir, 'tokens.csv');
    await writeFile(tokenFile, 'other,bob,bob-uid');
    const { token, generated } = await ensureAdminToken(dir);
    expect(generated).toBe(true);
    expect(await readFile(tokenFile, 'utf8')).toBe(`other,bob,bob-uid\n${token},admin,admin,"system:masters"\n`);
  });

  test('a malformed existing file is an error', async () => {
    await writeFile(join(dir, 'tokens.csv'), 'just-a-token\n');
    await expect(ensureAdminToken(dir)).rejects.toThrow(
      `token file '${join(dir, 'tokens.csv')}' must have at least 3 columns (token, user name, user uid), found 1 (line 1)`,
    );
  });
});

describe('writeAdminKubeconfig', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kubeconfig-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function kubectlView(path: string): Promise<unknown> {
    const { stdout } = await run('kubectl', ['config', 'view', '--kubeconfig', path, '--raw', '-o', 'json'], {
      timeout: 20_000,
      env: { ...process.env, KUBECONFIG: '' },
    });
    return JSON.parse(stdout);
  }

  test('kubectl reads what we write', async () => {
    const path = join(dir, 'sub', 'admin.kubeconfig');
    await writeAdminKubeconfig({ path, serverUrl: 'https://127.0.0.1:6443', caPem: CA_PEM, token: 'tok-123' });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await kubectlView(path)).toEqual({
      kind: 'Config',
      apiVersion: 'v1',
      preferences: {},
      clusters: [
        {
          name: 'cluster',
          cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': Buffer.from(CA_PEM).toString('base64') },
        },
      ],
      users: [{ name: 'admin', user: { token: 'tok-123' } }],
      contexts: [{ name: 'admin@cluster', context: { cluster: 'cluster', user: 'admin' } }],
      'current-context': 'admin@cluster',
    });
  }, 30_000);

  test('plain HTTP without a CA, custom names, replacing an old file', async () => {
    const path = join(dir, 'dev.kubeconfig');
    await writeFile(path, 'garbage');
    await writeAdminKubeconfig({ path, serverUrl: 'http://127.0.0.1:8080', token: 't', clusterName: 'dev', userName: 'me' });
    const view = (await kubectlView(path)) as { clusters: unknown; 'current-context': string };
    expect(view.clusters).toEqual([{ name: 'dev', cluster: { server: 'http://127.0.0.1:8080' } }]);
    expect(view['current-context']).toBe('me@dev');
  }, 30_000);
});
