import {
  arrayProp,
  definitionRef,
  integerProp,
  listSchema,
  objectSchema,
  objectTypeMeta,
  refArrayProp,
  refProp,
  stringArrayProp,
  stringProp,
  META_V1,
  type GvkMarker,
  type JsonObject,
} from '@cluster/apimachinery';
import type { Definitions } from '../../registry/resource-info.js';
import { admissionRegistrationGroup } from './register.js';

const V1 = 'io.k8s.api.admissionregistration.v1';

function webhookProps(mutating: boolean): Record<string, JsonObject> {
  const props: Record<string, JsonObject> = {
    admissionReviewVersions: stringArrayProp('AdmissionReview versions the webhook accepts, in order of preference.'),
    clientConfig: refProp(`${V1}.WebhookClientConfig`, 'How to reach the webhook.'),
    failurePolicy: stringProp('What to do when the call fails: Fail or Ignore.'),
    matchPolicy: stringProp('How rules match requests: Exact or Equivalent.'),
    name: stringProp('Fully qualified name of the webhook.'),
    namespaceSelector: refProp(`${META_V1}.LabelSelector`, 'Which namespaces the webhook applies to.'),
    objectSelector: refProp(`${META_V1}.LabelSelector`, 'Which objects (by labels) the webhook applies to.'),
    rules: refArrayProp('Which operations on which resources the webhook applies to.', `${V1}.RuleWithOperations`, { 'x-kubernetes-list-type': 'atomic' }),
    sideEffects: stringProp('Whether the webhook has side effects: None or NoneOnDryRun.'),
    timeoutSeconds: integerProp('How long the call may take, 1 to 30 seconds.', 'int32'),
  };
  if (mutating) props['reinvocationPolicy'] = stringProp('Whether the webhook is called again after later mutations: Never or IfNeeded.');
  return props;
}

/** OpenAPI definitions of admissionregistration/v1 (the webhook configurations). */
export function admissionRegistrationDefinitions(apiDomain: string): Definitions {
  const gvk = (kind: string): GvkMarker => ({ group: admissionRegistrationGroup(apiDomain), version: 'v1', kind });
  const defs: Definitions = {
    [`${V1}.RuleWithOperations`]: objectSchema('Operations and resources a webhook applies to.', {
      apiGroups: stringArrayProp('API groups; "*" is all groups.', { 'x-kubernetes-list-type': 'atomic' }),
      apiVersions: stringArrayProp('API versions; "*" is all versions.', { 'x-kubernetes-list-type': 'atomic' }),
      operations: stringArrayProp('CREATE, UPDATE, DELETE, CONNECT or "*".', { 'x-kubernetes-list-type': 'atomic' }),
      resources: stringArrayProp('Resources, "res/sub", "*/sub" or "*".', { 'x-kubernetes-list-type': 'atomic' }),
      scope: stringProp('Cluster, Namespaced or "*".'),
    }),
    [`${V1}.ServiceReference`]: objectSchema('A Service that fronts a webhook.', {
      name: stringProp('Name of the service.'),
      namespace: stringProp('Namespace of the service.'),
      path: stringProp('URL path requests are sent to.'),
      port: integerProp('Port of the service; 443 by default.', 'int32'),
    }, { required: ['namespace', 'name'] }),
    [`${V1}.WebhookClientConfig`]: objectSchema('How to reach a webhook: a URL or a Service, and the CA that signs its certificate.', {
      caBundle: stringProp('PEM CA bundle that verifies the webhook server certificate.', { format: 'byte' }),
      service: refProp(`${V1}.ServiceReference`, 'A Service in front of the webhook.'),
      url: stringProp('https URL of the webhook.'),
    }),
  };
  for (const [kind, mutating, description] of [
    ['ValidatingWebhookConfiguration', false, 'Webhooks that may reject requests.'],
    ['MutatingWebhookConfiguration', true, 'Webhooks that may change or reject requests.'],
  ] as const) {
    const webhook = mutating ? 'MutatingWebhook' : 'ValidatingWebhook';
    defs[`${V1}.${webhook}`] = objectSchema(`A ${mutating ? 'mutating' : 'validating'} admission webhook.`, webhookProps(mutating), {
      required: ['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions'],
    });
    defs[`${V1}.${kind}`] = objectSchema(description, {
      ...objectTypeMeta(),
      webhooks: arrayProp('The webhooks.', { $ref: definitionRef(`${V1}.${webhook}`) }, { 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' }),
    }, { gvk: [gvk(kind)] });
    defs[`${V1}.${kind}List`] = listSchema(`${V1}.${kind}`, gvk(`${kind}List`), `The ${kind} objects.`);
  }
  return defs;
}
