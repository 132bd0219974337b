import { applyJsonPatch, checkAgainstSchema, newInternalError, type JsonValue, type KubeObject } from '@cluster/apimachinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';
import {
  annotate,
  callFailure,
  callWebhook,
  checkDryRun,
  denial,
  matchingWebhooks,
  recordAnswer,
  versionedObject,
  WebhookCallError,
  type Invocation,
  type WebhookDeps,
} from './webhook-dispatcher.js';
import type { WebhookSource } from './webhook-source.js';

const NAME = 'MutatingAdmissionWebhook';

/**
 * What this plugin remembers between the two rounds of mutating admission (upstream's
 * webhookReinvokeContext): the IfNeeded webhooks called before the last change, the ones to call
 * again, and the object as the last webhook left it.
 */
interface ReinvokeState {
  previouslyInvoked: Set<string>;
  toReinvoke: Set<string>;
  lastOutput: string;
}

/**
 * Upstream's MutatingAdmissionWebhook: after the built-in mutating plugins, each matching webhook of
 * the MutatingWebhookConfigurations (by configuration name, then webhook order) is called in turn
 * and its JSONPatch applied to the object before the next one sees it. A denial answers with the
 * webhook's code; a failed call is ignored or answered 500 by the webhook's failurePolicy.
 * DELETE requests are sent too (a patch to them is not applied).
 *
 * When a webhook changes the object, the mutating chain runs once more (runMutatingAdmission):
 * the built-in plugins again, and of the webhooks those with reinvocationPolicy IfNeeded that ran
 * before a change (or all of them that ran, when the built-in plugins changed the object since).
 */
export function mutatingWebhookAdmission(source: WebhookSource, deps: WebhookDeps): AdmissionPlugin {
  const admitWithWebhooks = async (a: AdmissionAttributes): Promise<void> => {
    await source.ready();
    const reinvoking = a.reinvocation?.reinvoking === true;
    let state = a.reinvocation?.state.get(NAME) as ReinvokeState | undefined;
    if (reinvoking) {
      if (!state) return;
      // The built-in plugins changed the object in their second round: every IfNeeded webhook runs again.
      if (state.previouslyInvoked.size > 0 && JSON.stringify(a.object ?? null) !== state.lastOutput) requireReinvoking(state);
    }
    const hooks = await matchingWebhooks(source.mutating, a, deps);
    if (hooks.length === 0) return;
    a.reinvocation ??= { reinvoking: false, shouldReinvoke: false, state: new Map() };
    if (!state) {
      state = { previouslyInvoked: new Set(), toReinvoke: new Set(), lastOutput: '' };
      a.reinvocation.state.set(NAME, state);
    }
    const round = reinvoking ? 1 : 0;
    for (const [index, inv] of hooks.entries()) {
      const w = inv.entry.webhook;
      const name = w.name ?? '';
      const id = `${inv.entry.configuration}/${name}`;
      if (reinvoking && !state.toReinvoke.has(id)) continue;
      checkDryRun(w, a);
      const outcome = await invoke(inv, a, deps);
      const changed = outcome === 'changed';
      if (outcome === 'failed-open') annotate(a, `failed-open.mutation.webhook.admission.${deps.apiDomain}/round_${round}_index_${index}`, name);
      annotate(a, `mutation.webhook.admission.${deps.apiDomain}/round_${round}_index_${index}`, JSON.stringify({ configuration: inv.entry.configuration, webhook: name, mutated: changed }));
      if (changed) {
        requireReinvoking(state);
        a.reinvocation.shouldReinvoke = true;
      }
      if (w.reinvocationPolicy === 'IfNeeded') state.previouslyInvoked.add(id);
    }
    // (Only IfNeeded webhooks called since the last change care whether the object changes later.)
    if (state.previouslyInvoked.size > 0) state.lastOutput = JSON.stringify(a.object ?? null);
  };
  return {
    name: NAME,
    // Not an async function: without mutating webhooks it returns at once, without a promise.
    admit(a) {
      if (source.mutating.length === 0) return;
      return admitWithWebhooks(a);
    },
    validate() {},
  };
}

function requireReinvoking(state: ReinvokeState): void {
  for (const id of state.previouslyInvoked) state.toReinvoke.add(id);
  state.previouslyInvoked.clear();
}

/** Calls one webhook and applies its patch; resolves whether the object changed, or the call failed and was ignored. */
async function invoke(inv: Invocation, a: AdmissionAttributes, deps: WebhookDeps): Promise<'changed' | 'unchanged' | 'failed-open'> {
  const w = inv.entry.webhook;
  const name = w.name ?? '';
  const started = performance.now();
  const observe = (rejected: boolean, failed: boolean, code?: number) =>
    deps.observe?.({ name, type: 'admit', operation: a.operation, rejected, seconds: (performance.now() - started) / 1000, errorType: failed ? 'calling_webhook_error' : 'no_error', code });
  let answer;
  try {
    answer = await callWebhook(inv, a, deps, true);
  } catch (err) {
    if (!(err instanceof WebhookCallError)) throw err;
    const ignore = w.failurePolicy === 'Ignore';
    observe(!ignore, true, 500);
    if (ignore) return 'failed-open';
    throw callFailure(name, err);
  }
  recordAnswer(a, name, answer);
  if (!answer.allowed) {
    const denied = denial(name, answer.status);
    observe(true, false, denied.status.code);
    throw denied;
  }
  observe(false, false);
  if (answer.patch === undefined) return 'unchanged';
  return applyPatch(inv, name, a, answer.patch) ? 'changed' : 'unchanged';
}

const identity = (o: KubeObject) => JSON.stringify([o.apiVersion, o.kind, o.metadata?.name, o.metadata?.namespace ?? '']);

/**
 * Applies a webhook's JSONPatch to the object as the webhook saw it, converts the result back to
 * the request's kind, and decodes it against the kind's schema again (unknown fields dropped, a
 * value of the wrong type refused), as upstream decodes a patched object into its type. Schema
 * validation of the result follows in the registry. Returns whether the object changed.
 */
function applyPatch(inv: Invocation, name: string, a: AdmissionAttributes, patch: string): boolean {
  if (!a.object || a.operation === 'DELETE') return false;
  // An answer that decoded but whose patch does not apply is the server's error whatever the
  // failure policy (upstream answers 500 InternalError too).
  let ops: JsonValue;
  try {
    ops = JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as JsonValue;
  } catch {
    throw newInternalError(new Error(`the JSON patch of webhook ${JSON.stringify(name)} is not JSON`));
  }
  const seen = versionedObject(inv, a, a.object)!;
  let patched: JsonValue;
  try {
    patched = applyJsonPatch(seen as unknown as JsonValue, ops);
  } catch (e) {
    throw newInternalError(new Error(`JSON patch of webhook ${JSON.stringify(name)} could not be applied: ${(e as Error).message}`));
  }
  if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) {
    throw callFailure(name, new Error('the patch did not leave an object'));
  }
  // The object's identity picks where it is stored: a webhook may not move it elsewhere.
  let after = patched as unknown as KubeObject;
  if (identity(after) !== identity(seen)) {
    throw callFailure(name, new Error('the patch may not change apiVersion, kind, metadata.name or metadata.namespace'));
  }
  after.metadata ??= {};
  if (a.view) after = a.view.view.fromView(after, a.object);
  else if (inv.equivalent) after = inv.equivalent.back(after);
  // (A subresource's own kind without a view, a TokenRequest, has no schema of the resource's.)
  if (a.schemas && (after.kind ?? a.resource.kind) === a.resource.kind) {
    const check = checkAgainstSchema(after as unknown as JsonValue, a.schemas.definitions, a.schemas.definitionName);
    if (check.decodeError) throw newInternalError(new Error(`the object patched by webhook ${JSON.stringify(name)} does not decode: ${check.decodeError.goMessage}`));
    after = check.value as unknown as KubeObject;
  }
  if (a.operation === 'CREATE') keepSystemFields(after, a.object);
  const before = JSON.stringify(a.object);
  if (JSON.stringify(after) === before) return false;
  // The registry holds on to a.object: change it in place.
  const target = a.object as unknown as Record<string, unknown>;
  for (const k of Object.keys(target)) delete target[k];
  Object.assign(target, after);
  return true;
}

/**
 * On create, the fields the server sets (upstream sets them after mutating admission) stay the
 * server's: a webhook cannot choose an object's uid or creation time, nor create it deleted.
 */
function keepSystemFields(after: KubeObject, before: KubeObject): void {
  const m = (after.metadata ??= {});
  const b = before.metadata ?? {};
  for (const f of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'resourceVersion'] as const) {
    if (b[f] === undefined) delete m[f];
    else (m as Record<string, unknown>)[f] = b[f];
  }
}
