import type { TableColumnDefinition } from '../../registry/strategy.js';
import { ageOf, humanDuration } from '../../tables/human-duration.js';
import { ageColumn, nameColumn } from '../../tables/columns.js';
import type { CertificateSigningRequest } from './types.js';

const column = (name: string, description: string): TableColumnDefinition => ({ name, type: 'string', format: '', description, priority: 0 });

/**
 * The CONDITION cell as `kubectl get csr` prints it: Denied over Approved over Pending, then
 * `,Failed` and `,Issued` (a certificate is stored) when they apply.
 */
export function csrConditionText(csr: CertificateSigningRequest): string {
  const types = new Set((csr.status?.conditions ?? []).map((c) => c.type));
  let text = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) text += ',Failed';
  if (csr.status?.certificate) text += ',Issued';
  return text;
}

/** CertificateSigningRequest table: Name, Age, SignerName, Requestor, RequestedDuration, Condition. */
export const csrTable = {
  columns: [
    nameColumn,
    ageColumn,
    column('SignerName', 'Name of the signer the request asks to sign it.'),
    column('Requestor', 'Name of the user who created the request.'),
    column('RequestedDuration', 'Validity the requester asked for (spec.expirationSeconds).'),
    column('Condition', 'Approval state of the request, and whether a certificate was issued.'),
  ] satisfies TableColumnDefinition[],
  cells(csr: CertificateSigningRequest): unknown[] {
    const exp = csr.spec?.expirationSeconds;
    return [
      csr.metadata.name ?? '',
      ageOf(csr.metadata.creationTimestamp, new Date()),
      csr.spec?.signerName ?? '',
      csr.spec?.username ?? '',
      exp === undefined || exp === null ? '<none>' : humanDuration(exp * 1000),
      csrConditionText(csr),
    ];
  },
};
