import type { KubeObject } from '@cluster/apimachinery';
import {
  BEHAVIOR_ANNOTATION,
  CONDITIONS_ANNOTATION,
  DEFAULT_CPU_UTILIZATION,
  METRIC_SPECS_ANNOTATION,
  METRIC_STATUSES_ANNOTATION,
  ROUND_TRIP_ANNOTATIONS,
  type HPAV1,
  type HPAV2,
  type HPACondition,
  type MetricSpecV2,
  type MetricStatusV2,
  type CrossVersionObjectReference,
} from './types.js';

// Upstream's pkg/apis/autoscaling/v1 conversion, over the v2 form this server stores. What v1
// cannot hold (metrics other than one CPU utilization target, current metrics, conditions,
// behavior) travels in annotations, JSON in the shape of upstream's autoscaling/v1 metric types
// (targetAverageValue, currentValue, ...), with keys in Go's field order.

type Json = Record<string, unknown>;
const defined = (o: Json): Json => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
const ref = (r: CrossVersionObjectReference | undefined): Json => defined({ kind: r?.kind ?? '', name: r?.name ?? '', apiVersion: r?.apiVersion || undefined });
const isCpuUtilization = (m: MetricSpecV2) => m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource.target?.averageUtilization !== undefined;

/** A v2 MetricSpec in upstream's autoscaling/v1 MetricSpec shape. */
export function metricSpecToV1(m: MetricSpecV2): Json {
  const out: Json = { type: m.type ?? '' };
  if (m.object) {
    const o = m.object;
    out['object'] = defined({ target: ref(o.describedObject), metricName: o.metric?.name ?? '', targetValue: o.target?.value ?? '0', selector: o.metric?.selector, averageValue: o.target?.averageValue });
  }
  if (m.pods) out['pods'] = defined({ metricName: m.pods.metric?.name ?? '', targetAverageValue: m.pods.target?.averageValue ?? '0', selector: m.pods.metric?.selector });
  if (m.resource) out['resource'] = defined({ name: m.resource.name ?? '', targetAverageUtilization: m.resource.target?.averageUtilization, targetAverageValue: m.resource.target?.averageValue });
  if (m.containerResource) {
    const c = m.containerResource;
    out['containerResource'] = defined({ name: c.name ?? '', targetAverageUtilization: c.target?.averageUtilization, targetAverageValue: c.target?.averageValue, container: c.container ?? '' });
  }
  if (m.external) {
    const e = m.external;
    out['external'] = defined({ metricName: e.metric?.name ?? '', metricSelector: e.metric?.selector, targetValue: e.target?.value, targetAverageValue: e.target?.averageValue });
  }
  return out;
}

/** An autoscaling/v1-shaped MetricSpec back in v2 form (upstream's target type rules). */
export function metricSpecFromV1(m: Json): MetricSpecV2 {
  const out: MetricSpecV2 = { type: m['type'] as string };
  const o = m['object'] as Json | undefined;
  if (o) {
    const target = o['target'] as CrossVersionObjectReference | undefined;
    out.object = {
      describedObject: { kind: target?.kind ?? '', name: target?.name ?? '', ...(target?.apiVersion ? { apiVersion: target.apiVersion } : {}) },
      target: defined({ type: o['averageValue'] === undefined ? 'Value' : 'AverageValue', value: (o['targetValue'] as string | undefined) ?? '0', averageValue: o['averageValue'] }),
      metric: defined({ name: o['metricName'] ?? '', selector: o['selector'] }),
    };
  }
  const p = m['pods'] as Json | undefined;
  if (p) out.pods = { metric: defined({ name: p['metricName'] ?? '', selector: p['selector'] }), target: { type: 'AverageValue', averageValue: (p['targetAverageValue'] as string | undefined) ?? '0' } };
  for (const key of ['resource', 'containerResource'] as const) {
    const r = m[key] as Json | undefined;
    if (!r) continue;
    const utilization = r['targetAverageUtilization'] as number | undefined;
    const target = defined({ type: utilization === undefined ? 'AverageValue' : 'Utilization', averageValue: r['targetAverageValue'], averageUtilization: utilization });
    if (key === 'resource') out.resource = { name: r['name'] as string, target };
    else out.containerResource = { name: r['name'] as string, target, container: (r['container'] as string | undefined) ?? '' };
  }
  const e = m['external'] as Json | undefined;
  if (e) {
    out.external = {
      metric: defined({ name: e['metricName'] ?? '', selector: e['metricSelector'] }),
      target: defined({ type: e['targetValue'] === undefined ? 'AverageValue' : 'Value', value: e['targetValue'], averageValue: e['targetAverageValue'] }),
    };
  }
  return out;
}

/** A v2 MetricStatus in upstream's autoscaling/v1 MetricStatus shape. */
export function metricStatusToV1(m: MetricStatusV2): Json {
  const out: Json = { type: m.type ?? '' };
  if (m.object) {
    const o = m.object;
    out['object'] = defined({ target: ref(o.describedObject), metricName: o.metric?.name ?? '', currentValue: o.current?.value ?? '0', selector: o.metric?.selector, averageValue: o.current?.averageValue });
  }
  if (m.pods) out['pods'] = defined({ metricName: m.pods.metric?.name ?? '', currentAverageValue: m.pods.current?.averageValue ?? '0', selector: m.pods.metric?.selector });
  if (m.resource) out['resource'] = defined({ name: m.resource.name ?? '', currentAverageUtilization: m.resource.current?.averageUtilization, currentAverageValue: m.resource.current?.averageValue ?? '0' });
  if (m.containerResource) {
    const c = m.containerResource;
    out['containerResource'] = defined({ name: c.name ?? '', currentAverageUtilization: c.current?.averageUtilization, currentAverageValue: c.current?.averageValue ?? '0', container: c.container ?? '' });
  }
  if (m.external) {
    const e = m.external;
    out['external'] = defined({ metricName: e.metric?.name ?? '', metricSelector: e.metric?.selector, currentValue: e.current?.value ?? '0', currentAverageValue: e.current?.averageValue });
  }
  return out;
}

export function metricStatusFromV1(m: Json): MetricStatusV2 {
  const out: MetricStatusV2 = { type: m['type'] as string };
  const o = m['object'] as Json | undefined;
  if (o) {
    const target = o['target'] as CrossVersionObjectReference | undefined;
    out.object = {
      metric: defined({ name: o['metricName'] ?? '', selector: o['selector'] }),
      current: defined({ value: (o['currentValue'] as string | undefined) ?? '0', averageValue: o['averageValue'] }),
      describedObject: { kind: target?.kind ?? '', name: target?.name ?? '', ...(target?.apiVersion ? { apiVersion: target.apiVersion } : {}) },
    };
  }
  const p = m['pods'] as Json | undefined;
  if (p) out.pods = { metric: defined({ name: p['metricName'] ?? '', selector: p['selector'] }), current: { averageValue: (p['currentAverageValue'] as string | undefined) ?? '0' } };
  for (const key of ['resource', 'containerResource'] as const) {
    const r = m[key] as Json | undefined;
    if (!r) continue;
    const current = defined({ averageValue: (r['currentAverageValue'] as string | undefined) ?? '0', averageUtilization: r['currentAverageUtilization'] });
    if (key === 'resource') out.resource = { name: r['name'] as string, current };
    else out.containerResource = { name: r['name'] as string, current, container: (r['container'] as string | undefined) ?? '' };
  }
  const e = m['external'] as Json | undefined;
  if (e) {
    out.external = {
      metric: defined({ name: e['metricName'] ?? '', selector: e['metricSelector'] }),
      current: defined({ value: (e['currentValue'] as string | undefined) ?? '0', averageValue: e['currentAverageValue'] }),
    };
  }
  return out;
}

const conditionJson = (c: HPACondition): Json => defined({ type: c.type ?? '', status: c.status ?? '', lastTransitionTime: c.lastTransitionTime ?? null, reason: c.reason, message: c.message });

export function withoutRoundTripAnnotations(annotations: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!annotations) return undefined;
  const kept = Object.fromEntries(Object.entries(annotations).filter(([k]) => !ROUND_TRIP_ANNOTATIONS.includes(k)));
  return Object.keys(kept).length ? kept : undefined;
}

function parseList(text: string | undefined): Json[] | undefined {
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? (v as Json[]) : undefined;
  } catch {
    return undefined;
  }
}

export function setAnnotations(meta: KubeObject['metadata'], annotations: Record<string, string> | undefined): void {
  if (annotations && Object.keys(annotations).length) meta.annotations = annotations;
  else delete meta.annotations;
}

/** A stored (v2) HPA as autoscaling/v1 serves it. Does not change `hpa`. */
export function hpaV2ToV1(hpa: HPAV2, apiVersion: string): HPAV1 {
  const spec = hpa.spec ?? {};
  const status = hpa.status ?? {};
  const metadata = structuredClone(hpa.metadata);
  const annotations: Record<string, string> = { ...(withoutRoundTripAnnotations(metadata.annotations ?? undefined) ?? {}) };
  const metrics = spec.metrics ?? [];
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((m) => !isCpuUtilization(m));
  if (others.length) annotations[METRIC_SPECS_ANNOTATION] = JSON.stringify(others.map(metricSpecToV1));
  if (status.currentMetrics?.length) annotations[METRIC_STATUSES_ANNOTATION] = JSON.stringify(status.currentMetrics.map(metricStatusToV1));
  if (spec.behavior) annotations[BEHAVIOR_ANNOTATION] = JSON.stringify(spec.behavior);
  if (status.conditions?.length) annotations[CONDITIONS_ANNOTATION] = JSON.stringify(status.conditions.map(conditionJson));
  setAnnotations(metadata, annotations);
  const cpuStatus = (status.currentMetrics ?? []).filter((m) => m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource.current?.averageUtilization !== undefined).pop();
  const out: HPAV1 = {
    apiVersion,
    kind: 'HorizontalPodAutoscaler',
    metadata,
    spec: {
      scaleTargetRef: spec.scaleTargetRef ?? {},
      ...(spec.minReplicas !== undefined ? { minReplicas: spec.minReplicas } : {}),
      maxReplicas: spec.maxReplicas ?? 0,
      ...(cpu ? { targetCPUUtilizationPercentage: cpu.resource!.target!.averageUtilization! } : {}),
    },
    status: {
      ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
      ...(status.lastScaleTime !== undefined ? { lastScaleTime: status.lastScaleTime } : {}),
      currentReplicas: status.currentReplicas ?? 0,
      desiredReplicas: status.desiredReplicas ?? 0,
      ...(cpuStatus ? { currentCPUUtilizationPercentage: cpuStatus.resource!.current!.averageUtilization! } : {}),
    },
  };
  return out;
}

/** An autoscaling/v1 HPA in the stored (v2) form, taking back what its annotations carry. Does not change `hpa`. */
export function hpaV1ToV2(hpa: HPAV1, apiVersion: string): HPAV2 {
  const spec = hpa.spec ?? {};
  const status = hpa.status ?? {};
  const metadata = structuredClone(hpa.metadata);
  const annotations = metadata.annotations ?? {};
  const metrics: MetricSpecV2[] = (parseList(annotations[METRIC_SPECS_ANNOTATION]) ?? []).map(metricSpecFromV1);
  if (spec.targetCPUUtilizationPercentage !== undefined) {
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } });
  }
  if (metrics.length === 0) metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } });
  let behavior: NonNullable<HPAV2['spec']>['behavior'];
  const behaviorText = annotations[BEHAVIOR_ANNOTATION];
  if (behaviorText !== undefined) {
    try {
      const b = JSON.parse(behaviorText) as { scaleUp?: unknown; scaleDown?: unknown } | null;
      if (b && typeof b === 'object' && (b.scaleUp || b.scaleDown)) behavior = b as typeof behavior;
    } catch {
      // Upstream ignores an annotation it cannot read.
    }
  }
  let currentMetrics: MetricStatusV2[] | undefined;
  const statusList = parseList(annotations[METRIC_STATUSES_ANNOTATION]);
  if (statusList) currentMetrics = statusList.map(metricStatusFromV1);
  else if (status.currentCPUUtilizationPercentage !== undefined) {
    currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } }];
  }
  const conditions = parseList(annotations[CONDITIONS_ANNOTATION]) as HPACondition[] | undefined;
  setAnnotations(metadata, withoutRoundTripAnnotations(metadata.annotations ?? undefined));
  return {
    apiVersion,
    kind: 'HorizontalPodAutoscaler',
    metadata,
    spec: {
      scaleTargetRef: spec.scaleTargetRef ?? {},
      ...(spec.minReplicas !== undefined ? { minReplicas: spec.minReplicas } : {}),
      maxReplicas: spec.maxReplicas ?? 0,
      metrics,
      ...(behavior ? { behavior } : {}),
    },
    status: {
      ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
      ...(status.lastScaleTime !== undefined ? { lastScaleTime: status.lastScaleTime } : {}),
      // v2's currentReplicas is left out when 0, as Go's omitempty does.
      ...(status.currentReplicas ? { currentReplicas: status.currentReplicas } : {}),
      desiredReplicas: status.desiredReplicas ?? 0,
      ...(currentMetrics ? { currentMetrics } : {}),
      ...(conditions ? { conditions } : {}),
    },
  };
}
