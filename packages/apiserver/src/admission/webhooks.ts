import { Counter, Histogram, type Registry } from 'prom-client';
import type { RegistrySet } from '../registry/registry-set.js';
import type { AdmissionPlugin } from './admission.js';
import { mutatingWebhookAdmission } from './mutating-webhook.js';
import { validatingWebhookAdmission } from './validating-webhook.js';
import type { WebhookDeps } from './webhook-dispatcher.js';
import type { WebhookPluginCredentials } from './webhook-credentials.js';
import { equivalentsFrom, namespaceLabelsFrom, serviceResolverFrom } from './webhook-resolve.js';
import { WebhookSource } from './webhook-source.js';

export interface WebhookAdmissionOptions {
  apiDomain: string;
  metrics?: Registry;
  /** Credentials per webhook host (--admission-control-config-file). */
  credentials?: WebhookPluginCredentials;
  log?: (msg: string, err?: unknown) => void;
}

/**
 * The dynamic admission webhooks of a replica: the configuration source (start it once the API
 * server exists, stop it at shutdown) and the two plugins, to be placed after the built-in ones
 * (mutating webhooks then run after the built-in mutating plugins, validating ones last).
 */
export function webhookAdmission(registries: () => RegistrySet, opts: WebhookAdmissionOptions): { source: WebhookSource; plugins: AdmissionPlugin[] } {
  const source = new WebhookSource(registries, { apiDomain: opts.apiDomain, log: opts.log });
  const deps: WebhookDeps = {
    apiDomain: opts.apiDomain,
    namespaceLabels: namespaceLabelsFrom(registries),
    resolveService: serviceResolverFrom(registries),
    equivalents: equivalentsFrom(registries),
  };
  if (opts.metrics) {
    const duration = new Histogram({
      name: 'apiserver_admission_webhook_admission_duration_seconds',
      help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
      labelNames: ['name', 'type', 'operation', 'rejected'],
      buckets: [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25],
      registers: [opts.metrics],
    });
    const rejections = new Counter({
      name: 'apiserver_admission_webhook_rejection_count',
      help: 'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation.',
      labelNames: ['name', 'type', 'operation', 'error_type', 'rejection_code'],
      registers: [opts.metrics],
    });
    const failOpen = new Counter({
      name: 'apiserver_admission_webhook_fail_open_count',
      help: 'Admission webhook fail open count, identified by name and broken out for each admission type (validating or mutating).',
      labelNames: ['name', 'type'],
      registers: [opts.metrics],
    });
    deps.observe = (e) => {
      duration.observe({ name: e.name, type: e.type, operation: e.operation, rejected: String(e.rejected) }, e.seconds);
      if (e.rejected) rejections.inc({ name: e.name, type: e.type, operation: e.operation, error_type: e.errorType ?? 'no_error', rejection_code: String(e.code ?? 0) });
      else if (e.errorType === 'calling_webhook_error') failOpen.inc({ name: e.name, type: e.type === 'admit' ? 'admit' : 'validating' });
    };
  }
  const mutating = opts.credentials?.mutating;
  const validating = opts.credentials?.validating;
  return {
    source,
    plugins: [
      mutatingWebhookAdmission(source, mutating ? { ...deps, credentials: mutating } : deps),
      validatingWebhookAdmission(source, validating ? { ...deps, credentials: validating } : deps),
    ],
  };
}
