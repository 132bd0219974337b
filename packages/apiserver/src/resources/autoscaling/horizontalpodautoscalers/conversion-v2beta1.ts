import type { KubeObject } from '@cluster/apimachinery';
import { metricSpecFromV1, metricSpecToV1, metricStatusFromV1, metricStatusToV1, setAnnotations, withoutRoundTripAnnotations } from './conversion.js';
import { BEHAVIOR_ANNOTATION, DEFAULT_CPU_UTILIZATION, type HPAV2 } from './types.js';

// Upstream's autoscaling/v2beta1 conversion (pkg/apis/autoscaling/v2beta1/conversion.go): metrics
// in v2beta1's shape (targetAverageUtilization, targetAverageValue, metricName, ...: the same
// shapes autoscaling/v1's annotations use), and v2's behavior in the
// autoscaling.alpha.kubernetes.io/behavior annotation, which v2beta1 has no field for.

type Json = Record<string, unknown>;
interface HPAV2beta1 extends KubeObject {
  spec?: Json & { metrics?: Json[] };
  status?: Json & { currentMetrics?: Json[] };
}

/** A stored (v2) HPA as autoscaling/v2beta1 serves it. Does not change `obj`. */
export function hpaV2ToV2beta1(obj: KubeObject, apiVersion: string): KubeObject {
  const hpa = obj as HPAV2;
  const metadata = structuredClone(hpa.metadata);
  const annotations: Record<string, string> = { ...(withoutRoundTripAnnotations(metadata.annotations ?? undefined) ?? {}) };
  const { behavior, metrics, ...spec } = hpa.spec ?? {};
  if (behavior) annotations[BEHAVIOR_ANNOTATION] = JSON.stringify(behavior);
  setAnnotations(metadata, annotations);
  const { currentMetrics, ...status } = hpa.status ?? {};
  return {
    ...hpa,
    apiVersion,
    metadata,
    spec: { ...spec, ...(metrics ? { metrics: metrics.map(metricSpecToV1) } : {}) },
    ...(hpa.status ? { status: { ...status, ...(currentMetrics ? { currentMetrics: currentMetrics.map(metricStatusToV1) } : {}) } } : {}),
  };
}

/** An autoscaling/v2beta1 HPA in the stored (v2) form, its behavior taken back from the annotation. Does not change `obj`. */
export function hpaV2beta1ToV2(obj: KubeObject, apiVersion: string): KubeObject {
  const hpa = obj as HPAV2beta1;
  const metadata = structuredClone(hpa.metadata);
  const behaviorText = metadata.annotations?.[BEHAVIOR_ANNOTATION];
  let behavior: unknown;
  if (behaviorText !== undefined) {
    try {
      const b = JSON.parse(behaviorText) as { scaleUp?: unknown; scaleDown?: unknown } | null;
      if (b && typeof b === 'object' && (b.scaleUp || b.scaleDown)) behavior = b;
    } catch {
      // Upstream ignores an annotation it cannot read.
    }
  }
  setAnnotations(metadata, withoutRoundTripAnnotations(metadata.annotations ?? undefined));
  const { metrics, ...spec } = hpa.spec ?? {};
  const { currentMetrics, ...status } = hpa.status ?? {};
  return {
    ...hpa,
    apiVersion,
    metadata,
    spec: { ...spec, ...(metrics ? { metrics: metrics.map(metricSpecFromV1) } : {}), ...(behavior ? { behavior } : {}) },
    ...(hpa.status ? { status: { ...status, ...(currentMetrics ? { currentMetrics: currentMetrics.map(metricStatusFromV1) } : {}) } } : {}),
  };
}

/** Upstream's autoscaling/v2beta1 SetDefaults_HorizontalPodAutoscaler. Mutates `obj`. */
export function defaultHpaV2beta1(obj: KubeObject): void {
  const spec = ((obj as HPAV2beta1).spec ??= {});
  spec['minReplicas'] ??= 1;
  if (!spec.metrics?.length) spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: DEFAULT_CPU_UTILIZATION } }];
}
