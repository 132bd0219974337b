import { Registry } from 'prom-client';
import { admissionStepMetrics } from './step-metrics.js';

test('the admission step histogram is exposed as upstream names it, one series per type, operation and outcome', async () => {
  const registry = new Registry();
  const observe = admissionStepMetrics(registry);
  observe('admit', 'CREATE', false, 0.003);
  observe('admit', 'CREATE', false, 0.03);
  observe('validate', 'DELETE', true, 2);
  // A second observer on the same registry shares the one metric.
  admissionStepMetrics(registry)('admit', 'CREATE', false, 0.001);
  const text = await registry.metrics();
  expect(text).toContain('# TYPE apiserver_admission_step_admission_duration_seconds histogram');
  expect(text).toContain('apiserver_admission_step_admission_duration_seconds_bucket{le="0.005",type="admit",operation="CREATE",rejected="false"} 2');
  expect(text).toContain('apiserver_admission_step_admission_duration_seconds_bucket{le="0.1",type="admit",operation="CREATE",rejected="false"} 3');
  expect(text).toContain('apiserver_admission_step_admission_duration_seconds_bucket{le="+Inf",type="admit",operation="CREATE",rejected="false"} 3');
  expect(text).toContain('apiserver_admission_step_admission_duration_seconds_count{type="admit",operation="CREATE",rejected="false"} 3');
  expect(text).toContain('apiserver_admission_step_admission_duration_seconds_bucket{le="1",type="validate",operation="DELETE",rejected="true"} 0');
  expect(text).toContain('apiserver_admission_step_admission_duration_seconds_count{type="validate",operation="DELETE",rejected="true"} 1');
});
