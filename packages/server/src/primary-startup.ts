// A multi-process replica's primary only supervises, yet its start-up needs most of the server:
// the flag checks name the API's group versions and the controllers, and the data directory's
// files take the certificate code. Loading that into the primary kept ~40 MiB resident for the
// replica's life (modules cannot be unloaded). It runs instead in a worker thread whose isolate,
// with everything it loaded, is freed when start-up is over (primary-startup-thread.ts).
import { Worker } from 'node:worker_threads';
import type { ServerOptions } from './flag-definitions.js';

export type PrimaryStartupRequest = { type: 'write-kubeconfig'; path: string; url: string; caPem?: string; token: string };

export type PrimaryStartupReply =
  /** A bad command line (a flag check, or a flag this server does not support): exit 2. */
  | { type: 'usage-error'; message: string }
  | { type: 'prepared'; options: ServerOptions; adminToken: string; caPem?: string }
  | { type: 'kubeconfig-written' }
  | { type: 'failed'; message: string };

/** The start-up thread, between preparing the data directory and writing admin.kubeconfig. */
export interface PrimaryStartup {
  /** Writes admin.kubeconfig (once the workers serve) and ends the thread. */
  writeKubeconfig(path: string, url: string, caPem: string | undefined, token: string): Promise<void>;
  /** Ends the thread (start-up failed). */
  close(): Promise<void>;
}

/**
 * Checks the command line as parseFlags does and prepares the data directory, in the start-up
 * thread. Resolves with a usage error (to print, exit 2) or the parsed options and what the
 * primary needs later; rejects as the work in the thread did.
 */
export async function startPrimaryStartup(argv: readonly string[]): Promise<{ usageError: string } | { options: ServerOptions; adminToken: string; caPem?: string; startup: PrimaryStartup }> {
  const thread = new Worker(new URL('./primary-startup-thread.js', import.meta.url), { workerData: { argv: [...argv] } });
  let pending: { resolve: (m: PrimaryStartupReply) => void; reject: (e: Error) => void } | undefined;
  let lastError: Error | undefined;
  const fail = (err: Error) => {
    lastError = err;
    pending?.reject(err);
    pending = undefined;
  };
  thread.on('message', (m: PrimaryStartupReply) => {
    const p = pending;
    pending = undefined;
    p?.resolve(m);
  });
  thread.on('error', fail);
  thread.on('exit', (code) => fail(lastError ?? new Error(`the primary's start-up thread ended (code ${code})`)));
  const next = () =>
    new Promise<PrimaryStartupReply>((resolve, reject) => {
      if (lastError) reject(lastError);
      else pending = { resolve, reject };
    });
  const close = async () => {
    thread.removeAllListeners('exit');
    await thread.terminate();
  };
  const expect = async <T extends PrimaryStartupReply['type']>(type: T): Promise<Extract<PrimaryStartupReply, { type: T }>> => {
    const m = await next();
    if (m.type === type) return m as Extract<PrimaryStartupReply, { type: T }>;
    if (m.type === 'failed') throw new Error(m.message);
    throw new Error(`the primary's start-up thread answered ${m.type}, not ${type}`);
  };
  let first: PrimaryStartupReply;
  try {
    first = await next();
  } catch (err) {
    await close();
    throw err;
  }
  if (first.type !== 'prepared') {
    await close();
    if (first.type === 'usage-error') return { usageError: first.message };
    throw new Error(first.type === 'failed' ? first.message : `the primary's start-up thread answered ${first.type}`);
  }
  const startup: PrimaryStartup = {
    async writeKubeconfig(path, url, caPem, token) {
      const written = expect('kubeconfig-written');
      thread.postMessage({ type: 'write-kubeconfig', path, url, token, ...(caPem !== undefined ? { caPem } : {}) } satisfies PrimaryStartupRequest);
      try {
        await written;
      } finally {
        await close();
      }
    },
    close,
  };
  return { options: first.options, adminToken: first.adminToken, ...(first.caPem !== undefined ? { caPem: first.caPem } : {}), startup };
}
