#!/usr/bin/env node
import { pino } from 'pino';
import { FlagError, formatUsage, parseFlags } from './flags.js';
import { startServer } from './start.js';
import { unsupportedFlags } from './unsupported-flags.js';

/** The entrypoint: flags -> start -> serve until SIGTERM/SIGINT, then stop cleanly. */
async function main(argv: string[]): Promise<void> {
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
  const server = await startServer(opts, logger);
  process.stdout.write(`cluster-apiserver listening on ${server.url}\nadmin kubeconfig: ${server.kubeconfigPath}\n`);
  let stopping = false;
  const onSignal = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
