import { SYSTEM_PRIORITY_CLASSES, type ApiServer } from '@cluster/apiserver';

/**
 * Upstream's `scheduling/bootstrap-system-priority-classes` post-start hook: creates
 * system-node-critical and system-cluster-critical when missing. Replicas race here harmlessly (a
 * create that finds the class present is fine); the classes cannot be deleted afterwards (the
 * Priority admission plugin refuses).
 */
export async function ensureSystemPriorityClasses(server: ApiServer, apiDomain: string): Promise<void> {
  const group = `scheduling.${apiDomain}`;
  const registry = server.registries.byResource(group, 'priorityclasses');
  if (!registry) return;
  for (const { name, value, description } of SYSTEM_PRIORITY_CLASSES) {
    const pc = { apiVersion: `${group}/v1`, kind: 'PriorityClass', metadata: { name }, value, description };
    try {
      await registry.create('', pc, { dryRun: false });
    } catch (e) {
      if ((e as { status?: { reason?: string } }).status?.reason !== 'AlreadyExists') throw e;
    }
  }
}
