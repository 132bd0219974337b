#!/usr/bin/env node
import { availableParallelism } from 'node:os';
import { pino } from 'pino';
import { installLeanAsyncResourceBind } from './async-resource-bind.js';
import { isReplicaWorker, runReplicaPrimary, startReplicaWorker } from './cluster-replica.js';
import { FlagError, formatUsage, parseFlags } from './flags.js';
import { startServer, type RunningServer } from './start.js';
import { unsupportedFlags } from './unsupported-flags.js';
import { resolveWorkerCount } from './workers.js';

/**
 * The entrypoint: flags -> start -> serve until SIGTERM/SIGINT, then stop cleanly. With more than
 * one worker this process becomes the replica's primary and the workers run this file again.
 */
async function main(argv: string[]): Promise<void> {
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
  if (isReplicaWorker()) {
    const worker = logger.child({ worker: Number(process.env['CLUSTER_APISERVER_WORKER_ID']) });
    const server = await startReplicaWorker(opts, worker);
    stopOnSignals(server, worker);
    // The primary is gone (killed): the shared port went with it, so this worker ends too.
    process.on('disconnect', () => stopAndExit(server, worker, 'primary disconnected'));
    return;
  }
  const workers = resolveWorkerCount(opts.workers, availableParallelism());
  if (workers > 1) {
    await runReplicaPrimary(opts, logger, workers);
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

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
