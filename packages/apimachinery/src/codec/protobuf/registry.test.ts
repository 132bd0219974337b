import { isProtobufKind, protobufMessageFor } from './registry.js';

describe('Protobuf kinds', () => {
  test.each([
    ['v1', 'ConfigMap', 'k8s.io.api.core.v1.ConfigMap'],
    ['v1', 'NamespaceList', 'k8s.io.api.core.v1.NamespaceList'],
    ['v1', 'Status', 'k8s.io.apimachinery.pkg.apis.meta.v1.Status'],
    ['v1', 'DeleteOptions', 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions'],
    ['rbac.authorization.k8s.io/v1', 'DeleteOptions', 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions'],
    ['meta.k8s.io/v1', 'DeleteOptions', 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions'],
    ['authorization.k8s.io/v1', 'SelfSubjectAccessReview', 'k8s.io.api.authorization.v1.SelfSubjectAccessReview'],
    ['authentication.k8s.io/v1', 'TokenRequest', 'k8s.io.api.authentication.v1.TokenRequest'],
    ['coordination.k8s.io/v1', 'LeaseList', 'k8s.io.api.coordination.v1.LeaseList'],
    ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'k8s.io.api.rbac.v1.ClusterRoleBinding'],
    ['certificates.k8s.io/v1', 'CertificateSigningRequest', 'k8s.io.api.certificates.v1.CertificateSigningRequest'],
    ['v1', 'RangeAllocation', undefined],
    ['v1', 'Pod', 'k8s.io.api.core.v1.Pod'],
    ['apps/v1', 'Deployment', 'k8s.io.api.apps.v1.Deployment'],
    ['apps.k8s.io/v1', 'Deployment', undefined],
    ['autoscaling/v1', 'Scale', 'k8s.io.api.autoscaling.v1.Scale'],
    ['v1', 'Table', undefined],
    ['meta.k8s.io/v1', 'Table', undefined],
    ['meta.k8s.io/v1', 'Status', undefined],
    ['authorization.k8s.io/v1', 'ConfigMap', undefined],
    ['rbac.authorization.k8s.io/v1beta1', 'Role', undefined],
    ['example.com/v1', 'Widget', undefined],
    ['', 'ConfigMap', undefined],
  ])('%s %s -> %s', (apiVersion, kind, message) => {
    expect(protobufMessageFor(apiVersion, kind)).toBe(message);
    expect(isProtobufKind(apiVersion, kind)).toBe(message !== undefined);
  });

  test('groups follow the API domain', () => {
    expect(isProtobufKind('coordination.example.com/v1', 'Lease', { apiDomain: 'example.com' })).toBe(true);
    expect(isProtobufKind('coordination.k8s.io/v1', 'Lease', { apiDomain: 'example.com' })).toBe(false);
    expect(isProtobufKind('v1', 'ConfigMap', { apiDomain: 'example.com' })).toBe(true);
  });

  test('apps and autoscaling keep their bare upstream names whatever the API domain', () => {
    expect(isProtobufKind('apps/v1', 'Deployment', { apiDomain: 'example.com' })).toBe(true);
    expect(isProtobufKind('apps.example.com/v1', 'Deployment', { apiDomain: 'example.com' })).toBe(false);
    expect(isProtobufKind('autoscaling/v1', 'Scale', { apiDomain: 'example.com' })).toBe(true);
  });
});
