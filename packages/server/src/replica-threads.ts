// Workers of a replica as threads of its one process (`--worker-isolation=thread`): what the
// primary (replica-primary.ts) needs to start them and to share its port with them. Threads share
// the process's memory (one Node runtime, one set of native libraries, one allocator) where
// processes each hold their own; a worker thread serves exactly as a worker process does.
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { closeSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { nativeAddon } from './memory-reclaimer.js';

/**
 * The replica's listening socket, bound by the main thread, which never accepts on it: the
 * threads accept, each on a descriptor of its own (`dup`, see native/fd_dup.c for why one each).
 *
 * How: the main thread binds and listens with a net.Server, takes a second descriptor of the
 * socket (the reserve) and closes the server in the same tick, before its event loop could poll
 * the socket: connections that arrive meanwhile wait in the kernel's backlog for the threads. Each
 * thread gets a fresh copy of the reserve and serves with `listen({ fd })`; a thread that ends
 * closes only its copy. The reserve, never polled by anyone, keeps the socket open between a
 * crashed thread and its replacement; it is closed when the replica stops, so the socket closes
 * (new connections are refused) once the last thread has closed its own, as with processes.
 */
export interface SharedPort {
  port: number;
  /** A new descriptor of the socket for one thread (the thread's listener closes it). */
  forThread(): number;
  /** Closes the reserve: the socket lives on only in the threads' descriptors. */
  release(): void;
}

type Dup = (fd: number) => number;

/** The fd_dup addon's `dup` (packages/server/native, built by hack/build-native.sh), if built. */
export function loadDup(): Dup | undefined {
  const path = nativeAddon('fd_dup');
  if (!path) return undefined;
  try {
    const mod = createRequire(import.meta.url)(path) as { dup?: unknown };
    return typeof mod.dup === 'function' ? (mod.dup as Dup) : undefined;
  } catch {
    return undefined; // built for another Node or libc
  }
}

/** Binds `host:port` (0: any free port) for the threads; rejects as listen does (EADDRINUSE, ...). */
export function bindSharedPort(host: string, port: number, dup: Dup): Promise<SharedPort> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host, port }, () => {
      const handle = (server as unknown as { _handle?: { fd?: number } })._handle;
      const fd = handle?.fd ?? -1;
      const reserve = fd >= 0 ? dup(fd) : -1;
      const address = server.address();
      // In this tick still: the main thread's loop never accepts a connection on the socket.
      server.close();
      if (reserve < 0 || address === null || typeof address === 'string') {
        if (reserve >= 0) closeSync(reserve);
        reject(new Error(`could not share the listening socket on ${host}:${port} with the worker threads`));
        return;
      }
      let open = true;
      resolve({
        port: address.port,
        forThread() {
          if (!open) throw new Error('the shared port was released');
          const copy = dup(reserve);
          if (copy < 0) throw new Error('could not give a worker thread a descriptor of the listening socket');
          return copy;
        },
        release() {
          if (!open) return;
          open = false;
          closeSync(reserve);
        },
      });
    });
  });
}

/**
 * Starts one worker thread running the server's entry point (main.js) with the replica's command
 * line and its own copy of the environment (`env`: what a thread reads or deletes from
 * process.env stays its own, so the loopback token it removes is not passed to child processes
 * of any thread).
 */
export function startWorkerThread(argv: readonly string[], env: Record<string, string>, workerData?: object): Worker {
  const environment: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) environment[k] = v;
  // V8 grows each thread's young generation to 32 MiB of semi-spaces for start-up and bursts, kept until
  // the memory reclaimer's first quiet look; 16 MiB took ~20 MiB off an idle two-thread replica's
  // RSS with no measurable create CPU (bench README, "memory base").
  const resourceLimits = { maxYoungGenerationSizeMb: 16 };
  return new Worker(new URL('./main.js', import.meta.url), { argv: [...argv], env: { ...environment, ...env }, resourceLimits, ...(workerData ? { workerData } : {}) });
}
