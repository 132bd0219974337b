import type { BindingObject } from '../types.js';
import { rbacGroup } from '../types.js';
import { policyKeys } from './policy.js';

/**
 * The ClusterRoleBindings a cluster installer adds so that machines can join (kubeadm's
 * kubelet-bootstrap and node-autoapprove bindings): bootstrap-token users (group
 * `system:bootstrappers`) may create CSRs and have node-agent client CSRs auto-approved, and nodes
 * (group `system:nodes`) may request and have their renewals approved. Not upstream defaults: only
 * `--node-join-bindings` (set by `make run`) installs them.
 */
export function nodeJoinClusterRoleBindings(apiDomain: string): BindingObject[] {
  const g = rbacGroup(apiDomain);
  const keys = policyKeys(apiDomain);
  const binding = (name: string, role: string, ...groups: string[]): BindingObject => ({
    apiVersion: `${g}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: { [keys.bootstrapping]: 'node-join' }, annotations: { [keys.autoupdate]: 'true' } },
    roleRef: { apiGroup: g, kind: 'ClusterRole', name: role },
    subjects: groups.map((group) => ({ kind: 'Group', apiGroup: g, name: group })),
  });
  const csrRole = (sub: string) => `system:certificates.${apiDomain}:certificatesigningrequests:${sub}`;
  return [
    // Nodes renewing their own certificates create requests too: the Node authorizer grants that
    // under Node,RBAC; the group stays here so that RBAC alone serves joined nodes as well.
    binding('cluster:node-bootstrapper', 'system:node-bootstrapper', 'system:bootstrappers', 'system:nodes'),
    binding('cluster:node-autoapprove-bootstrap', csrRole('nodeclient'), 'system:bootstrappers'),
    binding('cluster:node-autoapprove-certificate-rotation', csrRole('selfnodeclient'), 'system:nodes'),
  ];
}
