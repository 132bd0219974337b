import { newForbidden, type KubeObject } from '@cluster/apimachinery';
import type { UserInfo } from '../authn/user.js';
import { checkedRequestInfo, type Authorizer } from '../authz/authorizer.js';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';

export const OWNER_REFERENCES_PERMISSION_ENFORCEMENT = 'OwnerReferencesPermissionEnforcement';

interface OwnerRef {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** A resource a kind is served as (upstream's RESTMapping): what an owner reference maps to. */
export interface KindMapping {
  group: string;
  version: string;
  resource: string;
  namespaced: boolean;
}

const refsOf = (o: KubeObject | undefined): OwnerRef[] => (o?.metadata.ownerReferences ?? []) as OwnerRef[];
const canonical = (r: OwnerRef) => JSON.stringify([r.apiVersion, r.kind, r.name, r.uid, r.controller, r.blockOwnerDeletion]);

/** Whether the write adds, removes or changes any owner reference (a create: sets any). Pure. */
export function changesOwnerReferences(object: KubeObject, oldObject: KubeObject | undefined): boolean {
  const next = refsOf(object);
  if (!oldObject) return next.length > 0;
  const prev = refsOf(oldObject);
  return prev.length !== next.length || prev.some((r, i) => canonical(r) !== canonical(next[i]!));
}

/** References that block owner deletion now and did not before (new, or false/unset before). Pure. */
export function newBlockingOwnerReferences(object: KubeObject, oldObject: KubeObject | undefined): OwnerRef[] {
  const blocking = refsOf(object).filter((r) => r.blockOwnerDeletion === true);
  if (!oldObject) return blocking;
  const before = new Map(refsOf(oldObject).map((r) => [r.uid, r]));
  return blocking.filter((r) => before.get(r.uid)?.blockOwnerDeletion !== true);
}

function parseApiVersion(apiVersion: string): { group: string; version: string } | undefined {
  const parts = apiVersion.split('/');
  if (parts.length === 1 && parts[0]) return { group: '', version: parts[0] };
  if (parts.length === 2 && parts[0] && parts[1]) return { group: parts[0], version: parts[1] };
  return undefined;
}

/**
 * Upstream's OwnerReferencesPermissionEnforcement (plugin/pkg/admission/gc), off by default as in
 * kube-apiserver (--enable-admission-plugins turns it on). On creates and updates that change
 * `ownerReferences` (pods/status excepted):
 * - an update needs `delete` on the object written ("you could have deleted it anyway");
 * - each reference made blocking (`blockOwnerDeletion: true` added or switched on) needs `update`
 *   on the owner's `finalizers` subresource, in the dependent's namespace for a namespaced owner
 *   (one grant of `update` on `*`/`finalizers` everywhere covers all); an owner kind that is not
 *   served is refused.
 * Rejections are 403 Forbidden. The server's own writes (no user) pass.
 */
export function ownerReferencesPermissionEnforcement(authorizer: () => Authorizer, mappingsOf: (group: string, version: string, kind: string) => KindMapping[]): AdmissionPlugin {
  const allowed = async (user: UserInfo, a: Parameters<typeof checkedRequestInfo>[0]) => {
    const r = await authorizer().authorize({ user, info: checkedRequestInfo(a) });
    return { ok: r.decision === 'allow', reason: r.reason };
  };
  const forbid = (a: AdmissionAttributes, msg: string) => newForbidden({ group: a.resource.group, resource: a.resource.resource }, a.name, msg);
  return {
    name: OWNER_REFERENCES_PERMISSION_ENFORCEMENT,
    async validate(a) {
      if ((a.operation !== 'CREATE' && a.operation !== 'UPDATE') || !a.object || !a.user) return;
      if (a.resource.group === '' && a.resource.resource === 'pods' && a.subresource === 'status') return;
      if (!changesOwnerReferences(a.object, a.oldObject)) return;
      // Creating it was in the requester's power not to do; changing an existing one's owners is
      // as strong as deleting it.
      if (a.operation !== 'CREATE') {
        const d = await allowed(a.user, {
          verb: 'delete',
          apiGroup: a.resource.group,
          apiVersion: a.resource.version,
          resource: a.resource.resource,
          subresource: a.subresource,
          namespace: a.namespace,
          name: a.name,
        });
        if (!d.ok) throw forbid(a, `cannot set an ownerRef on a resource you can't delete: ${d.reason}, <nil>`);
      }
      const blocking = newBlockingOwnerReferences(a.object, a.oldObject);
      if (blocking.length === 0) return;
      const anything = await allowed(a.user, { verb: 'update', apiGroup: '*', apiVersion: '*', resource: '*', subresource: 'finalizers', name: '*' });
      if (anything.ok) return;
      for (const ref of blocking) {
        const gv = parseApiVersion(ref.apiVersion ?? '');
        const mappings = gv ? mappingsOf(gv.group, gv.version, ref.kind ?? '') : [];
        if (mappings.length === 0) {
          throw forbid(a, `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${ref.apiVersion ?? ''} Kind ${ref.kind ?? ''}: no matches for kind "${ref.kind ?? ''}" in version "${ref.apiVersion ?? ''}"`);
        }
        for (const m of mappings) {
          const d = await allowed(a.user, {
            verb: 'update',
            apiGroup: m.group,
            apiVersion: m.version,
            resource: m.resource,
            subresource: 'finalizers',
            name: ref.name ?? '',
            namespace: m.namespaced ? a.namespace : '',
          });
          if (!d.ok) throw forbid(a, `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${d.reason}, <nil>`);
        }
      }
    },
  };
}
