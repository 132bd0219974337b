import type { KubeObject, LabelSelectorObject } from '@cluster/apimachinery';

/** admissionregistration/v1 RuleWithOperations. */
export interface RuleWithOperations {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

/** Where a webhook is reached: exactly one of url or service. */
export interface WebhookClientConfig {
  url?: string;
  service?: { namespace?: string; name?: string; path?: string; port?: number };
  caBundle?: string;
}

/** One webhook of a Validating- or MutatingWebhookConfiguration. */
export interface Webhook {
  name?: string;
  clientConfig?: WebhookClientConfig;
  rules?: RuleWithOperations[];
  failurePolicy?: string;
  matchPolicy?: string;
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  /** Mutating webhooks only. */
  reinvocationPolicy?: string;
}

/** ValidatingWebhookConfiguration and MutatingWebhookConfiguration share this shape. */
export interface WebhookConfiguration extends KubeObject {
  webhooks?: Webhook[];
}
