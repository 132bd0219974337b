import { listSchema, metaDefinitions, objectSchema, objectTypeMeta, stringProp } from '@cluster/apimachinery';
import type { Definitions, ResourceInfo, Verb } from '../registry/resource-info.js';
import { coreDefinitions } from '../resources/core/schemas.js';

/** Test-only: a resource set shaped like DESIGN "Resources served", and its definitions. */
const ALL: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function fixtureResources(apiDomain: string): ResourceInfo[] {
  const certificates = `certificates.${apiDomain}`;
  const authentication = `authentication.${apiDomain}`;
  return [
    {
      group: '', version: 'v1', resource: 'configmaps', singularName: 'configmap', kind: 'ConfigMap', listKind: 'ConfigMapList',
      namespaced: true, verbs: ALL, shortNames: ['cm'], definitionName: 'io.k8s.api.core.v1.ConfigMap',
    },
    {
      group: '', version: 'v1', resource: 'namespaces', singularName: 'namespace', kind: 'Namespace', listKind: 'NamespaceList',
      namespaced: false, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['ns'],
      definitionName: 'io.k8s.api.core.v1.Namespace',
      subresources: [{ name: 'status', kind: 'Namespace', verbs: ['get', 'patch', 'update'], definitionName: 'io.k8s.api.core.v1.Namespace' }],
    },
    {
      group: '', version: 'v1', resource: 'secrets', singularName: 'secret', kind: 'Secret', listKind: 'SecretList',
      namespaced: true, verbs: ALL, definitionName: 'io.k8s.api.core.v1.Secret',
    },
    {
      group: '', version: 'v1', resource: 'serviceaccounts', singularName: 'serviceaccount', kind: 'ServiceAccount',
      listKind: 'ServiceAccountList', namespaced: true, verbs: ALL, shortNames: ['sa'], definitionName: 'io.k8s.api.core.v1.ServiceAccount',
      subresources: [
        { name: 'token', group: authentication, version: 'v1', kind: 'TokenRequest', verbs: ['create'], definitionName: 'io.k8s.api.authentication.v1.TokenRequest' },
      ],
    },
    {
      group: certificates, version: 'v1', resource: 'certificatesigningrequests', singularName: 'certificatesigningrequest',
      kind: 'CertificateSigningRequest', listKind: 'CertificateSigningRequestList', namespaced: false, verbs: ALL, shortNames: ['csr'],
      definitionName: 'io.k8s.api.certificates.v1.CertificateSigningRequest',
      subresources: [
        { name: 'approval', kind: 'CertificateSigningRequest', verbs: ['get', 'patch', 'update'], definitionName: 'io.k8s.api.certificates.v1.CertificateSigningRequest' },
        { name: 'status', kind: 'CertificateSigningRequest', verbs: ['get', 'patch', 'update'], definitionName: 'io.k8s.api.certificates.v1.CertificateSigningRequest' },
      ],
    },
    {
      group: authentication, version: 'v1', resource: 'tokenreviews', singularName: 'tokenreview', kind: 'TokenReview',
      listKind: 'TokenReviewList', namespaced: false, verbs: ['create'], definitionName: 'io.k8s.api.authentication.v1.TokenReview',
    },
  ];
}

export function fixtureDefinitions(apiDomain: string): Definitions {
  const simple = (group: string, kind: string, name: string): Definitions => ({
    [name]: objectSchema(`${kind} for tests.`, { ...objectTypeMeta(), spec: stringProp('spec') }, { gvk: [{ group, version: 'v1', kind }] }),
  });
  const certificates = `certificates.${apiDomain}`;
  const authentication = `authentication.${apiDomain}`;
  const csr = 'io.k8s.api.certificates.v1.CertificateSigningRequest';
  return {
    ...metaDefinitions(apiDomain),
    ...coreDefinitions(apiDomain),
    ...simple(certificates, 'CertificateSigningRequest', csr),
    [`${csr}List`]: listSchema(csr, { group: certificates, version: 'v1', kind: 'CertificateSigningRequestList' }, 'items'),
    ...simple(authentication, 'TokenRequest', 'io.k8s.api.authentication.v1.TokenRequest'),
    ...simple(authentication, 'TokenReview', 'io.k8s.api.authentication.v1.TokenReview'),
  };
}
