import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMetaOptions } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../registry/strategy.js';
import { ageColumn, nameColumn } from '../../tables/columns.js';
import { ageOf } from '../../tables/human-duration.js';
import { column } from '../apps/workload/table.js';
import type { WebhookConfiguration } from './types.js';
import { defaultWebhook, validateWebhookConfiguration } from './validation.js';

const metaOptions: ObjectMetaOptions = { namespaced: false, nameValidator: 'subdomain' };

function prepare(c: WebhookConfiguration, mutating: boolean): void {
  for (const w of c.webhooks ?? []) {
    if (!mutating) delete w.reinvocationPolicy;
    defaultWebhook(w, mutating);
  }
}

/** Validating- or MutatingWebhookConfiguration behaviour (admissionregistration/v1, cluster-scoped). */
export function webhookConfigurationStrategy(mutating: boolean) {
  return {
    namespaceScoped: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForCreate(c: WebhookConfiguration) {
      c.metadata.generation = 1;
      prepare(c, mutating);
    },
    prepareForUpdate(c: WebhookConfiguration, old: WebhookConfiguration) {
      prepare(c, mutating);
      if (JSON.stringify(c.webhooks ?? []) !== JSON.stringify(old.webhooks ?? [])) c.metadata.generation = (old.metadata.generation ?? 0) + 1;
    },
    validate: (c: WebhookConfiguration) => [...validateObjectMeta(c.metadata, metaOptions), ...validateWebhookConfiguration(c, mutating)],
    validateUpdate: (c: WebhookConfiguration, old: WebhookConfiguration) => [
      ...validateObjectMetaUpdate(c.metadata, old.metadata, metaOptions),
      ...validateWebhookConfiguration(c, mutating),
    ],
    table: {
      columns: [nameColumn, column('Webhooks', 'integer', 'Number of webhooks'), ageColumn],
      cells: (c: WebhookConfiguration) => [c.metadata.name ?? '', (c.webhooks ?? []).length, ageOf(c.metadata.creationTimestamp, new Date())],
    },
  } satisfies ResourceStrategy<WebhookConfiguration>;
}
