import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { freePorts } from './free-port.js';

/** Options for {@link startEtcd}. */
export interface StartEtcdOptions {
  /** etcd's data directory; created (mode 0700) when missing. */
  dataDir: string;
  /** Client port; a free loopback port when omitted. */
  clientPort?: number;
  /** Peer port; a free loopback port when omitted. */
  peerPort?: number;
  /** Address etcd listens on; default `127.0.0.1`. */
  host?: string;
  /** etcd binary, looked up in PATH when not a path; default `etcd`. */
  binary?: string;
  /** Member name (`--name`); default `default`, etcd's own default. */
  name?: string;
  /**
   * Interval of etcd's periodic watch progress notifications. etcd 3.4 defaults to 10 minutes,
   * far too rare to derive watch bookmarks from, so we default to 5 seconds.
   */
  progressNotifyIntervalSeconds?: number;
  /** Backend quota; default 8 GiB (etcd's own default is 2 GiB). */
  quotaBackendBytes?: number;
  /** Receives every line etcd writes to stdout or stderr. */
  log?: (line: string) => void;
  /** How long to wait for `GET /health` to report healthy; default 20 s. */
  startTimeoutMs?: number;
  /** How long {@link EtcdProcess.stop} waits after SIGTERM before SIGKILL; default 10 s. */
  stopTimeoutMs?: number;
}

/** How the etcd child ended. */
export interface EtcdExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running etcd child process owned by this server. */
export interface EtcdProcess {
  /** Client URL, e.g. `http://127.0.0.1:40123`. */
  endpoint: string;
  pid: number;
  /** Settles when the child exits for any reason (also after {@link stop}). */
  exited: Promise<EtcdExit>;
  /**
   * Sends SIGTERM, waits for the exit and sends SIGKILL when it has not happened within the stop
   * timeout. Resolves once the process is gone; calling it again is harmless.
   */
  stop(): Promise<void>;
}

const GiB = 1024 * 1024 * 1024;
const HEAD_LINES = 5;
const TAIL_LINES = 15;
const HEALTH_POLL_MS = 100;
const PORT_RETRIES = 3;

/**
 * Starts a single-member etcd as a child process and resolves once its `/health` endpoint reports
 * `{"health":"true"}`. Picks free loopback ports when none are given (and retries a few times when
 * such a port was taken in the meantime). Rejects, after making sure the child is gone, when the
 * binary cannot be started, when etcd exits early (the message carries its last stderr lines) or
 * when it is not healthy within `startTimeoutMs`.
 */
export async function startEtcd(opts: StartEtcdOptions): Promise<EtcdProcess> {
  await mkdir(opts.dataDir, { recursive: true, mode: 0o700 });
  const pickPorts = opts.clientPort === undefined || opts.peerPort === undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (err) {
      const portTaken = err instanceof Error && /address already in use/i.test(err.message);
      if (!pickPorts || !portTaken || attempt >= PORT_RETRIES) throw err;
    }
  }
}

async function startOnce(opts: StartEtcdOptions): Promise<EtcdProcess> {
  const host = opts.host ?? '127.0.0.1';
  const binary = opts.binary ?? 'etcd';
  const name = opts.name ?? 'default';
  const startTimeoutMs = opts.startTimeoutMs ?? 20_000;
  const stopTimeoutMs = opts.stopTimeoutMs ?? 10_000;
  const [clientPort, peerPort] = await choosePorts(opts.clientPort, opts.peerPort);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const clientUrl = `http://${urlHost}:${clientPort}`;
  const peerUrl = `http://${urlHost}:${peerPort}`;
  const endpoint = `http://${connectHost(host)}:${clientPort}`;
  // Another server on the client port would answer our health checks for etcd, so refuse early.
  await assertPortFree(host, clientPort, 'client');
  await assertPortFree(host, peerPort, 'peer');
  const args = [
    `--name=${name}`,
    `--data-dir=${opts.dataDir}`,
    `--listen-client-urls=${clientUrl}`,
    `--advertise-client-urls=${clientUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=${name}=${peerUrl}`,
    `--experimental-watch-progress-notify-interval=${opts.progressNotifyIntervalSeconds ?? 5}s`,
    `--quota-backend-bytes=${opts.quotaBackendBytes ?? 8 * GiB}`,
    '--logger=zap',
    '--log-level=warn',
  ];

  const output = new OutputExcerpt();
  const onLine = (line: string): void => {
    output.add(line);
    opts.log?.(line);
  };
  const child = spawn(binary, args, { env: etcdEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  forwardLines(child, onLine);

  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', (err) => reject(new Error(`cannot start etcd binary "${binary}": ${err.message}`)));
  });
  const exited = new Promise<EtcdExit>((resolve) => {
    // 'close' rather than 'exit' so the stderr tail is complete when we report it.
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  const killOnParentExit = (): void => {
    child.kill('SIGKILL');
  };

  await spawned;
  const pid = child.pid;
  if (pid === undefined) throw new Error(`cannot start etcd binary "${binary}": no process id`);
  process.once('exit', killOnParentExit);
  void exited.then(() => process.removeListener('exit', killOnParentExit));

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= terminate(child, exited, stopTimeoutMs);
    return stopping;
  };

  let gone = false;
  void exited.then(() => (gone = true));
  const outcome: 'healthy' | 'timeout' | EtcdExit = await Promise.race([
    waitHealthy(endpoint, startTimeoutMs, () => gone).then((ok) => (ok ? 'healthy' : 'timeout')),
    exited,
  ]);
  if (outcome === 'healthy') return { endpoint, pid, exited, stop };
  await stop();
  if (outcome === 'timeout') {
    throw new Error(
      `etcd did not become healthy at ${endpoint}/health within ${startTimeoutMs}ms${output.text()}`,
    );
  }
  const how = outcome.signal !== null ? `signal ${outcome.signal}` : `code ${outcome.code}`;
  throw new Error(`etcd exited with ${how} before becoming healthy${output.text()}`);
}

async function choosePorts(client?: number, peer?: number): Promise<[number, number]> {
  if (client !== undefined && peer !== undefined) return [client, peer];
  const free = (await freePorts(3)).filter((p) => p !== client && p !== peer);
  const [a, b] = free;
  if (a === undefined || b === undefined) throw new Error('could not find free ports for etcd');
  return [client ?? a, peer ?? b];
}

async function assertPortFree(host: string, port: number, what: string): Promise<void> {
  const err = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    const server = createServer();
    server.once('error', resolve);
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
  if (err === undefined) return;
  const reason = err.code === 'EADDRINUSE' ? 'address already in use' : err.message;
  throw new Error(`cannot start etcd: ${what} address ${host}:${port}: ${reason}`);
}

/** A wildcard listen address is not something to connect to; use loopback for the endpoint. */
function connectHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * etcd reads `ETCD_*` variables as flags and refuses to start when one conflicts with a flag we
 * pass, so the child gets none of them, except the one that unlocks unsupported architectures.
 */
function etcdEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('ETCD_') || key === 'ETCD_UNSUPPORTED_ARCH') env[key] = value;
  }
  return env;
}

function forwardLines(child: ChildProcess, onLine: (line: string) => void): void {
  for (const stream of [child.stdout, child.stderr]) {
    if (stream === null) continue;
    let buffered = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') onLine(line);
    });
    stream.on('end', () => {
      if (buffered.trim() !== '') onLine(buffered);
      buffered = '';
    });
  }
}

/**
 * Polls `GET /health` until it answers `{"health":"true"}`; false when the deadline passes or
 * `gone()` says the process has exited (the caller then reports the exit instead).
 */
async function waitHealthy(endpoint: string, timeoutMs: number, gone: () => boolean): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !gone()) {
    if (await isHealthy(endpoint, Math.min(1000, Math.max(1, deadline - Date.now())))) return true;
    const wait = Math.min(HEALTH_POLL_MS, deadline - Date.now());
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  return false;
}

async function isHealthy(endpoint: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return false;
    const body = (await res.json()) as { health?: unknown };
    return body.health === 'true';
  } catch {
    return false; // not listening yet, or a partial answer: keep polling
  }
}

async function terminate(child: ChildProcess, exited: Promise<EtcdExit>, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    await exited;
    return;
  }
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const first = await Promise.race([exited, timedOut]);
  clearTimeout(timer);
  if (first === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
}

/**
 * Keeps the first and the last lines etcd printed: a flag error comes first and is followed by
 * the whole usage text, while a runtime failure is logged last.
 */
class OutputExcerpt {
  private readonly head: string[] = [];
  private readonly tail: string[] = [];
  private dropped = 0;

  add(line: string): void {
    if (this.head.length < HEAD_LINES) {
      this.head.push(line);
      return;
    }
    this.tail.push(line);
    if (this.tail.length > TAIL_LINES) {
      this.tail.shift();
      this.dropped++;
    }
  }

  /** The excerpt prefixed with `:` and a newline, or '' when etcd printed nothing. */
  text(): string {
    if (this.head.length === 0) return '';
    const gap = this.dropped > 0 ? [`... (${this.dropped} lines omitted)`] : [];
    return `:\n${[...this.head, ...gap, ...this.tail].join('\n')}`;
  }
}
