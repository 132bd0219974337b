import type { StatusError } from '@cluster/apimachinery';
import type { AdmissionPlugin } from './admission.js';
import {
  callFailure,
  callWebhook,
  checkDryRun,
  denial,
  matchingWebhooks,
  recordWarnings,
  WebhookCallError,
  type WebhookDeps,
} from './webhook-dispatcher.js';
import type { WebhookSource } from './webhook-source.js';

/**
 * Upstream's ValidatingAdmissionWebhook: after the built-in validating plugins, every matching
 * webhook of the ValidatingWebhookConfigurations is called in parallel; the first rejection in
 * webhook order answers the request (a denial with the webhook's code, a failed call under
 * failurePolicy Fail with 500).
 */
export function validatingWebhookAdmission(source: WebhookSource, deps: WebhookDeps): AdmissionPlugin {
  return {
    name: 'ValidatingAdmissionWebhook',
    async validate(a) {
      if (source.validating.length === 0) return;
      await source.ready();
      const hooks = await matchingWebhooks(source.validating, a, deps);
      for (const e of hooks) checkDryRun(e.webhook, a);
      const outcomes = await Promise.all(
        hooks.map(async (e): Promise<StatusError | undefined> => {
          const w = e.webhook;
          const name = w.name ?? '';
          const started = performance.now();
          const observe = (rejected: boolean, failed = false) =>
            deps.observe?.({ name, type: 'validating', operation: a.operation, rejected, seconds: (performance.now() - started) / 1000, errorType: failed ? 'calling_webhook_error' : 'no_error' });
          try {
            const answer = await callWebhook(w, a, deps);
            observe(!answer.allowed);
            recordWarnings(a, answer.warnings);
            return answer.allowed ? undefined : denial(name, answer.status);
          } catch (err) {
            if (!(err instanceof WebhookCallError)) throw err;
            const ignore = w.failurePolicy === 'Ignore';
            observe(!ignore, true);
            return ignore ? undefined : callFailure(name, err);
          }
        }),
      );
      const first = outcomes.find((o) => o !== undefined);
      if (first) throw first;
    },
  };
}
