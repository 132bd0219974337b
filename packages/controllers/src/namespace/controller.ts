import type { Logger } from 'pino';
import type { ApiClient } from '../client/api-client.js';
import { discoverNamespacedCollections } from './discover.js';
import { reconcileNamespace, type Namespace } from './reconcile.js';

export interface NamespaceControllerOptions {
  client: ApiClient;
  logger: Logger;
  /** How often terminating namespaces are looked for. */
  resyncMs: number;
}

/**
 * The namespace finalizer: empties namespaces that are being deleted and then finalizes them.
 * Runs only while its replica leads; each pass re-reads discovery so new resources are covered.
 */
export function runNamespaceController(opts: NamespaceControllerOptions, signal: AbortSignal): Promise<void> {
  const { client, logger } = opts;
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const pass = async () => {
      try {
        const list = await client.list<Namespace>('/api/v1/namespaces');
        const terminating = list.items.filter((n) => n.metadata.deletionTimestamp);
        if (terminating.length > 0) {
          const collections = await discoverNamespacedCollections(client);
          for (const ns of terminating) {
            if (signal.aborted) break;
            const result = await reconcileNamespace(client, ns, collections);
            if (result === 'done') logger.info({ namespace: ns.metadata.name }, 'namespace finalized');
          }
        }
      } catch (err) {
        logger.warn({ err }, 'namespace controller pass failed');
      }
      if (!signal.aborted) timer = setTimeout(pass, opts.resyncMs);
    };
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
    void pass();
  });
}
