import {
  forbidden,
  notSupported,
  validateImmutableField,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldErrorList,
  type ObjectMetaOptions,
} from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';
import { ageOf } from '../../../tables/human-duration.js';
import { column } from '../../apps/workload/table.js';
import { HIGHEST_USER_DEFINABLE_PRIORITY, SYSTEM_PRIORITY_CLASS_PREFIX, systemClassMismatch, type PriorityClass } from './system-classes.js';

const metaOptions: ObjectMetaOptions = { namespaced: false, nameValidator: 'subdomain' };
const PREEMPTION_POLICIES = ['Never', 'PreemptLowerPriority'];

/** Upstream's SetDefaults_PriorityClass (NonPreemptingPriority is on): preemptionPolicy PreemptLowerPriority. Mutates pc. */
export function defaultPriorityClass(pc: PriorityClass): void {
  pc.preemptionPolicy ??= 'PreemptLowerPriority';
  pc.value ??= 0;
}

/** Upstream's ValidatePriorityClass (without the object metadata). */
export function validatePriorityClassFields(pc: PriorityClass): FieldErrorList {
  const errs: FieldErrorList = [];
  const name = pc.metadata.name ?? '';
  const value = pc.value ?? 0;
  if (name.startsWith(SYSTEM_PRIORITY_CLASS_PREFIX)) {
    const why = systemClassMismatch(name, value, pc.globalDefault ?? false);
    if (why) errs.push(forbidden('metadata.name', `priority class names with '${SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use only. error: ${why}`));
  } else if (value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  if (pc.preemptionPolicy !== undefined && !PREEMPTION_POLICIES.includes(pc.preemptionPolicy)) {
    errs.push(notSupported('preemptionPolicy', pc.preemptionPolicy, PREEMPTION_POLICIES));
  }
  return errs;
}

/** PriorityClass behaviour (scheduling/v1, cluster-scoped): value and preemptionPolicy never change. */
export const priorityClassStrategy = {
  namespaceScoped: false,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForCreate: (pc: PriorityClass) => {
    defaultPriorityClass(pc);
    pc.metadata.generation = 1;
  },
  prepareForUpdate: (pc: PriorityClass) => defaultPriorityClass(pc),
  validate: (pc: PriorityClass) => [...validateObjectMeta(pc.metadata, metaOptions), ...validatePriorityClassFields(pc)],
  validateUpdate: (pc: PriorityClass, old: PriorityClass) => [
    ...validateObjectMetaUpdate(pc.metadata, old.metadata, metaOptions),
    ...((pc.value ?? 0) !== (old.value ?? 0) ? [forbidden('value', 'may not be changed in an update.')] : []),
    ...validateImmutableField(pc.preemptionPolicy, old.preemptionPolicy, 'preemptionPolicy'),
  ],
  table: {
    columns: [
      nameColumn,
      column('Value', 'integer', 'The priority pods of this class get.'),
      column('Global-Default', 'boolean', 'Whether pods without a class get this one.'),
      ageColumn,
    ],
    cells: (pc: PriorityClass) => [pc.metadata.name ?? '', pc.value ?? 0, pc.globalDefault ?? false, ageOf(pc.metadata.creationTimestamp, new Date())],
  },
} satisfies ResourceStrategy<PriorityClass>;
