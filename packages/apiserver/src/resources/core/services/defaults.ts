import { needsHealthCheckNodePort, type Service } from './types.js';

/** Upstream's default sticky-session timeout for ClientIP affinity (3 hours). */
const DEFAULT_CLIENT_IP_TIMEOUT_SECONDS = 10_800;

/**
 * Upstream's defaulting of a Service (SetDefaults_Service and the registry's IP-family defaults),
 * for a single-stack IPv4 cluster. Mutates `svc`.
 */
export function defaultService(svc: Service): void {
  const spec = (svc.spec ??= {});
  spec.type ||= 'ClusterIP';
  spec.sessionAffinity ||= 'None';
  if (spec.sessionAffinity === 'ClientIP') {
    const config = (spec['sessionAffinityConfig'] ??= {}) as { clientIP?: { timeoutSeconds?: number } };
    config.clientIP ??= {};
    config.clientIP.timeoutSeconds ??= DEFAULT_CLIENT_IP_TIMEOUT_SECONDS;
  }
  for (const p of spec.ports ?? []) {
    p.protocol ||= 'TCP';
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') spec.externalTrafficPolicy ||= 'Cluster';
  if (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === undefined) spec.allocateLoadBalancerNodePorts = true;
  if (spec.type !== 'ExternalName') {
    spec.internalTrafficPolicy ||= 'Cluster';
    if (!spec.ipFamilies || spec.ipFamilies.length === 0) spec.ipFamilies = ['IPv4'];
    spec.ipFamilyPolicy ||= 'SingleStack';
    if (spec.clusterIP && (!spec.clusterIPs || spec.clusterIPs.length === 0)) spec.clusterIPs = [spec.clusterIP];
    if (!spec.clusterIP && spec.clusterIPs?.length) spec.clusterIP = spec.clusterIPs[0];
  }
}

/**
 * What an update may leave out and still keep (upstream's patchAllocatedValues): a replace that
 * omits the allocated cluster IP or node ports keeps the stored ones. A change to ExternalName
 * drops them (they are freed when the update is stored). Mutates `svc`.
 */
export function carryAllocatedValues(svc: Service, old: Service): void {
  const spec = (svc.spec ??= {});
  const oldSpec = old.spec ?? {};
  if (spec.type === 'ExternalName') {
    if (oldSpec.type !== 'ExternalName') {
      delete spec.clusterIP;
      delete spec.clusterIPs;
      delete spec.ipFamilies;
      delete spec.ipFamilyPolicy;
      delete spec.internalTrafficPolicy;
      for (const p of spec.ports ?? []) delete p.nodePort;
      delete spec.healthCheckNodePort;
    }
    return;
  }
  // A patch of clusterIP alone leaves the old clusterIPs behind: it means the new value for both
  // (upstream's normalizeClusterIPs), so validation reports the change itself, not a mismatch.
  if (spec.clusterIP && spec.clusterIP !== oldSpec.clusterIP && JSON.stringify(spec.clusterIPs ?? []) === JSON.stringify(oldSpec.clusterIPs ?? [])) {
    spec.clusterIPs = [spec.clusterIP];
  }
  if (!spec.clusterIP && oldSpec.clusterIP && oldSpec.type !== 'ExternalName') {
    spec.clusterIP = oldSpec.clusterIP;
    spec.clusterIPs = oldSpec.clusterIPs ?? [oldSpec.clusterIP];
  }
  if (!spec.healthCheckNodePort && oldSpec.healthCheckNodePort && needsHealthCheckNodePort(svc)) spec.healthCheckNodePort = oldSpec.healthCheckNodePort;
  if (!needsHealthCheckNodePort(svc)) delete spec.healthCheckNodePort;
  const nodePortTypes = ['NodePort', 'LoadBalancer'];
  if (nodePortTypes.includes(spec.type ?? '') && nodePortTypes.includes(oldSpec.type ?? '')) {
    for (const p of spec.ports ?? []) {
      if (p.nodePort) continue;
      const same = (oldSpec.ports ?? []).find((o) => o.port === p.port && (o.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
      if (same?.nodePort) p.nodePort = same.nodePort;
    }
  } else if (!nodePortTypes.includes(spec.type ?? '')) {
    // ClusterIP services have no node ports; a change to ClusterIP frees them (upstream clears them too).
    if (nodePortTypes.includes(oldSpec.type ?? '')) for (const p of spec.ports ?? []) delete p.nodePort;
  }
}
