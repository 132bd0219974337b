import { validateImmutableField, validateObjectMeta, validateObjectMetaUpdate, type ObjectMetaOptions } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';
import { ageOf } from '../../../tables/human-duration.js';
import { column } from '../../apps/workload/table.js';
import { generationPrepare } from '../../status-subresource.js';
import type { IngressClass } from '../types.js';
import { validateIngressClassSpec } from '../validation.js';

const metaOptions: ObjectMetaOptions = { namespaced: false, nameValidator: 'subdomain' };

/** Upstream's SetDefaults_IngressClass: parameters without a scope are cluster-scoped. Mutates ic. */
export function defaultIngressClass(ic: IngressClass): void {
  const params = ic.spec?.parameters;
  if (params) params.scope ??= 'Cluster';
}

function parametersCell(ic: IngressClass): string {
  const p = ic.spec?.parameters;
  if (!p) return '<none>';
  return `${p.kind ?? ''}${p.apiGroup !== undefined ? `.${p.apiGroup}` : ''}/${p.name ?? ''}`;
}

/** IngressClass behaviour (networking/v1, cluster-scoped): the controller cannot change. */
export const ingressClassStrategy = {
  namespaceScoped: false,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  // No status: only generation is tracked.
  ...generationPrepare<IngressClass>((ic) => {
    ic.spec ??= {};
    defaultIngressClass(ic);
  }, false),
  validate: (ic: IngressClass) => [...validateObjectMeta(ic.metadata, metaOptions), ...validateIngressClassSpec(ic)],
  validateUpdate: (ic: IngressClass, old: IngressClass) => [
    ...validateObjectMetaUpdate(ic.metadata, old.metadata, metaOptions),
    ...validateImmutableField(ic.spec?.controller, old.spec?.controller, 'spec.controller'),
    ...validateIngressClassSpec(ic),
  ],
  table: {
    columns: [
      nameColumn,
      column('Controller', 'string', 'Controller that is responsible for handling this class'),
      column('Parameters', 'string', 'A reference to a resource with additional parameters'),
      ageColumn,
    ],
    cells: (ic: IngressClass) => [ic.metadata.name ?? '', ic.spec?.controller ?? '', parametersCell(ic), ageOf(ic.metadata.creationTimestamp, new Date())],
  },
} satisfies ResourceStrategy<IngressClass>;
