import type { KubeObject } from '@cluster/apimachinery';
import type { UserInfo } from '../authn/user.js';
import type { Authorizer } from '../authz/authorizer.js';
import type { ResourceInfo } from '../registry/resource-info.js';
import type { AdmissionAttributes } from './admission.js';
import { changesOwnerReferences, newBlockingOwnerReferences, ownerReferencesPermissionEnforcement, type KindMapping } from './owner-references-permission.js';

const info = (group: string, resource: string): ResourceInfo => ({
  group, version: 'v1', resource, singularName: resource, kind: 'X', listKind: 'XList', namespaced: true, verbs: [], definitionName: 'X',
});
const SECRETS = info('', 'secrets');
const PODS = info('', 'pods');

const MAPPINGS: Record<string, KindMapping> = {
  '/v1/ConfigMap': { group: '', version: 'v1', resource: 'configmaps', namespaced: true },
  '/v1/Namespace': { group: '', version: 'v1', resource: 'namespaces', namespaced: false },
  'example.com/v1/Widget': { group: 'example.com', version: 'v1', resource: 'widgets', namespaced: true },
};
const mappingsOf = (g: string, v: string, k: string) => (MAPPINGS[`${g}/${v}/${k}`] ? [MAPPINGS[`${g}/${v}/${k}`]!] : []);

const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };
/** What alice may do: `verb resource/subresource namespace/name` strings; `*` entries as written. */
function authorizerAllowing(grants: string[], asked: string[] = []): Authorizer {
  return {
    async authorize({ info: i }) {
      const key = `${i.verb} ${i.apiGroup}/${i.resource}${i.subresource ? `/${i.subresource}` : ''} ${i.namespace}/${i.name}`;
      asked.push(key);
      return { decision: grants.includes(key) ? 'allow' : 'no-opinion', reason: '' };
    },
  };
}

const ref = (uid: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `cm-${uid}`, uid, ...extra });
const obj = (refs?: unknown[]): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns', ...(refs ? { ownerReferences: refs } : {}) } }) as KubeObject;

async function run(grants: string[], a: Partial<AdmissionAttributes> & Pick<AdmissionAttributes, 'operation'>): Promise<string | undefined> {
  const plugin = ownerReferencesPermissionEnforcement(() => authorizerAllowing(grants), mappingsOf);
  try {
    await plugin.validate({ resource: SECRETS, subresource: '', namespace: 'ns', name: 's', dryRun: false, user: alice, ...a });
    return undefined;
  } catch (e) {
    const s = (e as { status: { code: number; message: string } }).status;
    return `${s.code} ${s.message}`;
  }
}

const DELETE_S = 'delete /secrets ns/s';
const FINALIZE_A = 'update /configmaps/finalizers ns/cm-a';

describe('OwnerReferencesPermissionEnforcement', () => {
  test.each<[string, string[], Partial<AdmissionAttributes> & Pick<AdmissionAttributes, 'operation'>, string | undefined]>([
    ['create without owners: allowed', [], { operation: 'CREATE', object: obj() }, undefined],
    ['create with a non-blocking owner: allowed without any grant', [], { operation: 'CREATE', object: obj([ref('a')]) }, undefined],
    ['create with a blocking owner, no finalizers grant: forbidden', [], { operation: 'CREATE', object: obj([ref('a', { blockOwnerDeletion: true })]) },
      `403 secrets "s" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`],
    ['create with a blocking owner, update on its finalizers: allowed', [FINALIZE_A], { operation: 'CREATE', object: obj([ref('a', { blockOwnerDeletion: true })]) }, undefined],
    ['create with a blocking owner, finalizers on everything: allowed', ['update */*/finalizers /*'], { operation: 'CREATE', object: obj([ref('a', { blockOwnerDeletion: true })]) }, undefined],
    ['delete on the owner is not enough (upstream since 1.20: finalizers)', ['delete /configmaps ns/cm-a'], { operation: 'CREATE', object: obj([ref('a', { blockOwnerDeletion: true })]) },
      `403 secrets "s" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`],
    ['update changing owners without delete on the object: forbidden', [FINALIZE_A], { operation: 'UPDATE', oldObject: obj(), object: obj([ref('a')]) },
      `403 secrets "s" is forbidden: cannot set an ownerRef on a resource you can't delete: , <nil>`],
    ['update adding a non-blocking owner with delete on the object: allowed', [DELETE_S], { operation: 'UPDATE', oldObject: obj(), object: obj([ref('a')]) }, undefined],
    ['update removing an owner needs delete on the object', [], { operation: 'UPDATE', oldObject: obj([ref('a')]), object: obj() },
      `403 secrets "s" is forbidden: cannot set an ownerRef on a resource you can't delete: , <nil>`],
    ['update leaving owners alone: allowed', [], { operation: 'UPDATE', oldObject: obj([ref('a', { blockOwnerDeletion: true })]), object: obj([ref('a', { blockOwnerDeletion: true })]) }, undefined],
    ['update switching blockOwnerDeletion on: needs finalizers on the owner', [DELETE_S], { operation: 'UPDATE', oldObject: obj([ref('a')]), object: obj([ref('a', { blockOwnerDeletion: true })]) },
      `403 secrets "s" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`],
    ['update switching blockOwnerDeletion on with both grants: allowed', [DELETE_S, FINALIZE_A], { operation: 'UPDATE', oldObject: obj([ref('a', { blockOwnerDeletion: false })]), object: obj([ref('a', { blockOwnerDeletion: true })]) }, undefined],
    ['update switching blockOwnerDeletion off: only delete on the object', [DELETE_S], { operation: 'UPDATE', oldObject: obj([ref('a', { blockOwnerDeletion: true })]), object: obj([ref('a', { blockOwnerDeletion: false })]) }, undefined],
    ['cluster-scoped owner: finalizers asked cluster-wide', ['update /namespaces/finalizers /team'], { operation: 'CREATE', object: obj([{ apiVersion: 'v1', kind: 'Namespace', name: 'team', uid: 'n', blockOwnerDeletion: true }]) }, undefined],
    ['custom resource owner: its group and resource', ['update example.com/widgets/finalizers ns/w'], { operation: 'CREATE', object: obj([{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'w', blockOwnerDeletion: true }]) }, undefined],
    ['owner kind not served: forbidden', ['update /configmaps/finalizers ns/x'], { operation: 'CREATE', object: obj([{ apiVersion: 'nope.io/v1', kind: 'Thing', name: 'x', uid: 'x', blockOwnerDeletion: true }]) },
      `403 secrets "s" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion nope.io/v1 Kind Thing: no matches for kind "Thing" in version "nope.io/v1"`],
    ['malformed apiVersion: forbidden', [], { operation: 'CREATE', object: obj([{ apiVersion: 'a/b/c', kind: 'ConfigMap', name: 'x', uid: 'x', blockOwnerDeletion: true }]) },
      `403 secrets "s" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion a/b/c Kind ConfigMap: no matches for kind "ConfigMap" in version "a/b/c"`],
    ['pods/status is exempt', [], { operation: 'UPDATE', resource: PODS, subresource: 'status', oldObject: obj(), object: obj([ref('a', { blockOwnerDeletion: true })]) }, undefined],
    ['the server’s own writes pass', [], { operation: 'CREATE', user: undefined, object: obj([ref('a', { blockOwnerDeletion: true })]) }, undefined],
    ['deletes are not judged', [], { operation: 'DELETE', oldObject: obj([ref('a', { blockOwnerDeletion: true })]) }, undefined],
  ])('%s', async (_n, grants, a, expected) => {
    expect(await run(grants, a)).toBe(expected);
  });

  test('reference comparison is by position and every field', () => {
    expect(changesOwnerReferences(obj([ref('a'), ref('b')]), obj([ref('b'), ref('a')]))).toBe(true);
    expect(changesOwnerReferences(obj([ref('a', { controller: true })]), obj([ref('a')]))).toBe(true);
    expect(changesOwnerReferences(obj([ref('a')]), obj([ref('a')]))).toBe(false);
    expect(newBlockingOwnerReferences(obj([ref('a', { blockOwnerDeletion: true }), ref('b', { blockOwnerDeletion: true })]), obj([ref('a', { blockOwnerDeletion: true })])).map((r) => r.uid)).toEqual(['b']);
  });
});
