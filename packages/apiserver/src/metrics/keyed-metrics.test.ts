import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client';
import { KeyedCounter, KeyedHistogram, seriesKey } from './keyed-metrics.js';

const BUCKETS = [0.005, 0.025, 0.1, 1, 10];
const LABELS = ['verb', 'resource', 'scope'] as const;
/** Label sets and values observed, including values on bucket bounds and above the last one. */
const OBSERVATIONS: Array<[Record<(typeof LABELS)[number], string>, number]> = [
  [{ verb: 'GET', resource: 'configmaps', scope: 'resource' }, 0.001],
  [{ verb: 'GET', resource: 'configmaps', scope: 'resource' }, 0.025],
  [{ verb: 'LIST', resource: 'pods', scope: 'namespace' }, 0.3],
  [{ verb: 'GET', resource: 'configmaps', scope: 'resource' }, 42],
  [{ verb: 'POST', resource: 'a"b\\c', scope: '' }, 0.005],
];

/** The same observations through prom-client's own metrics and through the keyed ones. */
function bothRegistries() {
  const stock = new Registry();
  const keyed = new Registry();
  const counter = new Counter({ name: 'req_total', help: 'Requests.', labelNames: [...LABELS, 'code'], registers: [stock] });
  const histogram = new Histogram({ name: 'req_seconds', help: 'Latency.', labelNames: [...LABELS], buckets: BUCKETS, registers: [stock] });
  const keyedCounter = new KeyedCounter('req_total', 'Requests.', keyed);
  const keyedHistogram = new KeyedHistogram('req_seconds', 'Latency.', BUCKETS, keyed);
  for (const [labels, value] of OBSERVATIONS) {
    const code = value > 1 ? '500' : '200';
    counter.inc({ ...labels, code });
    histogram.observe(labels, value);
    const key = seriesKey([labels.verb, labels.resource, labels.scope]);
    keyedCounter.inc(key + code, () => ({ ...labels, code }));
    keyedHistogram.observe(key, () => ({ ...labels }), value);
  }
  return { stock, keyed };
}

describe('keyed metrics', () => {
  test('expose exactly what prom-client Counter and Histogram expose for the same observations', async () => {
    const { stock, keyed } = bothRegistries();
    const text = await keyed.metrics();
    expect(text).toBe(await stock.metrics());
    expect(text).toContain('req_seconds_bucket{le="0.025",verb="GET",resource="configmaps",scope="resource"} 2');
    expect(text).toContain('req_seconds_bucket{le="+Inf",verb="GET",resource="configmaps",scope="resource"} 3');
    expect(text).toContain('req_total{verb="GET",resource="configmaps",scope="resource",code="500"} 1');
  });

  test('aggregate across workers as prom-client metrics do', async () => {
    const a = bothRegistries();
    const b = bothRegistries();
    const stock = AggregatorRegistry.aggregate([await a.stock.getMetricsAsJSON(), await b.stock.getMetricsAsJSON()]);
    const keyed = AggregatorRegistry.aggregate([await a.keyed.getMetricsAsJSON(), await b.keyed.getMetricsAsJSON()]);
    expect(await keyed.metrics()).toBe(await stock.metrics());
    expect(await keyed.metrics()).toContain('req_seconds_count{verb="GET",resource="configmaps",scope="resource"} 6');
  });

  test('reset clears every series', async () => {
    const { keyed } = bothRegistries();
    keyed.resetMetrics();
    expect(await keyed.metrics()).toBe('# HELP req_total Requests.\n# TYPE req_total counter\n\n# HELP req_seconds Latency.\n# TYPE req_seconds histogram\n');
  });

  test.each([
    [['ab', 'c'], ['a', 'bc']],
    [['a:b', ''], ['a', ':b']],
    [['', ''], ['']],
  ])('series keys of different label values differ: %j vs %j', (x, y) => {
    expect(seriesKey(x)).not.toBe(seriesKey(y));
  });
});
