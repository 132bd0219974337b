import { isAlreadyExists, isConflict, isNotFound, type KubeObject } from '@cluster/apimachinery';
import type { GenericRegistry } from '../../../registry/generic-registry.js';
import type { RegistrySet } from '../../../registry/registry-set.js';
import { rbacGroup, type BindingObject, type RoleObject } from '../types.js';
import { nodeJoinClusterRoleBindings } from './node-join.js';
import { controllerClusterRoleBindings, controllerClusterRoles } from './controller-policy.js';
import { defaultNamespacedRoleBindings, defaultNamespacedRoles } from './namespace-policy.js';
import { defaultClusterRoleBindings, defaultClusterRoles, policyKeys } from './policy.js';
import { reconcileBinding, reconcileRole, type ReconcilePlan } from './reconcile.js';

const ATTEMPTS = 5;
/** Objects of one kind reconciled at once: a first start writes over a hundred. */
const CONCURRENCY = 8;
const FIELD_MANAGER = 'rbac-bootstrap';

/**
 * Writes upstream's default cluster roles and bindings (the controllers' included), then the
 * namespaced ones (start-up; upstream's rbac/bootstrap-roles hook; their namespaces must exist),
 * plus the node-join bindings when asked. Replicas starting together race harmlessly: a create
 * that meets AlreadyExists and an update that meets a Conflict are planned again from a fresh read.
 * @throws the first error that is not such a race.
 */
export async function ensureDefaultRbac(registries: RegistrySet, apiDomain: string, opts: { nodeJoin?: boolean } = {}): Promise<void> {
  const group = rbacGroup(apiDomain);
  const { autoupdate } = policyKeys(apiDomain);
  const roles = registries.byResource(group, 'clusterroles');
  const bindings = registries.byResource(group, 'clusterrolebindings');
  const nsRoles = registries.byResource(group, 'roles');
  const nsBindings = registries.byResource(group, 'rolebindings');
  if (!roles || !bindings || !nsRoles || !nsBindings) return;
  const ensureRoles = async (registry: GenericRegistry, list: RoleObject[]) => {
    await eachLimited(list, (role) =>
      reconcileOne(registry, role.metadata.namespace ?? '', role.metadata.name!, (cur) => reconcileRole(cur as RoleObject | undefined, role, autoupdate)),
    );
  };
  const ensureBindings = async (registry: GenericRegistry, list: BindingObject[]) => {
    await eachLimited(list, (b) =>
      reconcileOne(registry, b.metadata.namespace ?? '', b.metadata.name!, (cur) => reconcileBinding(cur as BindingObject | undefined, b, autoupdate)),
    );
  };
  await ensureRoles(roles, [...defaultClusterRoles(apiDomain), ...controllerClusterRoles(apiDomain)]);
  await ensureBindings(bindings, [
    ...defaultClusterRoleBindings(apiDomain),
    ...controllerClusterRoleBindings(apiDomain),
    ...(opts.nodeJoin ? nodeJoinClusterRoleBindings(apiDomain) : []),
  ]);
  await ensureRoles(nsRoles, defaultNamespacedRoles(apiDomain));
  await ensureBindings(nsBindings, defaultNamespacedRoleBindings(apiDomain));
}

/** Runs `fn` on every item, CONCURRENCY at a time; stops starting new ones after a failure and rethrows the first. */
async function eachLimited<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      const item = items[next++]!;
      try {
        await fn(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
  if (failure) throw failure.error;
}

async function reconcileOne(registry: GenericRegistry, namespace: string, name: string, plan: (cur: KubeObject | undefined) => ReconcilePlan<KubeObject>): Promise<void> {
  const opts = { dryRun: false, fieldManager: FIELD_MANAGER };
  for (let attempt = 1; ; attempt++) {
    try {
      let current: KubeObject | undefined;
      try {
        current = await registry.get(namespace, name);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      const p = plan(current);
      if (p.op === 'none') return;
      if (p.op === 'create') {
        await registry.create(namespace, p.object, opts);
      } else if (p.op === 'update') {
        await registry.update(namespace, name, p.object, opts);
      } else {
        await registry.delete(namespace, name, { ...opts, preconditions: { resourceVersion: current?.metadata.resourceVersion } });
        const fresh = structuredClone(p.object);
        delete fresh.metadata.resourceVersion;
        delete fresh.metadata.uid;
        delete fresh.metadata.creationTimestamp;
        delete fresh.metadata.managedFields;
        await registry.create(namespace, fresh, opts);
      }
      return;
    } catch (e) {
      if (attempt < ATTEMPTS && (isAlreadyExists(e) || isConflict(e) || isNotFound(e))) continue;
      throw e;
    }
  }
}
