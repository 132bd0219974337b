import { newNotFound, type KubeObject } from '@cluster/apimachinery';
import type { ResourceRegistration } from '../../../registry/registration.js';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { virtualStrategy } from '../../../registry/virtual-strategy.js';
import { nameColumn } from '../../../tables/columns.js';
import { column } from '../../apps/workload/table.js';

/** The outcome of one component's health check (upstream's probe result, message and error). */
export interface ComponentHealth {
  name: string;
  /** True healthy, false unhealthy, undefined unknown. */
  healthy: boolean | undefined;
  message: string;
  error: string;
}

/** Checks every component the list reports (etcd-0, etcd-1, ... here), concurrently. */
export type ComponentProbe = () => Promise<ComponentHealth[]>;

interface ComponentStatus extends KubeObject {
  conditions?: Array<{ type: string; status: string; message?: string; error?: string }>;
}

function toObject(h: ComponentHealth): ComponentStatus {
  const status = h.healthy === undefined ? 'Unknown' : h.healthy ? 'True' : 'False';
  const condition = { type: 'Healthy', status, ...(h.message ? { message: h.message } : {}), ...(h.error ? { error: h.error } : {}) };
  return { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: h.name, creationTimestamp: null }, conditions: [condition] };
}

const strategy: ResourceStrategy<ComponentStatus> = {
  ...(virtualStrategy(false) as ResourceStrategy<ComponentStatus>),
  table: {
    columns: [
      nameColumn,
      column('Status', 'string', 'Status of the component conditions'),
      column('Message', 'string', 'Message of the component conditions'),
      column('Error', 'string', 'Error of the component conditions'),
    ],
    cells: (cs) => {
      const c = cs.conditions?.find((x) => x.type === 'Healthy');
      return [cs.metadata.name ?? '', c ? (c.status === 'True' ? 'Healthy' : 'Unhealthy') : 'Unknown', c?.message ?? '', c?.error ?? ''];
    },
  },
};

/**
 * core/v1 componentstatuses (cs): upstream's deprecated (1.19), read-only list of component health,
 * computed on each read from `probe`; nothing is stored. An unknown name is a 404 NotFound: upstream
 * answers a 500 there (a plain "Component not found" error), but a client's mistake is never a 5xx here.
 */
export function componentStatuses(probe: ComponentProbe = async () => []): ResourceRegistration {
  return {
    info: {
      group: '',
      version: 'v1',
      resource: 'componentstatuses',
      singularName: 'componentstatus',
      kind: 'ComponentStatus',
      listKind: 'ComponentStatusList',
      namespaced: false,
      verbs: ['get', 'list'],
      shortNames: ['cs'],
      deprecatedSince: '1.19',
      definitionName: 'io.k8s.api.core.v1.ComponentStatus',
    },
    strategy,
    computed: {
      list: async () => (await probe()).map(toObject),
      async get(name) {
        const found = (await probe()).find((h) => h.name === name);
        if (!found) throw newNotFound({ group: '', resource: 'componentstatuses' }, name);
        return toObject(found);
      },
    },
  };
}
