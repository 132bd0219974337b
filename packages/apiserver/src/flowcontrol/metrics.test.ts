import { Registry } from 'prom-client';
import { FlowControlMetrics } from './metrics.js';

test('the wait histogram and the dispatch counter are exposed under upstream names and labels', async () => {
  const registry = new Registry();
  const m = new FlowControlMetrics(registry);
  const p = m.pair('workload-low', 'service-accounts');
  m.dispatched(p, 'workload-low', 'service-accounts', 0);
  m.dispatched(p, 'workload-low', 'service-accounts', 0.01);
  m.waited(p, 'workload-low', 'service-accounts', 20);
  const text = await registry.metrics();
  expect(text).toContain('# TYPE apiserver_flowcontrol_request_wait_duration_seconds histogram');
  expect(text).toContain('apiserver_flowcontrol_request_wait_duration_seconds_bucket{le="0",priority_level="workload-low",flow_schema="service-accounts",execute="true"} 1');
  expect(text).toContain('apiserver_flowcontrol_request_wait_duration_seconds_bucket{le="0.02",priority_level="workload-low",flow_schema="service-accounts",execute="true"} 2');
  expect(text).toContain('apiserver_flowcontrol_request_wait_duration_seconds_count{priority_level="workload-low",flow_schema="service-accounts",execute="true"} 2');
  expect(text).toContain('apiserver_flowcontrol_request_wait_duration_seconds_bucket{le="15",priority_level="workload-low",flow_schema="service-accounts",execute="false"} 0');
  expect(text).toContain('apiserver_flowcontrol_request_wait_duration_seconds_count{priority_level="workload-low",flow_schema="service-accounts",execute="false"} 1');
  expect(text).toContain('apiserver_flowcontrol_dispatched_requests_total{priority_level="workload-low",flow_schema="service-accounts"} 2');
});
