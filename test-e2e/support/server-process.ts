import { fileURLToPath } from 'node:url';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(repoRoot, 'packages/server/dist/src/main.js');

/** The built server running as its own process, as an operator runs it. */
export interface ServerProcess {
  child: ChildProcess;
  url: string;
  kubeconfig: string;
  dataDir: string;
  output: () => string;
  /** SIGTERM, then wait for exit (SIGKILL after a bound); resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `node packages/server/dist/src/main.js` on a free loopback port with its own data dir;
 * `nodeArgs` go to node before the script (e.g. `--import` of a test's fault injection).
 */
export async function startServerProcess(extraArgs: string[] = [], dataDir?: string, nodeArgs: string[] = []): Promise<ServerProcess> {
  const dir = dataDir ?? (await mkdtemp(join(tmpdir(), 'apiserver-e2e-')));
  return spawnServer(process.execPath, [...nodeArgs, MAIN, '--data-dir', dir, '--secure-port', '0', '--bind-address', '127.0.0.1', '--log-level', 'warn', ...extraArgs], dir, !dataDir);
}

/**
 * Starts the server exactly as `make run` does (hack/make-run.sh, which the Makefile's run target
 * calls), on a free loopback port (`PORT=0`) with its own data dir, and no other flag.
 */
export async function startMakeRunProcess(): Promise<ServerProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'apiserver-make-run-'));
  return spawnServer('bash', [join(repoRoot, 'hack/make-run.sh'), dir, '0'], dir, true);
}

async function spawnServer(command: string, args: string[], dir: string, ownsDir: boolean): Promise<ServerProcess> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`server did not start in time:\n${out}`)), 60_000);
    const onData = () => {
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        res(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`server exited with ${code}:\n${out}`));
    });
  });
  const exited = new Promise<number | null>((res) => {
    if (child.exitCode !== null) res(child.exitCode);
    child.once('exit', (code) => res(code));
  });
  return {
    child,
    url,
    kubeconfig: join(dir, 'admin.kubeconfig'),
    dataDir: dir,
    output: () => out,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      if (ownsDir) await rm(dir, { recursive: true, force: true });
      return code;
    },
  };
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the installed kubectl against the server's admin kubeconfig. */
export async function kubectl(server: ServerProcess, args: string[], env: Record<string, string> = {}): Promise<KubectlResult> {
  // A discovery cache of this server's own: kubectl keys its cache by host and port, and a free port
  // an earlier test's server used would otherwise answer with that server's resource list.
  const cacheDir = args.some((a) => a.startsWith('--cache-dir')) ? [] : [`--cache-dir=${join(server.dataDir, 'kube-cache')}`];
  try {
    const { stdout, stderr } = await exec('kubectl', [...cacheDir, ...args], {
      env: { ...process.env, KUBECONFIG: server.kubeconfig, ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : 1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

/**
 * Writes a kubeconfig for the same server (the admin kubeconfig's CA) whose user is a bearer
 * token, with `namespace` as the context's default; returns the env that selects it.
 */
export async function tokenKubeconfig(server: ServerProcess, name: string, token: string, namespace = 'default'): Promise<Record<string, string>> {
  const ca = (await kubectl(server, ['config', 'view', '--raw', '--minify', '-o', 'jsonpath={.clusters[0].cluster.certificate-authority-data}'])).stdout.trim();
  const file = join(server.dataDir, `${name}.kubeconfig`);
  await writeFile(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: c\n  cluster:\n    server: ${server.url}\n    certificate-authority-data: ${ca}`,
      'users:',
      `- name: ${name}\n  user:\n    token: ${token}`,
      'contexts:',
      `- name: x\n  context:\n    cluster: c\n    user: ${name}\n    namespace: ${namespace}`,
      'current-context: x',
      '',
    ].join('\n'),
  );
  return { KUBECONFIG: file };
}
