import type { Logger } from 'pino';
import { ApiError, type ApiClient } from '../client/api-client.js';
import { BOOTSTRAP_TOKEN_NAMESPACE, bootstrapTokenListPath, type Secret } from '../bootstraptoken/secrets.js';
import { runPeriodically } from '../loop/poll.js';
import { expiredTokens } from './reconcile.js';

export interface TokenCleanerOptions {
  client: ApiClient;
  logger: Logger;
  apiDomain: string;
  /** How often expirations are checked. */
  resyncMs: number;
  /** Clock in ms; Date.now by default. */
  now?: () => number;
}

/**
 * The token cleaner (upstream `tokencleaner`): deletes expired bootstrap token Secrets in
 * `cluster-system`. Runs while its replica leads. Each delete carries the Secret's UID as a
 * precondition, so a token re-created under the same name in between is not removed.
 */
export function runTokenCleaner(opts: TokenCleanerOptions, signal: AbortSignal): Promise<void> {
  const { client, logger } = opts;
  const pass = async () => {
    const secrets = await client.list<Secret>(bootstrapTokenListPath(opts.apiDomain));
    for (const d of expiredTokens(secrets.items, opts.apiDomain, (opts.now ?? Date.now)())) {
      if (signal.aborted) return;
      const body = { apiVersion: 'v1', kind: 'DeleteOptions', ...(d.uid ? { preconditions: { uid: d.uid } } : {}) };
      try {
        await client.call('DELETE', `/api/v1/namespaces/${BOOTSTRAP_TOKEN_NAMESPACE}/secrets/${encodeURIComponent(d.name)}`, body);
        logger.info({ secret: d.name }, 'expired bootstrap token deleted');
      } catch (e) {
        // Gone already, or replaced by a newer Secret of the same name: nothing to do.
        if (e instanceof ApiError && (e.code === 404 || e.code === 409)) continue;
        throw e;
      }
    }
  };
  return runPeriodically('tokencleaner', pass, opts.resyncMs, logger, signal);
}
