import type { KubeObject, LabelSelectorObject } from '@cluster/apimachinery';

export interface CrossVersionObjectReference {
  kind?: string;
  name?: string;
  apiVersion?: string;
}

export interface MetricTarget {
  type?: string;
  value?: string;
  averageValue?: string;
  averageUtilization?: number;
}

export interface MetricValueStatus {
  value?: string;
  averageValue?: string;
  averageUtilization?: number;
}

export interface MetricIdentifier {
  name?: string;
  selector?: LabelSelectorObject;
}

/** autoscaling/v2 MetricSpec. */
export interface MetricSpecV2 {
  type?: string;
  object?: { describedObject?: CrossVersionObjectReference; target?: MetricTarget; metric?: MetricIdentifier };
  pods?: { metric?: MetricIdentifier; target?: MetricTarget };
  resource?: { name?: string; target?: MetricTarget };
  containerResource?: { name?: string; target?: MetricTarget; container?: string };
  external?: { metric?: MetricIdentifier; target?: MetricTarget };
}

/** autoscaling/v2 MetricStatus. */
export interface MetricStatusV2 {
  type?: string;
  object?: { metric?: MetricIdentifier; current?: MetricValueStatus; describedObject?: CrossVersionObjectReference };
  pods?: { metric?: MetricIdentifier; current?: MetricValueStatus };
  resource?: { name?: string; current?: MetricValueStatus };
  containerResource?: { name?: string; current?: MetricValueStatus; container?: string };
  external?: { metric?: MetricIdentifier; current?: MetricValueStatus };
}

export interface ScalingRules {
  stabilizationWindowSeconds?: number;
  selectPolicy?: string;
  policies?: Array<{ type?: string; value?: number; periodSeconds?: number }>;
}

export interface HPACondition {
  type?: string;
  status?: string;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

/** autoscaling/v2 HorizontalPodAutoscaler: the stored form. */
export interface HPAV2 extends KubeObject {
  spec?: {
    scaleTargetRef?: CrossVersionObjectReference;
    minReplicas?: number;
    maxReplicas?: number;
    metrics?: MetricSpecV2[];
    behavior?: { scaleUp?: ScalingRules; scaleDown?: ScalingRules };
  };
  status?: {
    observedGeneration?: number;
    lastScaleTime?: string;
    currentReplicas?: number;
    desiredReplicas?: number;
    currentMetrics?: MetricStatusV2[];
    conditions?: HPACondition[];
  };
}

/** autoscaling/v1 HorizontalPodAutoscaler. */
export interface HPAV1 extends KubeObject {
  spec?: {
    scaleTargetRef?: CrossVersionObjectReference;
    minReplicas?: number;
    maxReplicas?: number;
    targetCPUUtilizationPercentage?: number;
  };
  status?: {
    observedGeneration?: number;
    lastScaleTime?: string;
    currentReplicas?: number;
    desiredReplicas?: number;
    currentCPUUtilizationPercentage?: number;
  };
}

/** Annotations an autoscaling/v1 object keeps what only v2 can hold in (upstream's names). */
export const METRIC_SPECS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const METRIC_STATUSES_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
export const ROUND_TRIP_ANNOTATIONS = [METRIC_SPECS_ANNOTATION, METRIC_STATUSES_ANNOTATION, CONDITIONS_ANNOTATION, BEHAVIOR_ANNOTATION];

/** The CPU utilization percentage HPAs without metrics target. */
export const DEFAULT_CPU_UTILIZATION = 80;
