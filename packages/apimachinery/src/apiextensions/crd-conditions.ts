import type { JsonValue } from '../meta/types.js';
import { deepEqual } from './schema-validate.js';
import { acceptNames } from './crd-naming.js';
import type { CustomResourceDefinition, CustomResourceDefinitionCondition, CustomResourceDefinitionStatus } from './types.js';

type ConditionWithoutTime = Omit<CustomResourceDefinitionCondition, 'lastTransitionTime'>;

/** Sets one condition, keeping its lastTransitionTime when its status did not change. */
function setCondition(conditions: CustomResourceDefinitionCondition[], c: ConditionWithoutTime, now: string): CustomResourceDefinitionCondition[] {
  const old = conditions.find((x) => x.type === c.type);
  const lastTransitionTime = old && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : now;
  const next = { type: c.type, status: c.status, lastTransitionTime, ...(c.reason ? { reason: c.reason } : {}), ...(c.message ? { message: c.message } : {}) };
  return old ? conditions.map((x) => (x.type === c.type ? next : x)) : [...conditions, next];
}

/** Whether the server serves the CRD's resources: its names are accepted. */
export function namesAccepted(crd: CustomResourceDefinition, all: readonly CustomResourceDefinition[]): boolean {
  return acceptNames(crd, all).condition.status === 'True';
}

/**
 * The status the server's CRD controllers want for `crd` among `all` (naming, establishing and,
 * while it is being deleted, terminating), or undefined when the stored status already says so.
 * `NamesAccepted` follows {@link acceptNames}; `Established` becomes True once names are accepted
 * and stays so; `Terminating` is True from the deletion request on. Pure.
 */
export function desiredCrdStatus(
  crd: CustomResourceDefinition,
  all: readonly CustomResourceDefinition[],
  now: string,
  cleanup?: ConditionWithoutTime,
): CustomResourceDefinitionStatus | undefined {
  const status = crd.status ?? {};
  const decision = acceptNames(crd, all);
  let conditions = setCondition(status.conditions ?? [], decision.condition, now);
  const established = conditions.find((c) => c.type === 'Established');
  if (decision.condition.status === 'True' && established?.status !== 'True') {
    conditions = setCondition(conditions, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, now);
  } else if (!established) {
    conditions = setCondition(conditions, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, now);
  }
  if (cleanup) conditions = setCondition(conditions, cleanup, now);
  const next: CustomResourceDefinitionStatus = { ...status, conditions, acceptedNames: decision.acceptedNames };
  const same = deepEqual(stripTimes(next), stripTimes(status));
  return same ? undefined : next;
}

function stripTimes(s: CustomResourceDefinitionStatus): JsonValue {
  return JSON.parse(JSON.stringify( { ...s, conditions: (s.conditions ?? []).map(({ lastTransitionTime: _t, ...rest }) => rest) })) as JsonValue;
}
