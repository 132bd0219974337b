import { createHash } from 'node:crypto';
import type { KubeObject } from '@cluster/apimachinery';
import type { GenericRegistry } from '../../../registry/generic-registry.js';
import type { RegistrySet } from '../../../registry/registry-set.js';
import type { EndpointSubset, Endpoints } from '../endpoints/strategy.js';
import { kubernetesSubsets, leaseIsLive, type ReplicaLease } from './kubernetes-endpoints.js';
import type { Service } from './types.js';

export interface KubernetesServiceOptions {
  registries: RegistrySet;
  apiDomain: string;
  /** The first IP of --service-cluster-ip-range. */
  serviceIP: string;
  /** This replica's --advertise-address and secure port: its endpoint. */
  advertiseAddress: string;
  securePort: number;
  /** Unique per replica process. */
  identity: string;
  /** Namespace of the replicas' leases (the system namespace). */
  leaseNamespace: string;
  leaseDurationSeconds?: number;
  intervalMs?: number;
  /** Every how many passes the allocations are repaired (ObjectAllocations.repair); default 36 (3 min at 5 s, as upstream's repair loop). */
  repairEveryPasses?: number;
  log?: (message: string, err?: unknown) => void;
  now?: () => Date;
}

export interface KubernetesServiceReconciler {
  /** Settles when the first pass (lease, Service, endpoints) is over, whatever its outcome. */
  readonly firstPass: Promise<void>;
  /** Runs one pass now (also what the timer runs). Never throws. */
  reconcileOnce(): Promise<void>;
  /** Stops the loop, removes this replica's lease and its address from the endpoints. */
  stop(): Promise<void>;
}

const SERVICE_NAME = 'kubernetes';
const SERVICE_NAMESPACE = 'default';
const LEASE_PREFIX = 'apiserver-endpoint-';

/**
 * Keeps the `kubernetes` Service and its Endpoints in `default`, from every replica, in the manner
 * of upstream's "lease" endpoint reconciler: each replica renews a Lease (in the system namespace,
 * annotated with its address and port) and writes the Endpoints as the set of replicas whose
 * leases are live. Every write goes through the registries with resourceVersion preconditions, so
 * replicas racing converge on the same answer; a replica that dies drops out when its lease
 * expires, one that stops gracefully removes itself at once.
 */
export function startKubernetesServiceReconciler(opts: KubernetesServiceOptions): KubernetesServiceReconciler {
  const duration = opts.leaseDurationSeconds ?? 15;
  // A third of the lease duration: two passes may be late before a live replica looks dead.
  const interval = opts.intervalMs ?? 5_000;
  const now = opts.now ?? (() => new Date());
  const log = opts.log ?? (() => {});
  const addressKey = `apiserver.${opts.apiDomain}/advertise-address`;
  const portKey = `apiserver.${opts.apiDomain}/secure-port`;
  const leaseName = LEASE_PREFIX + createHash('sha256').update(opts.identity).digest('hex').slice(0, 16);
  const reg = (group: string, resource: string): GenericRegistry => {
    const r = opts.registries.byResource(group, resource);
    if (!r) throw new Error(`${resource} is not served`);
    return r;
  };
  const services = reg('', 'services');
  const endpoints = reg('', 'endpoints');
  const leases = reg(`coordination.${opts.apiDomain}`, 'leases');
  const slices = opts.registries.byResource(`discovery.${opts.apiDomain}`, 'endpointslices');
  const write = { dryRun: false, fieldManager: 'cluster-apiserver' };
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let passes = 0;
  const repairEvery = opts.repairEveryPasses ?? 36;

  // A read-modify-write of the stored lease, created when missing: Leases refuse an update
  // without resourceVersion (as upstream's), so a plain PUT would renew only the first time and
  // this replica would drop out of the endpoints once that first renewal aged past the duration.
  const renewLease = async (): Promise<void> => {
    const renewTime = now().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
    await leases.patch(
      opts.leaseNamespace,
      leaseName,
      (current) =>
        ({
          apiVersion: `coordination.${opts.apiDomain}/v1`,
          kind: 'Lease',
          metadata: {
            ...(current?.metadata ?? {}),
            name: leaseName,
            namespace: opts.leaseNamespace,
            annotations: { ...current?.metadata.annotations, [addressKey]: opts.advertiseAddress, [portKey]: String(opts.securePort) },
          },
          spec: { holderIdentity: opts.identity, leaseDurationSeconds: duration, renewTime },
        }) as KubeObject,
      { ...write, createIfMissing: true },
    );
  };

  const replicaLeases = async (): Promise<ReplicaLease[]> => {
    const list = await leases.list(opts.leaseNamespace, { hasSelector: false });
    const out: ReplicaLease[] = [];
    for (const l of list.items) {
      const name = l.metadata.name ?? '';
      if (!name.startsWith(LEASE_PREFIX)) continue;
      const spec = (l as { spec?: { renewTime?: string; leaseDurationSeconds?: number } }).spec ?? {};
      const address = l.metadata.annotations?.[addressKey];
      const port = Number(l.metadata.annotations?.[portKey]);
      if (!address || !Number.isInteger(port)) continue;
      const lease: ReplicaLease = { name, address, port, renewTime: spec.renewTime, leaseDurationSeconds: spec.leaseDurationSeconds };
      out.push(lease);
      // Leases of replicas gone for a while are removed (upstream's keys expire in etcd instead).
      if (!leaseIsLive({ ...lease, leaseDurationSeconds: (lease.leaseDurationSeconds ?? 0) * 4 }, now())) {
        await leases
          .delete(opts.leaseNamespace, name, { dryRun: false, preconditions: { resourceVersion: l.metadata.resourceVersion } })
          .catch(() => undefined);
      }
    }
    return out;
  };

  const ensureService = async (): Promise<void> => {
    let current: Service | undefined;
    try {
      current = (await services.get(SERVICE_NAMESPACE, SERVICE_NAME)) as Service;
    } catch (e) {
      if (reasonOf(e) !== 'NotFound') throw e;
    }
    if (current) {
      if ((current.spec?.ports ?? []).some((p) => p.port === 443)) return;
      const next: Service = { ...current, spec: { ...current.spec, ports: [...(current.spec?.ports ?? []), httpsPort(opts.securePort)] } };
      await services.update(SERVICE_NAMESPACE, SERVICE_NAME, next, write);
      return;
    }
    const svc: Service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: SERVICE_NAME, namespace: SERVICE_NAMESPACE, labels: { component: 'apiserver', provider: 'kubernetes' } },
      spec: { type: 'ClusterIP', clusterIP: opts.serviceIP, ports: [httpsPort(opts.securePort)], sessionAffinity: 'None' },
    };
    try {
      await services.create(SERVICE_NAMESPACE, svc, write);
    } catch (e) {
      // Another replica created it (or holds the IP while creating it) meanwhile.
      if (reasonOf(e) !== 'AlreadyExists' && reasonOf(e) !== 'Invalid') throw e;
    }
  };

  const writeEndpoints = async (exclude?: string): Promise<void> => {
    const all = await replicaLeases();
    // This replica is live while it runs this pass, even if its own renewal was late.
    const mine = (l: ReplicaLease): ReplicaLease => (l.name === leaseName ? { ...l, renewTime: now().toISOString() } : l);
    const subsets = kubernetesSubsets(
      all.filter((l) => l.name !== exclude).map(exclude ? (l: ReplicaLease) => l : mine),
      now(),
    );
    let current: Endpoints | undefined;
    try {
      current = (await endpoints.get(SERVICE_NAMESPACE, SERVICE_NAME)) as Endpoints;
    } catch (e) {
      if (reasonOf(e) !== 'NotFound') throw e;
    }
    await writeEndpointSlice(subsets);
    if (current && JSON.stringify(current.subsets ?? []) === JSON.stringify(subsets)) return;
    const desired: Endpoints = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: current
        ? { ...current.metadata }
        : { name: SERVICE_NAME, namespace: SERVICE_NAMESPACE, labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
      subsets,
    };
    if (subsets.length === 0) delete desired.subsets;
    if (current) await endpoints.update(SERVICE_NAMESPACE, SERVICE_NAME, desired, write);
    else await endpoints.create(SERVICE_NAMESPACE, desired, write);
  };

  /** The same endpoints as an EndpointSlice (what kubectl describe reads); the first port's replicas. */
  const writeEndpointSlice = async (subsets: EndpointSubset[]): Promise<void> => {
    if (!slices) return;
    const first = subsets[0];
    const body = {
      // A slice holds one family: the first address's (an --advertise-address may be IPv6).
      addressType: first?.addresses?.[0]?.ip.includes(':') ? 'IPv6' : 'IPv4',
      endpoints: (first?.addresses ?? []).filter((a) => a.ip.includes(':') === first?.addresses?.[0]?.ip.includes(':')).map((a) => ({ addresses: [a.ip], conditions: { ready: true } })),
      ports: first ? (first.ports ?? []).map((p) => ({ name: p.name, port: p.port, protocol: p.protocol })) : [],
    };
    let current: KubeObject | undefined;
    try {
      current = await slices.get(SERVICE_NAMESPACE, SERVICE_NAME);
    } catch (e) {
      if (reasonOf(e) !== 'NotFound') throw e;
    }
    const c = current as (KubeObject & typeof body) | undefined;
    if (c && JSON.stringify({ addressType: c.addressType, endpoints: c.endpoints ?? [], ports: c.ports ?? [] }) === JSON.stringify(body)) return;
    const desired = {
      apiVersion: `discovery.${opts.apiDomain}/v1`,
      kind: 'EndpointSlice',
      metadata: current ? { ...current.metadata } : { name: SERVICE_NAME, namespace: SERVICE_NAMESPACE, labels: { 'kubernetes.io/service-name': SERVICE_NAME } },
      ...body,
    } as KubeObject;
    if (current) await slices.update(SERVICE_NAMESPACE, SERVICE_NAME, desired, write);
    else await slices.create(SERVICE_NAMESPACE, desired, write);
  };

  const pass = async (): Promise<void> => {
    try {
      await renewLease();
      await ensureService();
      await writeEndpoints();
      if (++passes % repairEvery === 0) {
        const freed = await services.repairAllocations(now());
        if (freed > 0) log(`freed ${freed} service IPs/node ports no service holds`);
      }
    } catch (e) {
      // A conflict means another replica wrote first; the next pass starts from its state.
      if (reasonOf(e) !== 'Conflict' && reasonOf(e) !== 'AlreadyExists') log('kubernetes service reconcile failed', e);
    }
  };

  const reconcileOnce = (): Promise<void> => {
    running = running.then(pass);
    return running;
  };
  const timer = setInterval(() => {
    if (!stopped) void reconcileOnce();
  }, interval);
  timer.unref();
  const firstPass = reconcileOnce();

  return {
    firstPass,
    reconcileOnce,
    async stop() {
      if (stopped) return running;
      stopped = true;
      clearInterval(timer);
      await running;
      try {
        await leases.delete(opts.leaseNamespace, leaseName, { dryRun: false });
      } catch (e) {
        if (reasonOf(e) !== 'NotFound') log('removing the endpoint lease failed', e);
      }
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          await writeEndpoints(leaseName);
          return;
        } catch (e) {
          if (reasonOf(e) !== 'Conflict') {
            log('removing this replica from the kubernetes endpoints failed', e);
            return;
          }
        }
      }
    },
  };
}

function httpsPort(securePort: number) {
  return { name: 'https', port: 443, protocol: 'TCP', targetPort: securePort };
}

function reasonOf(e: unknown): string | undefined {
  return (e as { status?: { reason?: string } }).status?.reason;
}
