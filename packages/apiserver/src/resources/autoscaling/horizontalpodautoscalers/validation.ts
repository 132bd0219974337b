import {
  forbidden,
  invalid,
  nameIsPathSegment,
  notSupported,
  parseQuantity,
  required,
  isDNS1123Label,
  type FieldErrorList,
} from '@cluster/apimachinery';
import type { CrossVersionObjectReference, HPAV2, MetricSpecV2, MetricTarget, ScalingRules } from './types.js';

const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
const SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const SOURCE_FIELD: Record<string, keyof MetricSpecV2> = { Object: 'object', Pods: 'pods', Resource: 'resource', External: 'external', ContainerResource: 'containerResource' };
const SELECT_POLICIES = ['Disabled', 'Max', 'Min'];
const POLICY_TYPES = ['Percent', 'Pods'];

const pathSegment = (value: string, path: string): FieldErrorList => nameIsPathSegment(value, false).map((m) => invalid(path, value, m));
const positive = (q: string | undefined) => q === undefined || (parseQuantity(q)?.nanos ?? 0n) > 0n;

/** Upstream's ValidateCrossVersionObjectReference. */
export function validateCrossVersionObjectReference(ref: CrossVersionObjectReference | undefined, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  for (const f of ['kind', 'name'] as const) {
    const v = ref?.[f] ?? '';
    if (v === '') errs.push(required(`${path}.${f}`, ''));
    else errs.push(...pathSegment(v, `${path}.${f}`));
  }
  return errs;
}

function validateTarget(t: MetricTarget | undefined, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const type = t?.type ?? '';
  if (type === '') errs.push(required(`${path}.type`, 'must specify a metric target type'));
  if (!['Utilization', 'Value', 'AverageValue'].includes(type)) errs.push(invalid(`${path}.type`, type, 'must be either Utilization, Value, or AverageValue'));
  if (!positive(t?.value)) errs.push(invalid(`${path}.value`, t?.value, 'must be positive'));
  if (!positive(t?.averageValue)) errs.push(invalid(`${path}.averageValue`, t?.averageValue, 'must be positive'));
  if (t?.averageUtilization !== undefined && t.averageUtilization < 1) errs.push(invalid(`${path}.averageUtilization`, t.averageUtilization, 'must be greater than 0'));
  return errs;
}

function validateMetricName(name: string | undefined, path: string): FieldErrorList {
  if (!name) return [required(path, 'must specify a metric name')];
  return pathSegment(name, path);
}

function validateSource(m: MetricSpecV2, key: keyof MetricSpecV2, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const p = `${path}.${key}`;
  switch (key) {
    case 'object': {
      const s = m.object!;
      errs.push(...validateCrossVersionObjectReference(s.describedObject, `${p}.describedObject`), ...validateMetricName(s.metric?.name, `${p}.metric.name`), ...validateTarget(s.target, `${p}.target`));
      if (s.target?.value === undefined && s.target?.averageValue === undefined) errs.push(required(`${p}.target.averageValue`, 'must set either a target value or averageValue'));
      break;
    }
    case 'external': {
      const s = m.external!;
      errs.push(...validateMetricName(s.metric?.name, `${p}.metric.name`), ...validateTarget(s.target, `${p}.target`));
      if (s.target?.value === undefined && s.target?.averageValue === undefined) errs.push(required(`${p}.target.averageValue`, 'must set either a target value for metric or a per-pod target'));
      if (s.target?.value !== undefined && s.target.averageValue !== undefined) errs.push(forbidden(`${p}.target.value`, 'may not set both a target value for metric and a per-pod target'));
      break;
    }
    case 'pods': {
      const s = m.pods!;
      errs.push(...validateMetricName(s.metric?.name, `${p}.metric.name`), ...validateTarget(s.target, `${p}.target`));
      if (s.target?.averageValue === undefined) errs.push(required(`${p}.target.averageValue`, 'must specify a positive target averageValue'));
      break;
    }
    case 'resource':
    case 'containerResource': {
      const s = (key === 'resource' ? m.resource : m.containerResource)!;
      if (!s.name) errs.push(required(`${p}.name`, 'must specify a resource name'));
      if (key === 'containerResource') {
        const container = m.containerResource!.container ?? '';
        if (container === '') errs.push(required(`${p}.container`, 'must specify a container'));
        else errs.push(...isDNS1123Label(container).map((msg) => invalid(`${p}.container`, container, msg)));
      }
      errs.push(...validateTarget(s.target, `${p}.target`));
      if (s.target?.averageUtilization === undefined && s.target?.averageValue === undefined) errs.push(required(`${p}.target.averageUtilization`, 'must set either a target raw value or a target utilization'));
      if (s.target?.averageUtilization !== undefined && s.target.averageValue !== undefined) errs.push(forbidden(`${p}.target.averageValue`, 'may not set both a target raw value and a target utilization'));
      break;
    }
  }
  return errs;
}

/** Upstream's validateMetricSpec: a known type, its source set, and no other source. */
function validateMetricSpec(m: MetricSpecV2, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const type = m.type ?? '';
  if (type === '') errs.push(required(`${path}.type`, 'must specify a metric source type'));
  if (!SOURCE_TYPES.includes(type)) errs.push(notSupported(`${path}.type`, type, SOURCE_TYPES));
  const present = (['object', 'external', 'pods', 'resource', 'containerResource'] as const).filter((k) => m[k] !== undefined);
  if (present.length > 0) errs.push(...validateSource(m, present[0]!, path));
  const expected = SOURCE_FIELD[type];
  if (expected) {
    if (m[expected] === undefined) errs.push(required(`${path}.${expected}`, 'must populate information for the given metric source'));
  } else {
    errs.push(notSupported(`${path}.type`, type, SOURCE_TYPES));
  }
  if (present.length !== 1) for (const k of present) if (k !== expected) errs.push(forbidden(`${path}.${k}`, 'must populate the given metric source only'));
  return errs;
}

function validateRules(rules: ScalingRules | undefined, path: string): FieldErrorList {
  if (!rules) return [];
  const errs: FieldErrorList = [];
  const w = rules.stabilizationWindowSeconds;
  if (w !== undefined && w < 0) errs.push(invalid(`${path}.stabilizationWindowSeconds`, w, 'must be greater than or equal to zero'));
  if (w !== undefined && w > MAX_STABILIZATION_WINDOW_SECONDS) errs.push(invalid(`${path}.stabilizationWindowSeconds`, w, `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`));
  if (rules.selectPolicy !== undefined && !SELECT_POLICIES.includes(rules.selectPolicy)) errs.push(notSupported(`${path}.selectPolicy`, rules.selectPolicy, SELECT_POLICIES));
  if (!rules.policies?.length) errs.push(required(`${path}.policies`, 'must specify at least one Policy'));
  (rules.policies ?? []).forEach((policy, i) => {
    const p = `${path}.policies[${i}]`;
    if (!POLICY_TYPES.includes(policy.type ?? '')) errs.push(notSupported(`${p}.type`, policy.type ?? '', POLICY_TYPES));
    if ((policy.value ?? 0) <= 0) errs.push(invalid(`${p}.value`, policy.value ?? 0, 'must be greater than zero'));
    if ((policy.periodSeconds ?? 0) <= 0) errs.push(invalid(`${p}.periodSeconds`, policy.periodSeconds ?? 0, 'must be greater than zero'));
    if ((policy.periodSeconds ?? 0) > MAX_PERIOD_SECONDS) errs.push(invalid(`${p}.periodSeconds`, policy.periodSeconds, `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
  });
  return errs;
}

/** Upstream's validateHorizontalPodAutoscalerSpec (HPAScaleToZero off: minReplicas at least 1, unless it was 0 already). */
export function validateHpaSpec(hpa: HPAV2, minLowerBound = 1): FieldErrorList {
  const spec = hpa.spec ?? {};
  const errs: FieldErrorList = [];
  const max = spec.maxReplicas ?? 0;
  if (spec.minReplicas !== undefined && spec.minReplicas < minLowerBound) errs.push(invalid('spec.minReplicas', spec.minReplicas, `must be greater than or equal to ${minLowerBound}`));
  if (max < 1) errs.push(invalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (spec.minReplicas !== undefined && max < spec.minReplicas) errs.push(invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateCrossVersionObjectReference(spec.scaleTargetRef, 'spec.scaleTargetRef'));
  const metrics = spec.metrics ?? [];
  metrics.forEach((m, i) => errs.push(...validateMetricSpec(m, `spec.metrics[${i}]`)));
  if (spec.minReplicas === 0 && !metrics.some((m) => m.type === 'Object' || m.type === 'External')) {
    errs.push(forbidden('spec.metrics', 'must specify at least one Object or External metric to support scaling to zero replicas'));
  }
  if (spec.behavior) errs.push(...validateRules(spec.behavior.scaleUp, 'spec.behavior.scaleUp'), ...validateRules(spec.behavior.scaleDown, 'spec.behavior.scaleDown'));
  return errs;
}

/** Upstream's ValidateHorizontalPodAutoscalerStatusUpdate (after the metadata checks). */
export function validateHpaStatus(hpa: HPAV2): FieldErrorList {
  const errs: FieldErrorList = [];
  for (const f of ['currentReplicas', 'desiredReplicas'] as const) {
    const v = hpa.status?.[f] ?? 0;
    if (v < 0) errs.push(invalid(`status.${f}`, v, 'must be greater than or equal to 0'));
  }
  return errs;
}
