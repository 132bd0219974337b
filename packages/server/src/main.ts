#!/usr/bin/env node
import { availableParallelism } from 'node:os';
import { pino } from 'pino';
import { FlagError, parseFlagSyntax } from './flags-syntax.js';
import { startPrimaryStartup } from './primary-startup.js';
import { runReplicaPrimary } from './replica-primary.js';
import { isReplicaThread, isReplicaWorker } from './replica-protocol.js';
import { installWatchCacheStore } from './start-shared-store.js';
import { MAX_WORKERS, resolveWorkerCount } from './workers.js';

/**
 * The entrypoint. A process that serves (one process, or a worker the primary started, which runs
 * this file again as a process or as a thread) loads the server with serve.js. With more than one worker this process
 * becomes the replica's primary, which only supervises and loads none of the server: the flags'
 * syntax, read here, is enough to tell which; the full checks follow in either path.
 */
async function main(argv: string[]): Promise<void> {
  const workers = isReplicaWorker() ? 0 : workerCount(argv);
  if (workers <= 1) {
    if (isReplicaThread()) await installWatchCacheStore();
    const { serve } = await import('./serve.js');
    await serve(argv, isReplicaWorker() ? 'worker' : 'single');
    return;
  }
  const started = await startPrimaryStartup(argv);
  if ('usageError' in started) {
    process.stderr.write(`Error: ${started.usageError}\n`);
    process.exit(2);
  }
  const logger = pino({ level: started.options.logLevel });
  await runReplicaPrimary(started, logger, workers, argv);
}

/**
 * The replica's process count from the command line's syntax alone; 1 for `--help` and for a
 * command line that parseFlags will reject anyway (it then does, as a single process would).
 */
function workerCount(argv: string[]): number {
  let flag: number;
  try {
    const pre = parseFlagSyntax(argv);
    if (pre.help) return 1;
    flag = pre.workers;
  } catch (e) {
    if (e instanceof FlagError) return 1;
    throw e;
  }
  if (flag < 0 || flag > MAX_WORKERS) return 1;
  return resolveWorkerCount(flag, availableParallelism());
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
