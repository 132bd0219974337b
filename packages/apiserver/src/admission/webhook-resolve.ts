import { isNotFound, type KubeObject } from '@cluster/apimachinery';
import type { GenericRegistry } from '../registry/generic-registry.js';
import type { RegistrySet } from '../registry/registry-set.js';
import type { ResourceInfo } from '../registry/resource-info.js';
import type { ResolvedService, ServiceResolver } from './webhook-dispatcher.js';
import type { EquivalentResource, EquivalentResources, NamespaceLabels } from './webhook-match.js';

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

const withApiVersion = (o: KubeObject, apiVersion: string): KubeObject => ({ ...o, apiVersion });

/**
 * The resources served over the same stored objects as a request's (upstream's equivalent
 * resource mapper): the other versions of its group and resource (versions of a custom resource,
 * a removed version served again), whose objects differ only in apiVersion here, and a resource
 * stored as another one (events.<domain> events over core events), converted field by field.
 * Computed once per resource: the registrations of a custom resource are replaced as a whole.
 */
export function equivalentsFrom(registries: () => RegistrySet): EquivalentResources {
  const cache = new WeakMap<ResourceInfo, readonly EquivalentResource[]>();
  return (info) => {
    let out = cache.get(info);
    if (!out) {
      out = computeEquivalents(registries(), info);
      cache.set(info, out);
    }
    return out;
  };
}

function computeEquivalents(set: RegistrySet, info: ResourceInfo): EquivalentResource[] {
  const own = set.lookup(info.group, info.version, info.resource);
  if (!own || own.operations.virtual) return [];
  const ownApiVersion = own.apiVersion();
  const out: EquivalentResource[] = [];
  const sameStore = (r: GenericRegistry) => r.operations.storedAs && (r.operations.storedAs.group !== r.info.group || r.operations.storedAs.resource !== r.info.resource);
  for (const r of set.all()) {
    if (r === own || r.operations.virtual) continue;
    const target = r.apiVersion();
    if (r.info.group === info.group && r.info.resource === info.resource) {
      out.push({ info: r.info, to: (o) => withApiVersion(o, target), back: (o) => withApiVersion(o, ownApiVersion) });
      continue;
    }
    // The request's resource is stored as this one's objects.
    const mine = own.operations.storedAs;
    if (mine && sameStore(own) && mine.group === r.info.group && mine.resource === r.info.resource) {
      out.push({ info: r.info, to: (o) => withApiVersion(mine.toStorage(o), target), back: (o) => withApiVersion(mine.fromStorage(o), ownApiVersion) });
      continue;
    }
    // This resource is stored as the request's objects.
    const theirs = r.operations.storedAs;
    if (theirs && sameStore(r) && theirs.group === info.group && theirs.resource === info.resource) {
      out.push({ info: r.info, to: (o) => withApiVersion(theirs.fromStorage(o), target), back: (o) => withApiVersion(theirs.toStorage(o), ownApiVersion) });
    }
  }
  return out;
}
