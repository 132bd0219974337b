import { join } from 'node:path';
import type { Logger } from 'pino';
import { superviseEtcd, type SupervisedEtcd } from '@cluster/storage/etcd-process';

/**
 * The etcd of the embedded default, under `<dataDir>/etcd`. It is supervised: if it dies it comes
 * back (same ports and data) with backoff, and readyz reports etcd until then.
 */
export async function startEmbeddedEtcd(dataDir: string, logger: Logger): Promise<SupervisedEtcd> {
  const etcd = await superviseEtcd({
    dataDir: join(dataDir, 'etcd'),
    log: (line) => logger.debug({ etcd: line }),
    onEvent: (e) => (e.type === 'restarted' ? logger.info({ etcd: e.detail }, 'embedded etcd restarted') : logger.warn({ etcd: e.detail }, `embedded etcd ${e.type}`)),
  });
  logger.info({ endpoint: etcd.endpoint, pid: etcd.pid() }, 'embedded etcd started');
  return etcd;
}
