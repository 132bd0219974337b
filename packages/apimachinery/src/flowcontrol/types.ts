import type { KubeObject } from '../meta/types.js';

/**
 * The API priority and fairness configuration kinds (flowcontrol.apiserver.<domain>/v1beta2;
 * v1beta1 has the same shape). Optional where the wire format lets a field be absent.
 */
export interface FlowSchema extends KubeObject {
  spec?: FlowSchemaSpec;
  status?: { conditions?: FlowControlCondition[] };
}

export interface FlowSchemaSpec {
  priorityLevelConfiguration?: { name?: string };
  matchingPrecedence?: number;
  distinguisherMethod?: { type?: string } | null;
  rules?: PolicyRulesWithSubjects[];
}

export interface PolicyRulesWithSubjects {
  subjects?: FlowSubject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}

export interface FlowSubject {
  kind?: string;
  user?: { name?: string } | null;
  group?: { name?: string } | null;
  serviceAccount?: { namespace?: string; name?: string } | null;
}

export interface ResourcePolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}

export interface NonResourcePolicyRule {
  verbs?: string[];
  nonResourceURLs?: string[];
}

export interface FlowControlCondition {
  type?: string;
  status?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface PriorityLevelConfiguration extends KubeObject {
  spec?: PriorityLevelConfigurationSpec;
  status?: { conditions?: FlowControlCondition[] };
}

export interface PriorityLevelConfigurationSpec {
  type?: string;
  limited?: LimitedPriorityLevel | null;
  exempt?: { nominalConcurrencyShares?: number | null; lendablePercent?: number | null } | null;
}

export interface LimitedPriorityLevel {
  assuredConcurrencyShares?: number;
  limitResponse?: { type?: string; queuing?: QueuingConfiguration | null };
  lendablePercent?: number | null;
  borrowingLimitPercent?: number | null;
}

export interface QueuingConfiguration {
  queues?: number;
  handSize?: number;
  queueLengthLimit?: number;
}

/** Upstream's well-known names and values of the flowcontrol API. */
export const FLOWCONTROL = {
  groupPrefix: 'flowcontrol.apiserver',
  /** metadata.annotations key: "true" lets the keeper overwrite a suggested/mandatory object's spec. */
  autoUpdateAnnotation: 'apf.kubernetes.io/autoupdate-spec',
  exempt: 'exempt',
  catchAll: 'catch-all',
  maxMatchingPrecedence: 10000,
  conditionDangling: 'Dangling',
  all: '*',
} as const;

/** The group of the flowcontrol kinds on a server with API domain `apiDomain`. */
export const flowControlGroup = (apiDomain: string) => `${FLOWCONTROL.groupPrefix}.${apiDomain}`;
