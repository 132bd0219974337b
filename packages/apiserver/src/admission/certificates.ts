import { certificateRequestDetails, newForbidden } from '@cluster/apimachinery';
import type { UserInfo } from '../authn/user.js';
import { checkedRequestInfo, type Authorizer } from '../authz/authorizer.js';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';

interface Csr {
  metadata: { name?: string };
  spec?: { signerName?: string; request?: string };
  status?: { certificate?: string; conditions?: unknown[] };
}

/**
 * Whether `user` holds `verb` on `signers` for `signerName`, by name or by `<domain>/*` (SPEC
 * 4.10; upstream's IsAuthorizedForSignerName).
 */
export async function authorizedForSigner(authorizer: Authorizer, apiDomain: string, user: UserInfo, verb: 'approve' | 'sign', signerName: string): Promise<boolean> {
  const ask = async (name: string) =>
    (await authorizer.authorize({ user, info: checkedRequestInfo({ verb, apiGroup: `certificates.${apiDomain}`, apiVersion: '*', resource: 'signers', name }) })).decision === 'allow';
  if (await ask(signerName)) return true;
  const slash = signerName.indexOf('/');
  return slash > 0 && ask(`${signerName.slice(0, slash)}/*`);
}

/**
 * The certificates admission plugins of upstream, on certificatesigningrequests:
 * CertificateApproval (changing conditions through `approval` needs `approve` on the signer),
 * CertificateSigning (changing the certificate or conditions through `status` needs `sign` on the signer)
 * and CertificateSubjectRestriction (no `system:masters` organization for the api-server-client
 * signer). The server's own writes (no user) pass.
 */
export function certificateAdmissionPlugins(apiDomain: string, authorizer: () => Authorizer): AdmissionPlugin[] {
  const group = `certificates.${apiDomain}`;
  const applies = (a: AdmissionAttributes) => a.resource.group === group && a.resource.resource === 'certificatesigningrequests' && !!a.object;
  const forbid = (a: AdmissionAttributes, msg: string) => newForbidden({ group, resource: 'certificatesigningrequests' }, a.name, msg);
  return [
    {
      name: 'CertificateApproval',
      validate(a) {
        const user = a.user;
        if (!applies(a) || a.subresource !== 'approval' || a.operation !== 'UPDATE' || !user) return;
        return (async () => {
          // The stored object's signer, as upstream: the update cannot pick another one.
          const signer = ((a.oldObject ?? a.object) as Csr).spec?.signerName ?? '';
          if (!(await authorizedForSigner(authorizer(), apiDomain, user, 'approve', signer))) {
            throw forbid(a, `user not permitted to approve requests with signerName "${signer}"`);
          }
        })();
      },
    },
    {
      name: 'CertificateSigning',
      validate(a) {
        const user = a.user;
        if (!applies(a) || a.subresource !== 'status' || a.operation !== 'UPDATE' || !user) return;
        return (async () => {
          // As upstream: only when the certificate or the conditions change.
          const before = (a.oldObject as Csr | undefined)?.status;
          const after = (a.object as Csr).status;
          if ((before?.certificate ?? '') === (after?.certificate ?? '') && JSON.stringify(before?.conditions ?? []) === JSON.stringify(after?.conditions ?? [])) return;
          const signer = (a.oldObject as Csr | undefined)?.spec?.signerName ?? '';
          if (!(await authorizedForSigner(authorizer(), apiDomain, user, 'sign', signer))) {
            throw forbid(a, `user not permitted to sign requests with signerName "${signer}"`);
          }
        })();
      },
    },
    {
      name: 'CertificateSubjectRestriction',
      validate(a) {
        if (!applies(a) || a.subresource || a.operation !== 'CREATE') return;
        return (async () => {
          const csr = a.object as Csr;
          const signer = `${apiDomain}/api-server-client`;
          if (csr.spec?.signerName !== signer) return;
          let organizations: string[];
          try {
            // The same reader as validation, the signer and x509 authentication (x509-name.ts).
            organizations = certificateRequestDetails(Buffer.from(csr.spec.request ?? '', 'base64')).organizations;
          } catch (e) {
            throw forbid(a, `failed to parse CSR: ${(e as Error).message}`);
          }
          if (organizations.includes('system:masters')) throw forbid(a, `use of ${signer} signer with system:masters group is not allowed`);
        })();
      },
    },
  ];
}
