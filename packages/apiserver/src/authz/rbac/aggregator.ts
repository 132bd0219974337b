import { isConflict, isNotFound } from '@cluster/apimachinery';
import type { GenericRegistry } from '../../registry/generic-registry.js';
import { aggregationUpdates } from './aggregate.js';
import type { RbacIndex } from './rbac-index.js';
import type { RoleObject } from './types.js';

const FIELD_MANAGER = 'clusterrole-aggregation-controller';

/**
 * Brings every aggregated ClusterRole up to date from a fresh list, repeating while a write
 * changed something (aggregated roles may select each other: view -> edit -> admin), so a
 * replica serves with converged defaults. Conflicts (another replica) just mean another round.
 */
export async function aggregateUntilStable(clusterRoles: GenericRegistry, maxRounds = 10): Promise<void> {
  for (let round = 0; round < maxRounds; round++) {
    const all = (await clusterRoles.list('', { hasSelector: false })).items as RoleObject[];
    const updates = aggregationUpdates(all);
    if (!updates.length) return;
    for (const { role, rules } of updates) {
      try {
        await clusterRoles.update('', role.metadata.name ?? '', { ...structuredClone(role), rules }, { dryRun: false, fieldManager: FIELD_MANAGER });
      } catch (e) {
        if (!isConflict(e) && !isNotFound(e)) throw e;
      }
    }
  }
}

/**
 * Keeps aggregated ClusterRoles' rules equal to the union of their selected roles' rules, driven
 * by the RBAC index's watch on every replica (upstream runs this as a controller). Writes only
 * when the rules differ, as updates at the read resourceVersion: replicas racing lose with a
 * Conflict, and the winner's write comes back through the watch. Returns a stop function.
 */
export function startClusterRoleAggregator(
  index: RbacIndex,
  clusterRoles: () => GenericRegistry,
  log: (msg: string, err?: unknown) => void = () => {},
  debounceMs = 20,
): () => void {
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let again = false;
  let stopped = false;
  const run = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      for (const { role, rules } of aggregationUpdates(index.clusterRoles())) {
        if (stopped) return;
        const next = { ...structuredClone(role), rules };
        try {
          await clusterRoles().update('', role.metadata.name ?? '', next, { dryRun: false, fieldManager: FIELD_MANAGER });
        } catch (e) {
          if (!isConflict(e) && !isNotFound(e)) log(`aggregating clusterrole ${role.metadata.name}`, e);
        }
      }
    } finally {
      running = false;
      if (again && !stopped) {
        again = false;
        schedule();
      }
    }
  };
  const schedule = () => {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void run();
    }, debounceMs);
  };
  index.onChange(schedule);
  schedule();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
