import { X509Certificate } from 'node:crypto';
import { decodePemBlocks } from '@cluster/apimachinery';
import type { CertificateSigningRequest } from '../csrsigning/reconcile.js';

/** How long requests are kept in each state (SPEC 3.2 / 8): settings, so tests shorten them. */
export interface RetentionPeriods {
  /** Approved (issued or not), denied and failed: since the condition was last updated. */
  finishedMs: number;
  /** Pending (no condition): since creation. */
  pendingMs: number;
}

export const UPSTREAM_RETENTION: RetentionPeriods = { finishedMs: 60 * 60 * 1000, pendingMs: 24 * 60 * 60 * 1000 };

const FINISHED = new Set(['Approved', 'Denied', 'Failed']);

/**
 * When a request becomes garbage (pure): a finished one `finishedMs` after its Approved, Denied or
 * Failed condition was last updated; a pending one `pendingMs` after creation; any issued one when
 * its certificate expires, whichever comes first. Undefined when no rule applies (no timestamps).
 */
export function collectibleAt(csr: CertificateSigningRequest, periods: RetentionPeriods): number | undefined {
  const times: number[] = [];
  const conditions = csr.status?.conditions ?? [];
  if (conditions.length === 0) {
    const created = Date.parse(csr.metadata.creationTimestamp ?? '');
    if (!Number.isNaN(created)) times.push(created + periods.pendingMs);
  }
  for (const c of conditions) {
    if (!FINISHED.has(c.type)) continue;
    const updated = Date.parse(c.lastUpdateTime ?? c.lastTransitionTime ?? '');
    if (!Number.isNaN(updated)) times.push(updated + periods.finishedMs);
  }
  const expiry = certificateExpiry(csr.status?.certificate);
  if (expiry !== undefined) times.push(expiry);
  return times.length > 0 ? Math.min(...times) : undefined;
}

/** The notAfter of the first certificate of a base64 PEM bundle, if it parses. */
function certificateExpiry(certificate: string | undefined): number | undefined {
  if (!certificate) return undefined;
  const block = decodePemBlocks(Buffer.from(certificate, 'base64').toString('latin1'))[0];
  if (!block) return undefined;
  try {
    return Date.parse(new X509Certificate(block.bytes).validTo);
  } catch {
    return undefined;
  }
}
