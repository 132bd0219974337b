import type { ResourceRegistration } from '../../registry/registration.js';
import { webhookConfigurationStrategy } from './strategy.js';

/** The group of the webhook configurations under `apiDomain`. */
export function admissionRegistrationGroup(apiDomain: string): string {
  return `admissionregistration.${apiDomain}`;
}

function registration(apiDomain: string, kind: string, resource: string): ResourceRegistration {
  return {
    info: {
      group: admissionRegistrationGroup(apiDomain),
      version: 'v1',
      resource,
      singularName: kind.toLowerCase(),
      kind,
      listKind: `${kind}List`,
      namespaced: false,
      categories: ['api-extensions'],
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      definitionName: `io.k8s.api.admissionregistration.v1.${kind}`,
    },
    strategy: webhookConfigurationStrategy(kind.startsWith('Mutating')),
  };
}

/** admissionregistration.<apiDomain>/v1 validating- and mutatingwebhookconfigurations (cluster-scoped). */
export function webhookConfigurations(apiDomain: string): ResourceRegistration[] {
  return [
    registration(apiDomain, 'ValidatingWebhookConfiguration', 'validatingwebhookconfigurations'),
    registration(apiDomain, 'MutatingWebhookConfiguration', 'mutatingwebhookconfigurations'),
  ];
}
