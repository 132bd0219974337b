import { Histogram, type Registry } from 'prom-client';
import type { AdmissionOperation } from './admission.js';

/** Observes one step of admission (the mutating or the validating phase) of one request. */
export type AdmissionStepObserver = (type: 'admit' | 'validate', operation: AdmissionOperation, rejected: boolean, seconds: number) => void;

/**
 * Upstream's apiserver_admission_step_admission_duration_seconds: the latency of each phase of the
 * admission chain (built-in plugins and webhooks together), by phase, operation and whether it
 * rejected the request.
 */
export function admissionStepMetrics(registry: Registry): AdmissionStepObserver {
  const existing = registry.getSingleMetric('apiserver_admission_step_admission_duration_seconds') as Histogram<string> | undefined;
  const h =
    existing ??
    new Histogram({
      name: 'apiserver_admission_step_admission_duration_seconds',
      help: 'Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
      labelNames: ['type', 'operation', 'rejected'],
      buckets: [0.005, 0.025, 0.1, 0.5, 1.0, 2.5],
      registers: [registry],
    });
  // Label sets are few (2 types x 3 operations x 2): their children are kept, not looked up per call.
  const children = new Map<string, ReturnType<Histogram<string>['labels']>>();
  return (type, operation, rejected, seconds) => {
    const key = `${type}/${operation}/${rejected}`;
    let child = children.get(key);
    if (!child) {
      child = h.labels({ type, operation, rejected: String(rejected) });
      children.set(key, child);
    }
    child.observe(seconds);
  };
}
