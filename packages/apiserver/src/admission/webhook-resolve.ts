import { isNotFound, type KubeObject } from '@cluster/apimachinery';
import type { RegistrySet } from '../registry/registry-set.js';
import type { ResolvedService, ServiceResolver } from './webhook-dispatcher.js';
import type { NamespaceLabels } from './webhook-match.js';

interface ServiceShape extends KubeObject {
  spec?: { ports?: Array<{ name?: string; port?: number }> };
}
interface EndpointsShape extends KubeObject {
  subsets?: Array<{ addresses?: Array<{ ip?: string }>; ports?: Array<{ name?: string; port?: number }> }>;
}

/** Reads from the watch cache, confirming a miss with a quorum read (an object made a moment ago elsewhere). */
async function cachedGet(registries: () => RegistrySet, resource: string, namespace: string, name: string): Promise<KubeObject | undefined> {
  const reg = registries().byResource('', resource);
  if (!reg) return undefined;
  try {
    return await reg.get(namespace, name, '0');
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  try {
    return await reg.get(namespace, name);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** The labels of a namespace, for namespaceSelector. */
export function namespaceLabelsFrom(registries: () => RegistrySet): NamespaceLabels {
  return async (name) => (await cachedGet(registries, 'namespaces', '', name))?.metadata.labels ?? undefined;
}

/**
 * Resolves a webhook Service through its Endpoints (this server has no service proxy): the
 * Service port named by the reference, then the first ready address of the Endpoints port of the
 * same name. The TLS server name is `<service>.<namespace>.svc`, as upstream's.
 */
export function serviceResolverFrom(registries: () => RegistrySet): ServiceResolver {
  return async (namespace, name, port): Promise<ResolvedService> => {
    const svc = (await cachedGet(registries, 'services', namespace, name)) as ServiceShape | undefined;
    if (!svc) throw new Error(`service "${name}" not found`);
    const svcPort = (svc.spec?.ports ?? []).find((p) => p.port === port);
    if (!svcPort) throw new Error(`service "${namespace}/${name}" has no port ${port}`);
    const eps = (await cachedGet(registries, 'endpoints', namespace, name)) as EndpointsShape | undefined;
    for (const subset of eps?.subsets ?? []) {
      const ports = subset.ports ?? [];
      const epPort = ports.find((p) => (p.name ?? '') === (svcPort.name ?? '')) ?? (ports.length === 1 && !svcPort.name ? ports[0] : undefined);
      const ip = subset.addresses?.[0]?.ip;
      if (epPort?.port && ip) return { host: ip, port: epPort.port, serverName: `${name}.${namespace}.svc` };
    }
    throw new Error(`no endpoints available for service "${name}"`);
  };
}
