import type { ApiServer } from '@cluster/apiserver';

/** Namespaces every cluster has (DESIGN "Compatibility"). */
export const BUILTIN_NAMESPACES = ['default', 'cluster-system', 'cluster-public'] as const;

/**
 * Creates the built-in namespaces if they are missing. Replicas race here harmlessly: a create
 * that finds the namespace present is fine.
 */
export async function ensureBuiltinNamespaces(server: ApiServer): Promise<void> {
  const namespaces = server.registries.byResource('', 'namespaces');
  if (!namespaces) return;
  for (const name of BUILTIN_NAMESPACES) {
    try {
      await namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { dryRun: false });
    } catch (e) {
      if ((e as { status?: { reason?: string } }).status?.reason !== 'AlreadyExists') throw e;
    }
  }
}
