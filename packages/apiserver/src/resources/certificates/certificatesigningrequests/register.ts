import type { ResourceRegistration } from '../../../registry/registration.js';
import { certificatesGroup } from '../types.js';
import { csrStrategy } from './strategy.js';

const DEFINITION = 'io.k8s.api.certificates.v1.CertificateSigningRequest';

/** certificates/v1 certificatesigningrequests (cluster-scoped) with the `approval` and `status` subresources. */
export function certificateSigningRequests(apiDomain: string): ResourceRegistration {
  return {
    info: {
      group: certificatesGroup(apiDomain),
      version: 'v1',
      resource: 'certificatesigningrequests',
      singularName: 'certificatesigningrequest',
      kind: 'CertificateSigningRequest',
      listKind: 'CertificateSigningRequestList',
      namespaced: false,
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['csr'],
      definitionName: DEFINITION,
      subresources: [
        { name: 'approval', kind: 'CertificateSigningRequest', verbs: ['get', 'patch', 'update'], definitionName: DEFINITION },
        { name: 'status', kind: 'CertificateSigningRequest', verbs: ['get', 'patch', 'update'], definitionName: DEFINITION },
      ],
    },
    strategy: csrStrategy(apiDomain) as ResourceRegistration['strategy'],
  };
}
