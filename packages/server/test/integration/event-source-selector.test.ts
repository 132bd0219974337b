import { useTestServer } from '../support/test-server.js';
import { openWatch } from '../support/watch-stream.js';

// core/v1 events select by `source` = source.component, or the reporting controller when the
// event has no legacy source (upstream's event GetAttrs): the conformance "Events API" spec
// creates an events/v1 event and lists it through core/v1 with fieldSelector=source=....
const ts = useTestServer(['--controllers=-namespace']);
const CORE_ALL = '/api/v1/events';
const CORE = '/api/v1/namespaces/default/events';
const V1 = '/apis/events.k8s.io/v1/namespaces/default/events';
const names = (list: { items: { metadata: { name: string } }[] }) => list.items.map((i) => i.metadata.name).sort();

beforeAll(async () => {
  const modern = await ts().request('POST', V1, {
    body: {
      metadata: { name: 'modern' },
      regarding: { namespace: 'default' },
      eventTime: '2017-09-19T13:49:16.000000Z',
      note: 'new style',
      action: 'Do',
      reason: 'Test',
      type: 'Normal',
      reportingController: 'test-controller',
      reportingInstance: 'test-node',
    },
  });
  expect(modern.status).toBe(201);
  const legacy = await ts().request('POST', CORE, {
    body: { metadata: { name: 'legacy' }, involvedObject: { namespace: 'default' }, reason: 'Test', source: { component: 'kubelet', host: 'n1' } },
  });
  expect(legacy.status).toBe(201);
  const both = await ts().request('POST', CORE, {
    body: {
      metadata: { name: 'both' },
      involvedObject: { namespace: 'default' },
      reason: 'Test',
      source: { component: 'legacy-source' },
      type: 'Normal',
      reportingComponent: 'test-controller',
      reportingInstance: 'i',
      action: 'Do',
      eventTime: '2017-09-19T13:49:16.000000Z',
    },
  });
  expect(both.status).toBe(201);
});

test('list by source falls back to the reporting controller, in one namespace and in all', async () => {
  for (const base of [CORE, CORE_ALL]) {
    expect(names((await ts().request('GET', `${base}?fieldSelector=source%3Dtest-controller`)).json)).toEqual(['modern']);
    expect(names((await ts().request('GET', `${base}?fieldSelector=source%3Dkubelet`)).json)).toEqual(['legacy']);
    expect(names((await ts().request('GET', `${base}?fieldSelector=source%3Dlegacy-source`)).json)).toEqual(['both']);
    expect(names((await ts().request('GET', `${base}?fieldSelector=reportingComponent%3Dtest-controller`)).json)).toEqual(['both', 'modern']);
  }
});

test('watch by source sees events/v1 writes', async () => {
  const list = await ts().request('GET', CORE_ALL);
  const watch = await openWatch(ts(), `${CORE_ALL}?watch=true&resourceVersion=${list.json.metadata.resourceVersion}&fieldSelector=source%3Dwatch-controller`);
  try {
    const ev = (name: string, reportingController: string) => ({
      metadata: { name },
      regarding: { namespace: 'default' },
      eventTime: '2017-09-19T13:49:16.000000Z',
      action: 'Do',
      reason: 'Test',
      type: 'Normal',
      reportingController,
      reportingInstance: 'x',
    });
    expect((await ts().request('POST', V1, { body: ev('not-watched', 'other-controller') })).status).toBe(201);
    expect((await ts().request('POST', V1, { body: ev('watched', 'watch-controller') })).status).toBe(201);
    const first = await watch.nextEvent(10_000);
    expect(first).toMatchObject({ type: 'ADDED', object: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'watched' }, reportingComponent: 'watch-controller' } });
  } finally {
    watch.close();
  }
});
