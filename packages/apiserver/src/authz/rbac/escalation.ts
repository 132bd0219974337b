import { newForbidden, type KubeObject, type StatusError } from '@cluster/apimachinery';
import type { AdmissionAttributes, AdmissionPlugin } from '../../admission/admission.js';
import type { UserInfo } from '../../authn/user.js';
import type { RequestInfo } from '../../request/request-info.js';
import type { Authorizer, PolicyRule } from '../authorizer.js';
import { compactRules, compactString, covers, goQuotedList } from './covers.js';
import type { RbacAuthorizer } from './rbac-authorizer.js';
import { rbacGroup, type BindingObject, type RoleObject } from './types.js';

/** Everything: what using an aggregationRule requires, as upstream. */
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/**
 * Upstream's ConfirmNoEscalation message, or undefined when `owner` covers `requested`: the
 * missing rules compacted, one per line, sorted.
 */
export function escalationMessage(user: UserInfo, owner: readonly PolicyRule[], requested: readonly PolicyRule[], evaluationError?: string): string | undefined {
  const { covered, missing } = covers(owner, requested);
  if (covered) return undefined;
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user "${user.username}" (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (evaluationError) msg += `; resolution errors: [${evaluationError}]`;
  return msg;
}

/**
 * Escalation prevention on writes of the four RBAC kinds (upstream's policybased storages), as
 * a validating admission plugin: a (Cluster)Role may only hold rules its writer holds in that
 * namespace unless the writer may `escalate` it; a binding needs the referenced role's rules or
 * `bind` on that role. system:masters and the server's own writes (no user) pass.
 * @throws 403 Forbidden with upstream's message; 404 when a binding names a missing role.
 */
export function rbacEscalationPlugin(apiDomain: string, authorizer: () => Authorizer, rbac: RbacAuthorizer): AdmissionPlugin {
  const group = rbacGroup(apiDomain);
  const allowedTo = async (user: UserInfo, verb: string, resource: string, namespace: string, name: string) => {
    const info: RequestInfo = {
      isResourceRequest: true, path: '', verb, apiPrefix: 'apis', apiGroup: group, apiVersion: '*',
      namespace, resource, subresource: '', name, parts: [],
    };
    return (await authorizer().authorize({ user, info })).decision === 'allow';
  };
  const confirm = async (user: UserInfo, namespace: string, requested: readonly PolicyRule[]): Promise<string | undefined> => {
    const owner = await rbac.rulesFor(user, namespace);
    return escalationMessage(user, owner.rules, requested, owner.evaluationError);
  };
  const validateRbacWrite = async (attrs: AdmissionAttributes, user: UserInfo, resource: AdmissionAttributes['resource'], object: KubeObject): Promise<void> => {
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
    if (user.groups.includes('system:masters')) return;
    const gr = { group, resource: resource.resource };
    const forbidden = (msg: string): StatusError => newForbidden(gr, attrs.name, msg);
    switch (resource.resource) {
      case 'roles':
      case 'clusterroles': {
        if (await allowedTo(user, 'escalate', resource.resource, attrs.namespace, attrs.name)) return;
        const role = object as RoleObject;
        const msg = await confirm(user, attrs.namespace, role.rules ?? []);
        if (msg) throw forbidden(msg);
        const old = attrs.oldObject as RoleObject | undefined;
        const aggregationChanged = JSON.stringify(role.aggregationRule ?? null) !== JSON.stringify(old?.aggregationRule ?? null);
        if (role.aggregationRule && aggregationChanged && (await confirm(user, attrs.namespace, FULL_AUTHORITY))) {
          throw forbidden('must have cluster-admin privileges to use the aggregationRule');
        }
        return;
      }
      case 'rolebindings':
      case 'clusterrolebindings': {
        const binding = object as BindingObject;
        const ref = binding.roleRef;
        if (attrs.operation === 'UPDATE' && onlyMetadataChanged(binding, attrs.oldObject as BindingObject | undefined)) return;
        const refResource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
        // Checked in the binding's namespace, so `bind` can be delegated per namespace (as upstream).
        if (ref.apiGroup === group && (await allowedTo(user, 'bind', refResource, attrs.namespace, ref.name))) return;
        const rules = await rbac.roleRefRules(ref, attrs.namespace);
        const msg = await confirm(user, attrs.namespace, rules);
        if (msg) throw forbidden(msg);
        return;
      }
    }
  };
  return {
    name: 'RBACEscalation',
    // Not an async function: for every other group it returns at once, without a promise.
    validate(attrs: AdmissionAttributes) {
      const { user, resource, object } = attrs;
      if (!user || !object || resource.group !== group || attrs.subresource) return;
      return validateRbacWrite(attrs, user, resource, object);
    },
  };
}

/** Subjects and roleRef unchanged: metadata-only updates (finalizers, labels) need no grant check. */
function onlyMetadataChanged(b: BindingObject, old: BindingObject | undefined): boolean {
  return !!old && JSON.stringify([b.subjects ?? [], b.roleRef]) === JSON.stringify([old.subjects ?? [], old.roleRef]);
}
