import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMetaOptions } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../registry/strategy.js';
import { ageColumn, nameColumn } from '../../tables/columns.js';
import { ageOf } from '../../tables/human-duration.js';
import { column } from '../apps/workload/table.js';
import type { WebhookConfiguration } from './types.js';
import { defaultWebhook, defaultWebhookV1beta1, V1BETA1_VALIDATION, v1UpdateValidation, validateWebhookConfiguration } from './validation.js';

const metaOptions: ObjectMetaOptions = { namespaced: false, nameValidator: 'subdomain' };

function prepare(c: WebhookConfiguration, mutating: boolean, v1beta1: boolean): void {
  for (const w of c.webhooks ?? []) {
    if (!mutating) delete w.reinvocationPolicy;
    if (v1beta1) defaultWebhookV1beta1(w, mutating);
    else defaultWebhook(w, mutating);
  }
}

/**
 * Validating- or MutatingWebhookConfiguration behaviour (admissionregistration/v1, cluster-scoped;
 * `version` v1beta1 for the removed version, with its own defaults and laxer validation over the
 * same stored objects).
 */
export function webhookConfigurationStrategy(mutating: boolean, version: 'v1' | 'v1beta1' = 'v1') {
  const v1beta1 = version === 'v1beta1';
  return {
    namespaceScoped: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForCreate(c: WebhookConfiguration) {
      c.metadata.generation = 1;
      prepare(c, mutating, v1beta1);
    },
    prepareForUpdate(c: WebhookConfiguration, old: WebhookConfiguration) {
      prepare(c, mutating, v1beta1);
      if (JSON.stringify(c.webhooks ?? []) !== JSON.stringify(old.webhooks ?? [])) c.metadata.generation = (old.metadata.generation ?? 0) + 1;
    },
    validate: (c: WebhookConfiguration) => [
      ...validateObjectMeta(c.metadata, metaOptions),
      ...validateWebhookConfiguration(c, mutating, v1beta1 ? V1BETA1_VALIDATION : undefined),
    ],
    validateUpdate: (c: WebhookConfiguration, old: WebhookConfiguration) => [
      ...validateObjectMetaUpdate(c.metadata, old.metadata, metaOptions),
      ...validateWebhookConfiguration(c, mutating, v1beta1 ? V1BETA1_VALIDATION : v1UpdateValidation(old)),
    ],
    table: {
      columns: [nameColumn, column('Webhooks', 'integer', 'Number of webhooks'), ageColumn],
      cells: (c: WebhookConfiguration) => [c.metadata.name ?? '', (c.webhooks ?? []).length, ageOf(c.metadata.creationTimestamp, new Date())],
    },
  } satisfies ResourceStrategy<WebhookConfiguration>;
}
