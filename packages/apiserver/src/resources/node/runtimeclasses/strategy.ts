import {
  child,
  duplicate,
  index,
  invalid,
  isQualifiedName,
  key,
  nameIsDNSLabel,
  notSupported,
  validateImmutableField,
  validateLabels,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldErrorList,
  type KubeObject,
  type ObjectMetaOptions,
} from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';
import { ageOf } from '../../../tables/human-duration.js';
import { column } from '../../apps/workload/table.js';
import { reshapeInPlace } from '../../core/pod-spec/go-shape.js';
import type { Toleration } from '../../core/pod-spec/types.js';

export interface RuntimeClass extends KubeObject {
  handler?: string;
  overhead?: { podFixed?: Record<string, string> };
  scheduling?: { nodeSelector?: Record<string, string>; tolerations?: Toleration[] };
}

const metaOptions: ObjectMetaOptions = { namespaced: false, nameValidator: 'subdomain' };
const OPERATORS = ['Equal', 'Exists'];
const EFFECTS = ['NoExecute', 'NoSchedule', 'PreferNoSchedule'];

/** Upstream's core ValidateTolerations. */
export function validateTolerations(tolerations: Toleration[], path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  tolerations.forEach((t, i) => {
    const p = index(path, i);
    const k = t.key ?? '';
    if (k !== '') for (const m of isQualifiedName(k)) errs.push(invalid(child(p, 'key'), k, m));
    const op = t.operator ?? '';
    if (k === '' && op !== 'Exists') errs.push(invalid(child(p, 'operator'), op, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') errs.push(invalid(child(p, 'effect'), t.effect ?? '', "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    if (op === 'Exists' && (t.value ?? '') !== '') errs.push(invalid(child(p, 'operator'), t, "value must be empty when `operator` is 'Exists'"));
    else if (op !== '' && op !== 'Exists' && op !== 'Equal') errs.push(notSupported(child(p, 'operator'), op, OPERATORS));
    if (t.effect !== undefined && t.effect !== '' && !EFFECTS.includes(t.effect)) errs.push(notSupported(child(p, 'effect'), t.effect, EFFECTS));
  });
  return errs;
}

function validateOverhead(podFixed: Record<string, string>, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  for (const [name, q] of Object.entries(podFixed)) {
    const p = key(path, name);
    for (const m of isQualifiedName(name)) errs.push(invalid(p, name, m));
    if (q.trim().startsWith('-')) errs.push(invalid(p, q, 'must be greater than or equal to 0'));
  }
  return errs;
}

/** Upstream's ValidateRuntimeClass: the handler is a DNS label; overhead and scheduling are well formed. */
export function validateRuntimeClassFields(rc: RuntimeClass): FieldErrorList {
  const handler = rc.handler ?? '';
  const errs: FieldErrorList = nameIsDNSLabel(handler, false).map((m) => invalid('handler', handler, m));
  if (rc.overhead) errs.push(...validateOverhead(rc.overhead.podFixed ?? {}, 'overhead.podFixed'));
  const s = rc.scheduling;
  if (s) {
    if (s.nodeSelector) errs.push(...validateLabels(s.nodeSelector, 'scheduling.nodeSelector'));
    const tolerations = s.tolerations ?? [];
    // Upstream passes the list's path twice (scheduling.tolerations.tolerations[i]) for these checks.
    errs.push(...validateTolerations(tolerations, 'scheduling.tolerations.tolerations'));
    const seen = new Set<string>();
    tolerations.forEach((t, i) => {
      const k = JSON.stringify([t.key ?? '', t.operator ?? '', t.value ?? '', t.effect ?? '']);
      if (seen.has(k)) errs.push(duplicate(index('scheduling.tolerations', i), t));
      seen.add(k);
    });
  }
  return errs;
}

/** RuntimeClass behaviour (node/v1, cluster-scoped): stored only; the handler cannot change. */
export const runtimeClassStrategy = {
  namespaceScoped: false,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForCreate: (rc: RuntimeClass) => reshapeInPlace(rc),
  prepareForUpdate: (rc: RuntimeClass) => reshapeInPlace(rc),
  validate: (rc: RuntimeClass) => [...validateObjectMeta(rc.metadata, metaOptions), ...validateRuntimeClassFields(rc)],
  validateUpdate: (rc: RuntimeClass, old: RuntimeClass) => [
    ...validateObjectMetaUpdate(rc.metadata, old.metadata, metaOptions),
    ...validateImmutableField(rc.handler, old.handler, 'handler'),
  ],
  table: {
    columns: [nameColumn, column('Handler', 'string', 'The container runtime configuration that runs pods of this class.'), ageColumn],
    cells: (rc: RuntimeClass) => [rc.metadata.name ?? '', rc.handler ?? '', ageOf(rc.metadata.creationTimestamp, new Date())],
  },
} satisfies ResourceStrategy<RuntimeClass>;
