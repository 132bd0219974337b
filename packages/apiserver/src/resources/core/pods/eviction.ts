import {
  createdStatus,
  isConflict,
  labelSelectorFromLabelSelectorObject,
  newBadRequest,
  newForbidden,
  newInternalError,
  newServiceUnavailable,
  newTimeout,
  objectSchema,
  objectTypeMeta,
  refProp,
  META_V1,
  StatusError,
  type FieldError,
  type JsonObject,
  type KubeObject,
  type LabelSelectorObject,
  type Status,
} from '@cluster/apimachinery';
import { invalidDeleteOptions, readDeleteOptions, type DeleteOptions } from '../../../registry/delete-options.js';
import { formatTime } from '../../../registry/object-meta.js';
import { statusAnswer, type SubresourceCreater } from '../../../registry/registration.js';
import type { RegistrySet } from '../../../registry/registry-set.js';
import type { Definitions } from '../../../registry/resource-info.js';

/** policy/v1 Eviction (upstream keeps the bare `policy` group name, as this server does). */
export const EVICTION_DEFINITION = 'io.k8s.api.policy.v1.Eviction';

/** Upstream's MaxDisruptedPodSize: more unconfirmed evictions than this are refused. */
const MAX_DISRUPTED_POD_SIZE = 2000;
/** Upstream's EvictionsRetry: 20 tries on a conflict. */
const RETRY_STEPS = 20;
const DISRUPTION_BUDGET_CAUSE = 'DisruptionBudget';

interface Eviction extends KubeObject {
  deleteOptions?: JsonObject | null;
}

interface PodLike extends KubeObject {
  status?: { phase?: string; conditions?: { type?: string; status?: string }[] | null };
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

interface Pdb extends KubeObject {
  spec?: { selector?: LabelSelectorObject | null };
  status?: {
    observedGeneration?: number;
    disruptionsAllowed?: number;
    currentHealthy?: number;
    desiredHealthy?: number;
    disruptedPods?: Record<string, string> | null;
    conditions?: Condition[] | null;
  };
}

/** The OpenAPI definition of the Eviction kind (its body is metadata and optional DeleteOptions). */
export function evictionDefinitions(): Definitions {
  return {
    [EVICTION_DEFINITION]: objectSchema(
      'Eviction evicts a pod from its node subject to certain policies and safety constraints. This is a subresource of Pod.',
      {
        ...objectTypeMeta(),
        deleteOptions: refProp(`${META_V1}.DeleteOptions`, 'DeleteOptions may be provided'),
      },
      { gvk: [{ group: 'policy', version: 'v1', kind: 'Eviction' }] },
    ),
  };
}

const isReady = (pod: PodLike) => (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** Upstream's canIgnorePDB: a pod not running (or already going) is deleted without a budget check. */
const canIgnorePdb = (pod: PodLike) => ['Succeeded', 'Failed', 'Pending'].includes(pod.status?.phase ?? '') || !!pod.metadata.deletionTimestamp;
const shouldEnforceResourceVersion = (pod: PodLike) => !['Succeeded', 'Failed'].includes(pod.status?.phase ?? '') && !pod.metadata.deletionTimestamp;

/** 429 with a DisruptionBudget cause, as upstream answers a blocked eviction. */
function tooManyRequests(causeMessage: string, retryAfterSeconds: number): StatusError {
  const status: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: "Cannot evict pod as it would violate the pod's disruption budget.",
    reason: 'TooManyRequests',
    details: { causes: [{ reason: DISRUPTION_BUDGET_CAUSE, message: causeMessage }], ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}) },
    code: 429,
  };
  return new StatusError(status, retryAfterSeconds > 0 ? { 'Retry-After': String(retryAfterSeconds) } : {});
}

/**
 * The eviction's delete options (upstream's propagateDryRun): the URL's dryRun applies when the body
 * names none; when both do they must be the same list (a URL's is `[All]`), else 500 as upstream.
 * What ValidateDeleteOptions refuses is returned as the error the pod's delete answers.
 */
function deleteRequestOf(eviction: Eviction, urlDryRun: boolean): { options: DeleteOptions; invalid?: StatusError } {
  const body = eviction.deleteOptions ?? undefined;
  const bodyDryRun = Array.isArray(body?.['dryRun']) ? body['dryRun'] : [];
  if (urlDryRun && bodyDryRun.length > 0 && !(bodyDryRun.length === 1 && bodyDryRun[0] === 'All')) {
    throw newInternalError(new Error(`Non-matching dry-run options in request and content: [All] and [${bodyDryRun.join(' ')}]`));
  }
  const errs: FieldError[] = [];
  const options = readDeleteOptions(body, errs, { dryRun: urlDryRun });
  return errs.length ? { options, invalid: invalidDeleteOptions(errs) } : { options };
}

/** Upstream's UpdateDisruptionAllowedCondition after an eviction took the last allowed disruption. */
function insufficientPodsCondition(pdb: Pdb, now: string): Condition[] {
  const conditions = [...(pdb.status?.conditions ?? [])];
  const i = conditions.findIndex((c) => c.type === 'DisruptionAllowed');
  const next: Condition = { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '', observedGeneration: pdb.status?.observedGeneration ?? 0 };
  if (i < 0) conditions.push({ ...next, lastTransitionTime: now });
  else conditions[i] = { ...conditions[i]!, ...next, lastTransitionTime: conditions[i]!.status === 'False' ? conditions[i]!.lastTransitionTime ?? now : now };
  return conditions;
}

/**
 * pods/eviction (POST a policy/v1 Eviction), upstream's EvictionREST (v1.24):
 * - the body's name must be the pod's (400); its deleteOptions apply to the pod's deletion;
 * - a pod that is Pending, Succeeded, Failed or already terminating is deleted without a budget
 *   check (guarded by its resourceVersion unless it has finished);
 * - otherwise the one PodDisruptionBudget of its namespace selecting it decides: none, the pod is
 *   deleted; several, 500; a budget not yet processed by its controller (observedGeneration behind),
 *   or with no disruptions allowed, 429 TooManyRequests with a DisruptionBudget cause; else the budget
 *   is charged (disruptionsAllowed - 1, the pod in disruptedPods, through its status) and the pod
 *   deleted. A not-Ready pod under a healthy budget is deleted without a charge.
 * deleteOptions that upstream's ValidateDeleteOptions refuses are 422 Invalid when the pod would be
 * deleted (after the budget's answer, as upstream). The answer is a Success Status (201).
 */
export function evictionCreater(registries: () => RegistrySet | undefined): SubresourceCreater {
  return {
    async create(req, parent, body) {
      const eviction = body as Eviction;
      if (eviction.metadata.name !== req.name) throw newBadRequest('name in URL does not match name in Eviction object');
      const set = registries();
      const pods = set?.byResource('', 'pods');
      const pdbs = set?.byResource('policy', 'poddisruptionbudgets');
      if (!pods || !pdbs) throw newServiceUnavailable('the eviction subresource is not ready');
      const { options: original, invalid } = deleteRequestOf(eviction, req.dryRun);
      const options = (pod: PodLike, guard: boolean): DeleteOptions =>
        guard && !original.preconditions?.resourceVersion
          ? { ...original, preconditions: { ...original.preconditions, resourceVersion: pod.metadata.resourceVersion ?? '' } }
          : original;
      // Upstream validates the options in the pod's delete (BeforeDelete): a budget check, even a
      // charge, comes first.
      const deletePod = async (opts: DeleteOptions): Promise<void> => {
        if (invalid) throw invalid;
        await pods.delete(req.namespace, req.name, { ...opts, user: req.user });
      };
      const success = statusAnswer(createdStatus());

      // A pod the budget does not protect: deleted at once (retried on a conflict when the request set no resourceVersion).
      let pod = parent as PodLike;
      for (let attempt = 1; ; attempt++) {
        if (attempt > 1) pod = (await pods.get(req.namespace, req.name)) as PodLike;
        if (!canIgnorePdb(pod)) break;
        try {
          await deletePod(options(pod, shouldEnforceResourceVersion(pod)));
          return success;
        } catch (e) {
          if (!isConflict(e) || original.preconditions?.resourceVersion || attempt >= RETRY_STEPS) throw e;
        }
      }

      const matching = ((await pdbs.list(req.namespace, { hasSelector: false })).items as Pdb[]).filter((pdb) => {
        try {
          const sel = labelSelectorFromLabelSelectorObject(pdb.spec?.selector);
          return !sel.empty && sel.matches(pod.metadata.labels ?? {});
        } catch {
          return false;
        }
      });
      if (matching.length > 1) {
        return statusAnswer({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 });
      }
      let guard = false;
      if (matching.length === 1) {
        let pdb = matching[0]!;
        const s = pdb.status ?? {};
        if (!isReady(pod) && (s.currentHealthy ?? 0) >= (s.desiredHealthy ?? 0) && (s.desiredHealthy ?? 0) > 0) {
          guard = true;
        } else {
          for (let attempt = 1; ; attempt++) {
            try {
              await checkAndDecrement(pdb, req.name, original.dryRun, async (next) => {
                await pdbs.update(req.namespace, next.metadata.name ?? '', next, { dryRun: false, subresource: 'status', fieldManager: 'kube-apiserver' });
              });
              break;
            } catch (e) {
              if (!isConflict(e)) throw e;
              if (attempt >= RETRY_STEPS) throw newTimeout(`couldn't update PodDisruptionBudget "${pdb.metadata.name ?? ''}" due to conflicts`, 10);
              pdb = (await pdbs.get(req.namespace, pdb.metadata.name ?? '')) as Pdb;
            }
          }
        }
      }
      try {
        await deletePod(options(pod, guard));
      } catch (e) {
        // The not-Ready pod changed since the budget was read: it may be Ready now, so refuse.
        if (isConflict(e) && guard && !original.preconditions?.resourceVersion) throw tooManyRequests(`The disruption budget ${matching[0]!.metadata.name ?? ''} is still being processed by the server.`, 10);
        throw e;
      }
      return success;
    },
  };
}

/** Upstream's checkAndDecrement: refuses when the budget does not allow a disruption, else charges it through `writeStatus`. */
async function checkAndDecrement(pdb: Pdb, podName: string, dryRun: boolean, writeStatus: (next: Pdb) => Promise<void>): Promise<void> {
  const name = pdb.metadata.name ?? '';
  const s = pdb.status ?? {};
  if ((s.observedGeneration ?? 0) < (pdb.metadata.generation ?? 0)) throw tooManyRequests(`The disruption budget ${name} is still being processed by the server.`, 10);
  const allowed = s.disruptionsAllowed ?? 0;
  const gr = { group: 'policy', resource: 'poddisruptionbudget' };
  if (allowed < 0) throw newForbidden(gr, name, 'pdb disruptions allowed is negative');
  if (Object.keys(s.disruptedPods ?? {}).length > MAX_DISRUPTED_POD_SIZE) {
    throw newForbidden(gr, name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  }
  if (allowed === 0) throw tooManyRequests(`The disruption budget ${name} needs ${s.desiredHealthy ?? 0} healthy pods and has ${s.currentHealthy ?? 0} currently`, 0);
  if (dryRun) return;
  const now = formatTime(new Date());
  const status = { ...s, disruptionsAllowed: allowed - 1, disruptedPods: { ...(s.disruptedPods ?? {}), [podName]: now } };
  if (status.disruptionsAllowed === 0) status.conditions = insufficientPodsCondition(pdb, now);
  await writeStatus({ ...pdb, status });
}
