import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMetaOptions } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';
import { ageOf } from '../../../tables/human-duration.js';
import { column } from '../../apps/workload/table.js';
import { generationPrepare, statusSubresource } from '../../status-subresource.js';
import type { Ingress } from '../types.js';
import { INGRESS_CLASS_ANNOTATION, updateOptions, validateIngressClassAnnotation, validateIngressSpec, validateIngressStatus } from '../validation.js';

const metaOptions: ObjectMetaOptions = { namespaced: true, nameValidator: 'subdomain' };

/** The first three rule hosts (and how many more), or `*` (upstream's formatHosts). */
function hostsCell(ing: Ingress): string {
  const rules = ing.spec?.rules ?? [];
  const max = 3;
  const hosts = rules.slice(0, max).map((r) => r.host ?? '').filter((h) => h !== '');
  if (hosts.length === 0) return '*';
  return rules.length > max ? `${hosts.join(',')} + ${rules.length - max} more...` : hosts.join(',');
}

function addressCell(ing: Ingress): string {
  return (ing.status?.loadBalancer?.ingress ?? [])
    .map((i) => i.ip || i.hostname || '')
    .filter((a) => a !== '')
    .join(',');
}

/** Ingress behaviour (networking/v1): stored only (ingress controllers act on it); status through `status`. */
export const ingressStrategy = {
  namespaceScoped: true,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  ...generationPrepare<Ingress>((ing) => {
    ing.spec ??= {};
  }),
  validate: (ing: Ingress) => [...validateObjectMeta(ing.metadata, metaOptions), ...validateIngressSpec(ing), ...validateIngressClassAnnotation(ing)],
  validateUpdate: (ing: Ingress, old: Ingress) => [
    ...validateObjectMetaUpdate(ing.metadata, old.metadata, metaOptions),
    ...validateIngressSpec(ing, updateOptions(old)),
  ],
  // Upstream warns on create only.
  warnings: (ing: Ingress, old?: Ingress) =>
    !old && ing.metadata.annotations?.[INGRESS_CLASS_ANNOTATION] !== undefined
      ? [`annotation "${INGRESS_CLASS_ANNOTATION}" is deprecated, please use 'spec.ingressClassName' instead`]
      : [],
  subresources: { status: statusSubresource<Ingress>(metaOptions, (ing) => validateIngressStatus(ing.status?.loadBalancer)) },
  table: {
    columns: [
      nameColumn,
      column('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration'),
      column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
      column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
      column('Ports', 'string', 'Ports of TLS configurations that open'),
      ageColumn,
    ],
    cells: (ing: Ingress) => [
      ing.metadata.name ?? '',
      ing.spec?.ingressClassName ?? '<none>',
      hostsCell(ing),
      addressCell(ing),
      (ing.spec?.tls ?? []).length ? '80, 443' : '80',
      ageOf(ing.metadata.creationTimestamp, new Date()),
    ],
  },
} satisfies ResourceStrategy<Ingress>;
