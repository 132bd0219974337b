import {
  integerProp,
  listSchema,
  mapProp,
  objectSchema,
  objectTypeMeta,
  refArrayProp,
  refProp,
  stringArrayProp,
  stringProp,
  META_V1,
  type GvkMarker,
} from '@cluster/apimachinery';
import type { Definitions } from '../../registry/resource-info.js';
import { certificatesGroup } from './types.js';

const CERTIFICATES_V1 = 'io.k8s.api.certificates.v1';
const atomic = { 'x-kubernetes-list-type': 'atomic' } as const;
const bytes = (description: string) => stringProp(description, { format: 'byte' });

/** OpenAPI definitions of certificates/v1 (CertificateSigningRequest), group under `apiDomain`. */
export function certificatesDefinitions(apiDomain: string): Definitions {
  const gvk = (kind: string): GvkMarker => ({ group: certificatesGroup(apiDomain), version: 'v1', kind });
  const csr = `${CERTIFICATES_V1}.CertificateSigningRequest`;
  return {
    [csr]: objectSchema(
      'A request for an X.509 certificate: a PKCS#10 request, approved or denied through `approval`, signed through `status`.',
      {
        ...objectTypeMeta(),
        spec: refProp(`${csr}Spec`, 'The certificate request and its requester; immutable.', { default: {} }),
        status: refProp(`${csr}Status`, 'Approval conditions and the issued certificate.', { default: {} }),
      },
      { required: ['spec'], gvk: [gvk('CertificateSigningRequest')] },
    ),
    [`${csr}List`]: listSchema(csr, gvk('CertificateSigningRequestList'), 'The CertificateSigningRequests.'),
    [`${csr}Spec`]: objectSchema(
      'What is requested and by whom.',
      {
        request: bytes('PEM-encoded PKCS#10 CERTIFICATE REQUEST (base64 in JSON).'),
        signerName: stringProp('Qualified name of the signer asked to sign, `<domain>/<path>`.'),
        expirationSeconds: integerProp('Requested validity in seconds; at least 600.', 'int32'),
        usages: stringArrayProp('Key usages requested in the certificate, e.g. "digital signature", "client auth".', atomic),
        username: stringProp('User who created the request; set by the server.'),
        uid: stringProp('UID of the user who created the request; set by the server.'),
        groups: stringArrayProp('Groups of the user who created the request; set by the server.', atomic),
        extra: mapProp('Extra attributes of the user who created the request; set by the server.', {
          type: 'array',
          items: { type: 'string', default: '' },
        }),
      },
      { required: ['request', 'signerName'] },
    ),
    [`${csr}Status`]: objectSchema('Approval state and the issued certificate.', {
      conditions: refArrayProp('Conditions of the request: Approved, Denied, Failed, or others.', `${csr}Condition`, {
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
      certificate: bytes('Issued certificate chain, PEM CERTIFICATE blocks (base64 in JSON); set through `status`, immutable once set.'),
    }),
    [`${csr}Condition`]: objectSchema(
      'One condition of a certificate request.',
      {
        type: stringProp('Type of the condition: Approved, Denied, Failed, or another.', { default: '' }),
        status: stringProp('True, False or Unknown; Approved, Denied and Failed are only True.', { default: '' }),
        reason: stringProp('Brief machine-readable reason.'),
        message: stringProp('Human-readable details.'),
        lastUpdateTime: refProp(`${META_V1}.Time`, 'Last time the condition was updated.'),
        lastTransitionTime: refProp(`${META_V1}.Time`, 'Last time the condition changed status.'),
      },
      { required: ['type', 'status'] },
    ),
  };
}
