import { FLOWCONTROL, type FlowSchema, type FlowSubject, type PolicyRulesWithSubjects, type PriorityLevelConfiguration, type PriorityLevelConfigurationSpec, type ResourcePolicyRule } from './types.js';

/**
 * The configuration a server starts with (upstream's apis/flowcontrol/bootstrap, v1.24 values):
 * the mandatory objects `exempt` and `catch-all`, which must always exist and whose specs are
 * fixed, and the suggested ones, which an operator may change by setting the auto-update
 * annotation to "false". Objects here carry no apiVersion/kind; the keeper adds them.
 */
export interface FlowControlBootstrap {
  mandatoryPriorityLevels: PriorityLevelConfiguration[];
  mandatoryFlowSchemas: FlowSchema[];
  suggestedPriorityLevels: PriorityLevelConfiguration[];
  suggestedFlowSchemas: FlowSchema[];
}

/** The namespace the system's own service accounts live in (upstream's kube-system). */
export const FLOWCONTROL_SYSTEM_NAMESPACE = 'cluster-system';

const ALL = FLOWCONTROL.all;
const groups = (...names: string[]): FlowSubject[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): FlowSubject[] => names.map((name) => ({ kind: 'User', user: { name } }));
const systemServiceAccounts = (): FlowSubject[] => [{ kind: 'ServiceAccount', serviceAccount: { namespace: FLOWCONTROL_SYSTEM_NAMESPACE, name: ALL } }];
const resourceRule = (verbs: string[], apiGroups: string[], resources: string[], namespaces: string[], clusterScope: boolean): ResourcePolicyRule => ({
  verbs,
  apiGroups,
  resources,
  clusterScope,
  namespaces,
});
/** Every verb on every resource anywhere, and every non-resource URL. */
const everything = (subjects: FlowSubject[]): PolicyRulesWithSubjects => ({
  subjects,
  resourceRules: [resourceRule([ALL], [ALL], [ALL], [ALL], true)],
  nonResourceRules: [{ verbs: [ALL], nonResourceURLs: [ALL] }],
});

const annotations = () => ({ [FLOWCONTROL.autoUpdateAnnotation]: 'true' });

function level(name: string, spec: PriorityLevelConfigurationSpec): PriorityLevelConfiguration {
  return { metadata: { name, annotations: annotations() }, spec };
}

function queued(shares: number, queues: number, handSize: number, queueLengthLimit: number): PriorityLevelConfigurationSpec {
  return { type: 'Limited', limited: { assuredConcurrencyShares: shares, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit } } } };
}

function schema(name: string, level: string, precedence: number, distinguisher: string, ...rules: PolicyRulesWithSubjects[]): FlowSchema {
  return {
    metadata: { name, annotations: annotations() },
    spec: {
      priorityLevelConfiguration: { name: level },
      matchingPrecedence: precedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules,
    },
  };
}

/** A fresh copy of the bootstrap configuration (callers may change what they get). */
export function flowControlBootstrap(apiDomain: string): FlowControlBootstrap {
  const coordination = `coordination.${apiDomain}`;
  const leaderElection = (namespaces: string[]): ResourcePolicyRule[] => [
    resourceRule(['get', 'create', 'update'], [''], ['endpoints', 'configmaps'], namespaces, false),
    resourceRule(['get', 'create', 'update'], [coordination], ['leases'], [ALL], false),
  ];
  return {
    mandatoryPriorityLevels: [level(FLOWCONTROL.catchAll, { type: 'Limited', limited: { assuredConcurrencyShares: 5, limitResponse: { type: 'Reject' } } }), level(FLOWCONTROL.exempt, { type: 'Exempt' })],
    mandatoryFlowSchemas: [
      schema(FLOWCONTROL.exempt, FLOWCONTROL.exempt, 1, '', everything(groups('system:masters'))),
      schema(FLOWCONTROL.catchAll, FLOWCONTROL.catchAll, FLOWCONTROL.maxMatchingPrecedence, 'ByUser', everything(groups('system:unauthenticated', 'system:authenticated'))),
    ],
    suggestedPriorityLevels: [
      level('system', queued(30, 64, 6, 50)),
      level('node-high', queued(40, 64, 6, 50)),
      level('leader-election', queued(10, 16, 4, 50)),
      level('workload-high', queued(40, 128, 6, 50)),
      level('workload-low', queued(100, 128, 6, 50)),
      level('global-default', queued(20, 128, 6, 50)),
    ],
    suggestedFlowSchemas: [
      schema('system-nodes', 'system', 500, 'ByUser', everything(groups('system:nodes'))),
      schema('system-node-high', 'node-high', 400, 'ByUser', {
        subjects: groups('system:nodes'),
        resourceRules: [resourceRule([ALL], [''], ['nodes', 'nodes/status'], [ALL], true), resourceRule([ALL], [coordination], ['leases'], [ALL], false)],
      }),
      schema('probes', FLOWCONTROL.exempt, 2, '', {
        subjects: groups('system:unauthenticated', 'system:authenticated'),
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
      }),
      schema('system-leader-election', 'leader-election', 100, 'ByUser', {
        subjects: [...users('system:kube-controller-manager', 'system:kube-scheduler'), ...systemServiceAccounts()],
        resourceRules: leaderElection([FLOWCONTROL_SYSTEM_NAMESPACE]),
      }),
      schema('workload-leader-election', 'leader-election', 200, 'ByUser', { subjects: systemServiceAccounts(), resourceRules: leaderElection([ALL]) }),
      schema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', everything(users('system:kube-controller-manager'))),
      schema('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything(users('system:kube-scheduler'))),
      schema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything(systemServiceAccounts())),
      schema('service-accounts', 'workload-low', 9000, 'ByUser', everything(groups('system:serviceaccounts'))),
      schema('global-default', 'global-default', 9900, 'ByUser', everything(groups('system:unauthenticated', 'system:authenticated'))),
    ],
  };
}
