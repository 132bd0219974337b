import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { AuditLogBackend, parseAuditPolicy, type AuditConfig } from '@cluster/apiserver';
import type { ServerOptions } from './flags.js';

/**
 * The audit log of --audit-log-path with the policy of --audit-policy-file. As upstream, a log
 * without a policy records nothing (said once in the log), and a policy without a log has nowhere
 * to write. A policy file that does not parse stops start-up.
 */
export async function auditConfig(opts: ServerOptions, metrics: Registry, logger: Logger): Promise<{ config: AuditConfig; backend: AuditLogBackend } | undefined> {
  if (!opts.auditLogPath || !opts.auditPolicyFile) {
    if (opts.auditLogPath) logger.warn('--audit-log-path without --audit-policy-file: no audit events are recorded');
    return undefined;
  }
  const policy = parseAuditPolicy(await readFile(opts.auditPolicyFile, 'utf8'), opts.apiDomain);
  const backend = new AuditLogBackend({
    path: opts.auditLogPath,
    maxSizeMB: opts.auditLogMaxsize,
    maxBackups: opts.auditLogMaxbackup,
    maxAgeDays: opts.auditLogMaxage,
    metrics,
  });
  return { config: { policy, sink: backend }, backend };
}
