import {
  integerProp,
  listSchema,
  objectSchema,
  objectTypeMeta,
  refProp,
  stringProp,
  META_V1,
  type GvkMarker,
} from '@cluster/apimachinery';
import type { Definitions } from '../../registry/resource-info.js';

const COORDINATION_V1 = 'io.k8s.api.coordination.v1';

/** OpenAPI definitions of coordination/v1 (Lease), with the group under `apiDomain`. */
export function coordinationDefinitions(apiDomain: string): Definitions {
  const gvk = (kind: string): GvkMarker => ({ group: `coordination.${apiDomain}`, version: 'v1', kind });
  return {
    [`${COORDINATION_V1}.Lease`]: objectSchema(
      'A lease: a time-bounded claim, used for leader election and heartbeats.',
      {
        ...objectTypeMeta(),
        spec: refProp(`${COORDINATION_V1}.LeaseSpec`, 'Specification of the lease.'),
      },
      { gvk: [gvk('Lease')] },
    ),
    [`${COORDINATION_V1}.LeaseList`]: listSchema(`${COORDINATION_V1}.Lease`, gvk('LeaseList'), 'The Leases.'),
    [`${COORDINATION_V1}.LeaseSpec`]: objectSchema('Specification of a Lease.', {
      acquireTime: refProp(`${META_V1}.MicroTime`, 'When the current holder acquired the lease.'),
      holderIdentity: stringProp('Identity of the current holder.'),
      leaseDurationSeconds: integerProp('How long a candidate waits after the last renewal before taking the lease over.', 'int32'),
      leaseTransitions: integerProp('How many times the holder changed.', 'int32'),
      renewTime: refProp(`${META_V1}.MicroTime`, 'When the current holder last renewed the lease.'),
      preferredHolder: stringProp('Holder the lease should move to, for coordinated handover.'),
      strategy: stringProp('Strategy used to pick a new holder.'),
    }),
  };
}
