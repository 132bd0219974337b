import { NODE_LEASE_NAMESPACE, type ApiServer } from '@cluster/apiserver';

/**
 * Namespaces every cluster has (DESIGN "Compatibility"), and the node heartbeat Leases' namespace
 * that upstream's system-namespaces controller creates beside them (`kube-node-lease`): without it a
 * joined node has nowhere to write the one Lease the Node authorizer lets it write. Unlike the
 * first three it may be deleted, as upstream's may (it is recreated at the next start).
 */
export const BUILTIN_NAMESPACES = ['default', 'cluster-system', 'cluster-public', NODE_LEASE_NAMESPACE] as const;

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
