import type { StatusError } from '@cluster/apimachinery';
import type { AdmissionPlugin } from './admission.js';
import {
  annotate,
  callFailure,
  callWebhook,
  checkDryRun,
  denial,
  matchingWebhooks,
  recordAnswer,
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
    validate(a) {
      if (source.validating.length === 0) return;
      return (async () => {
        await source.ready();
        const hooks = await matchingWebhooks(source.validating, a, deps);
        for (const inv of hooks) checkDryRun(inv.entry.webhook, a);
        const outcomes = await Promise.all(
          hooks.map(async (inv, index): Promise<StatusError | undefined> => {
            const w = inv.entry.webhook;
            const name = w.name ?? '';
            const started = performance.now();
            const observe = (rejected: boolean, failed: boolean, code?: number) =>
              deps.observe?.({ name, type: 'validating', operation: a.operation, rejected, seconds: (performance.now() - started) / 1000, errorType: failed ? 'calling_webhook_error' : 'no_error', code });
            try {
              const answer = await callWebhook(inv, a, deps, false);
              recordAnswer(a, name, answer);
              if (answer.allowed) {
                observe(false, false);
                return undefined;
              }
              const denied = denial(name, answer.status);
              observe(true, false, denied.status.code);
              return denied;
            } catch (err) {
              if (!(err instanceof WebhookCallError)) throw err;
              const ignore = w.failurePolicy === 'Ignore';
              observe(!ignore, true, 500);
              if (!ignore) return callFailure(name, err);
              annotate(a, `failed-open.validating.webhook.admission.${deps.apiDomain}/round_0_index_${index}`, name);
              return undefined;
            }
          }),
        );
        const first = outcomes.find((o) => o !== undefined);
        if (first) throw first;
      })();
    },
  };
}
