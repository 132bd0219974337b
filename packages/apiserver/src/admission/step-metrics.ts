import type { Registry } from 'prom-client';
import { KeyedHistogram } from '../metrics/keyed-metrics.js';
import type { AdmissionOperation } from './admission.js';

/** Observes one step of admission (the mutating or the validating phase) of one request. */
export type AdmissionStepObserver = (type: 'admit' | 'validate', operation: AdmissionOperation, rejected: boolean, seconds: number) => void;

const NAME = 'apiserver_admission_step_admission_duration_seconds';

/**
 * Upstream's apiserver_admission_step_admission_duration_seconds: the latency of each phase of the
 * admission chain (built-in plugins and webhooks together), by phase, operation and whether it
 * rejected the request. Every write observes it twice, so it is a keyed histogram: a prom-client
 * child still hashes its label object on every observe (some 20-40 µs of a create's CPU here).
 */
export function admissionStepMetrics(registry: Registry): AdmissionStepObserver {
  const h =
    (registry.getSingleMetric(NAME) as unknown as KeyedHistogram | undefined) ??
    new KeyedHistogram(
      NAME,
      'Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
      [0.005, 0.025, 0.1, 0.5, 1.0, 2.5],
      registry,
    );
  return (type, operation, rejected, seconds) => {
    h.observe(`${type}/${operation}/${rejected}`, () => ({ type, operation, rejected: String(rejected) }), seconds);
  };
}
