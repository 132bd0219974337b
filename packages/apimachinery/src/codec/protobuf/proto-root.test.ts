import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findProtoDir, loadProtoRoot } from './proto-root.js';

describe('locating and loading the .proto files', () => {
  test('finds the repository proto/ directory from the source tree', () => {
    const dir = findProtoDir(fileURLToPath(import.meta.url));
    expect(dir.endsWith('/proto')).toBe(true);
    expect(loadProtoRoot(dir).lookupType('k8s.io.api.core.v1.ConfigMap').fields['binaryData']?.id).toBe(3);
  });

  test('finds it from a built file deeper in the tree (dist/src/...)', () => {
    const root = mkdtempSync(join(tmpdir(), 'proto-root-'));
    mkdirSync(join(root, 'proto'));
    writeFileSync(join(root, 'proto', 'meta-v1.proto'), '');
    const deep = join(root, 'packages', 'apimachinery', 'dist', 'src', 'codec', 'protobuf');
    mkdirSync(deep, { recursive: true });
    try {
      expect(findProtoDir(join(deep, 'proto-root.js'))).toBe(join(root, 'proto'));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('reads the hand-written files and those hack/gen-types writes to proto/generated/', () => {
    const dir = mkdtempSync(join(tmpdir(), 'proto-dir-'));
    mkdirSync(join(dir, 'generated'));
    writeFileSync(join(dir, 'runtime.proto'), 'syntax = "proto2";\npackage r;\nmessage Unknown { optional bytes raw = 3; }\n');
    writeFileSync(join(dir, 'meta-v1.proto'), 'syntax = "proto2";\npackage m;\nmessage Meta { optional string name = 1; }\n');
    writeFileSync(join(dir, 'generated', 'a-v1.generated.proto'), 'syntax = "proto2";\npackage a;\nmessage Kind { optional .m.Meta metadata = 1; optional string x = 2; }\n');
    try {
      const root = loadProtoRoot(dir);
      expect(root.lookupType('a.Kind').fields['x']?.id).toBe(2);
      expect(root.lookupType('a.Kind').fields['metadata']?.resolvedType?.fullName).toBe('.m.Meta');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a repository without proto/generated/ still loads', () => {
    const dir = mkdtempSync(join(tmpdir(), 'proto-dir-'));
    writeFileSync(join(dir, 'runtime.proto'), 'syntax = "proto2";\npackage r;\n');
    writeFileSync(join(dir, 'meta-v1.proto'), 'syntax = "proto2";\npackage m;\nmessage Meta { optional string name = 1; }\n');
    try {
      expect(loadProtoRoot(dir).lookupType('m.Meta').fields['name']?.id).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('fails clearly when there is none', () => {
    expect(() => findProtoDir('/nonexistent-dir/a/b.js')).toThrow('no proto/ directory above /nonexistent-dir/a/b.js');
  });

  test.each([
    ['k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'managedFields', 17],
    ['k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference', 'apiVersion', 5],
    ['k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry', 'fieldsV1', 7],
    ['k8s.io.apimachinery.pkg.apis.meta.v1.StatusDetails', 'uid', 6],
    ['k8s.io.apimachinery.pkg.apis.meta.v1.TypeMeta', 'kind', 1],
    ['k8s.io.apimachinery.pkg.runtime.TypeMeta', 'apiVersion', 1],
    ['k8s.io.api.core.v1.Secret', 'immutable', 5],
    ['k8s.io.api.authorization.v1.SubjectAccessReviewStatus', 'denied', 4],
    ['k8s.io.api.authentication.v1.TokenRequestSpec', 'expirationSeconds', 4],
    ['k8s.io.api.certificates.v1.CertificateSigningRequestCondition', 'status', 6],
    ['k8s.io.api.coordination.v1.LeaseSpec', 'renewTime', 4],
    // From proto/generated/ (hack/gen-types).
    ['k8s.io.api.core.v1.PodSpec', 'nodeName', 10],
    ['k8s.io.api.apps.v1.DeploymentSpec', 'progressDeadlineSeconds', 9],
    ['k8s.io.api.batch.v1.JobSpec', 'backoffLimit', 7],
  ])('%s.%s is field %i, as upstream', (type, field, id) => {
    expect(loadProtoRoot().lookupType(type).fields[field]?.id).toBe(id);
  });
});
