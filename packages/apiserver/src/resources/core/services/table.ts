import type { TableColumnDefinition } from '../../../registry/strategy.js';
import { ageOf } from '../../../tables/human-duration.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';
import type { Service } from './types.js';

const column = (name: string, description: string, priority = 0): TableColumnDefinition => ({ name, type: 'string', format: '', description, priority });

/** Upstream's service columns: NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE, and SELECTOR when wide. */
export const serviceColumns: TableColumnDefinition[] = [
  nameColumn,
  column('Type', 'How the service is exposed.'),
  column('Cluster-IP', 'The virtual IP of the service inside the cluster.'),
  column('External-IP', 'Addresses the service is reachable at from outside the cluster.'),
  column('Port(s)', 'Ports of the service (port:nodePort/protocol).'),
  ageColumn,
  column('Selector', 'Labels of the pods the service routes to.', 1),
];

function externalIPs(svc: Service): string {
  const spec = svc.spec ?? {};
  const external = spec.externalIPs ?? [];
  switch (spec.type) {
    case 'ExternalName':
      return spec.externalName ?? '';
    case 'LoadBalancer': {
      const ingress = ((svc.status?.['loadBalancer'] as { ingress?: Array<{ ip?: string; hostname?: string }> } | undefined)?.ingress ?? [])
        .map((i) => i.ip || i.hostname || '')
        .filter(Boolean);
      const all = [...ingress, ...external];
      return all.length ? all.join(',') : '<pending>';
    }
    default:
      return external.length ? external.join(',') : '<none>';
  }
}

function ports(svc: Service): string {
  const list = (svc.spec?.ports ?? []).map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`);
  return list.length ? list.join(',') : '<none>';
}

function selector(svc: Service): string {
  const entries = Object.entries(svc.spec?.selector ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join(',') : '<none>';
}

export function serviceCells(svc: Service): unknown[] {
  const clusterIP = svc.spec?.clusterIP || '<none>';
  return [svc.metadata.name ?? '', svc.spec?.type ?? '', clusterIP, externalIPs(svc), ports(svc), ageOf(svc.metadata.creationTimestamp, new Date()), selector(svc)];
}
