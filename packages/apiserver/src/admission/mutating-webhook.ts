import { applyJsonPatch, newInternalError, type JsonValue, type KubeObject } from '@cluster/apimachinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';
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
 * Upstream's MutatingAdmissionWebhook: after the built-in mutating plugins, each matching webhook of
 * the MutatingWebhookConfigurations (by configuration name, then webhook order) is called in turn
 * and its JSONPatch applied to the object before the next one sees it. A denial answers with the
 * webhook's code; a failed call is ignored or answered 500 by the webhook's failurePolicy.
 * DELETE and subresource requests are sent too (a patch to them is not applied).
 */
export function mutatingWebhookAdmission(source: WebhookSource, deps: WebhookDeps): AdmissionPlugin {
  return {
    name: 'MutatingAdmissionWebhook',
    async admit(a) {
      if (source.mutating.length === 0) return;
      await source.ready();
      for (const e of await matchingWebhooks(source.mutating, a, deps)) {
        const w = e.webhook;
        const name = w.name ?? '';
        checkDryRun(w, a);
        const started = performance.now();
        const observe = (rejected: boolean, failed = false) =>
          deps.observe?.({ name, type: 'admit', operation: a.operation, rejected, seconds: (performance.now() - started) / 1000, errorType: failed ? 'calling_webhook_error' : 'no_error' });
        let answer;
        try {
          answer = await callWebhook(w, a, deps);
        } catch (err) {
          if (!(err instanceof WebhookCallError)) throw err;
          const ignore = w.failurePolicy === 'Ignore';
          observe(!ignore, true);
          if (ignore) continue;
          throw callFailure(name, err);
        }
        observe(!answer.allowed);
        recordWarnings(a, answer.warnings);
        if (!answer.allowed) throw denial(name, answer.status);
        if (answer.patch !== undefined) applyPatch(name, a, answer.patch, answer.patchType);
      }
    },
    async validate() {},
  };
}

function applyPatch(name: string, a: AdmissionAttributes, patch: string, patchType: string | undefined): void {
  if (patchType !== 'JSONPatch') {
    throw callFailure(name, new Error(`unsupported patch type ${JSON.stringify(patchType ?? '')}`));
  }
  if (!a.object || a.operation === 'DELETE') return;
  let ops: JsonValue;
  try {
    ops = JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as JsonValue;
  } catch {
    throw callFailure(name, new Error('the patch is not base64-encoded JSON'));
  }
  let patched: JsonValue;
  try {
    patched = applyJsonPatch(a.object as unknown as JsonValue, ops);
  } catch (e) {
    throw newInternalError(new Error(`JSON patch of webhook ${JSON.stringify(name)} could not be applied: ${(e as Error).message}`));
  }
  if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) {
    throw callFailure(name, new Error('the patch did not leave an object'));
  }
  // The object's identity picks where it is stored: a webhook may not move it elsewhere.
  const after = patched as unknown as KubeObject;
  const identity = (o: KubeObject) => JSON.stringify([o.apiVersion, o.kind, o.metadata?.name, o.metadata?.namespace ?? '']);
  if (identity(after) !== identity(a.object)) {
    throw callFailure(name, new Error('the patch may not change apiVersion, kind, metadata.name or metadata.namespace'));
  }
  // The registry holds on to a.object: change it in place.
  const target = a.object as unknown as Record<string, unknown>;
  for (const k of Object.keys(target)) delete target[k];
  Object.assign(target, patched as unknown as KubeObject);
  const obj = target as unknown as KubeObject;
  obj.metadata ??= {};
}
