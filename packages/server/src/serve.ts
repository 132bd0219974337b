// A process that serves the API: the one process of a `--workers=1` replica, or one worker (a
// process or a thread) of a larger one. main.ts loads this (and with it the whole server) only in those processes.
import { pino } from 'pino';
import { installLeanAsyncResourceBind } from './async-resource-bind.js';
import { threadId } from 'node:worker_threads';
import { startReplicaWorker } from './cluster-replica.js';
import { isReplicaThread, onPrimaryMessage } from './replica-protocol.js';
import { FlagError, formatUsage, parseFlags } from './flags.js';
import { startServer, type RunningServer } from './start.js';
import { unsupportedFlags } from './unsupported-flags.js';

/** Flags -> start -> serve until SIGTERM/SIGINT, then stop cleanly. */
export async function serve(argv: string[], role: 'single' | 'worker'): Promise<void> {
  // Before any HTTP/2 client request (every etcd call is one): see async-resource-bind.ts.
  installLeanAsyncResourceBind();
  let opts;
  try {
    opts = parseFlags(argv);
  } catch (e) {
    if (e instanceof FlagError) {
      process.stderr.write(`Error: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  if (opts.help) {
    process.stdout.write(formatUsage());
    return;
  }
  const unsupported = unsupportedFlags(opts);
  if (unsupported.length > 0) {
    process.stderr.write(`Error: not supported by this server yet: ${unsupported.join(', ')}\n`);
    process.exit(2);
  }
  const logger = pino({ level: opts.logLevel });
  if (role === 'worker') {
    const thread = isReplicaThread();
    const worker = logger.child({ worker: Number(process.env['CLUSTER_APISERVER_WORKER_ID']), ...(thread ? { thread: threadId } : {}) });
    const server = await startReplicaWorker(opts, worker);
    if (thread) {
      // Signals reach the process's main thread only: the primary passes them on as a message.
      // process.exit in a worker thread ends that thread, not the process.
      onPrimaryMessage((m) => {
        if (m.type === 'cluster-apiserver:stop') stopAndExit(server, worker, m.reason);
      });
      return;
    }
    stopOnSignals(server, worker);
    // The primary is gone (killed): the shared port went with it, so this worker ends too.
    process.on('disconnect', () => stopAndExit(server, worker, 'primary disconnected'));
    return;
  }
  const server = await startServer(opts, logger);
  process.stdout.write(`cluster-apiserver listening on ${server.url}\nadmin kubeconfig: ${server.kubeconfigPath}\n`);
  stopOnSignals(server, logger);
}

let stopping = false;

function stopAndExit(server: RunningServer, logger: pino.Logger, reason: string): void {
  if (stopping) return;
  stopping = true;
  logger.info({ reason }, 'shutting down');
  server.stop().then(
    () => process.exit(0),
    (err) => {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    },
  );
}

function stopOnSignals(server: RunningServer, logger: pino.Logger): void {
  process.on('SIGTERM', () => stopAndExit(server, logger, 'SIGTERM'));
  process.on('SIGINT', () => stopAndExit(server, logger, 'SIGINT'));
}
