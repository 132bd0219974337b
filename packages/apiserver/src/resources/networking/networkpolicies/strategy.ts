import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMetaOptions } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';
import { ageOf } from '../../../tables/human-duration.js';
import { selectorText } from '../../apps/workload/strategy.js';
import { column, orNone } from '../../apps/workload/table.js';
import { generationPrepare } from '../../status-subresource.js';
import type { NetworkPolicy } from '../types.js';
import { validateNetworkPolicySpec } from './validation.js';

const metaOptions: ObjectMetaOptions = { namespaced: true, nameValidator: 'subdomain' };

/** Upstream's SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort. Mutates np. */
export function defaultNetworkPolicy(np: NetworkPolicy): void {
  const spec = (np.spec ??= {});
  spec.podSelector ??= {};
  for (const rule of [...(spec.ingress ?? []), ...(spec.egress ?? [])]) {
    for (const port of rule.ports ?? []) port.protocol ??= 'TCP';
  }
  if (!spec.policyTypes || spec.policyTypes.length === 0) {
    spec.policyTypes = ['Ingress'];
    if ((spec.egress ?? []).length) spec.policyTypes.push('Egress');
  }
}

/** NetworkPolicy behaviour (networking/v1): stored only (network plugins enforce it). */
export const networkPolicyStrategy = {
  namespaceScoped: true,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  // No status: only generation is tracked.
  ...generationPrepare<NetworkPolicy>(defaultNetworkPolicy, false),
  validate: (np: NetworkPolicy) => [...validateObjectMeta(np.metadata, metaOptions), ...validateNetworkPolicySpec(np)],
  validateUpdate: (np: NetworkPolicy, old: NetworkPolicy) => [...validateObjectMetaUpdate(np.metadata, old.metadata, metaOptions), ...validateNetworkPolicySpec(np)],
  table: {
    columns: [nameColumn, column('Pod-Selector', 'string', 'Selects the pods to which this policy applies.'), ageColumn],
    cells: (np: NetworkPolicy) => [np.metadata.name ?? '', orNone(selectorText(np.spec?.podSelector)), ageOf(np.metadata.creationTimestamp, new Date())],
  },
} satisfies ResourceStrategy<NetworkPolicy>;
