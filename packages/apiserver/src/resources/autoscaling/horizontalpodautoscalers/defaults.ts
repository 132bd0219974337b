import { DEFAULT_CPU_UTILIZATION, type HPAV1, type HPAV2, type ScalingRules } from './types.js';

const SCALE_UP: ScalingRules = {
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
};
// Scale-down's stabilization window stays unset: the controller's --horizontal-pod-autoscaler-downscale-stabilization applies.
const SCALE_DOWN: ScalingRules = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

function rulesWithDefaults(given: ScalingRules | undefined, defaults: ScalingRules): ScalingRules {
  const out: ScalingRules = structuredClone(defaults);
  if (!given) return out;
  if (given.selectPolicy !== undefined) out.selectPolicy = given.selectPolicy;
  if (given.stabilizationWindowSeconds !== undefined) out.stabilizationWindowSeconds = given.stabilizationWindowSeconds;
  if (given.policies !== undefined) out.policies = given.policies;
  return out;
}

/** Upstream's autoscaling/v2 SetDefaults_HorizontalPodAutoscaler (and its behavior rules). Mutates hpa. */
export function defaultHpaV2(hpa: HPAV2): void {
  const spec = (hpa.spec ??= {});
  spec.minReplicas ??= 1;
  if (!spec.metrics?.length) spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  if (spec.behavior) {
    spec.behavior = { scaleUp: rulesWithDefaults(spec.behavior.scaleUp, SCALE_UP), scaleDown: rulesWithDefaults(spec.behavior.scaleDown, SCALE_DOWN) };
  }
}

/** Upstream's autoscaling/v1 SetDefaults_HorizontalPodAutoscaler: minReplicas 1. Mutates hpa. */
export function defaultHpaV1(hpa: HPAV1): void {
  const spec = (hpa.spec ??= {});
  spec.minReplicas ??= 1;
}
