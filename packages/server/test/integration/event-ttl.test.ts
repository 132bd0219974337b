import { useTestServer } from '../support/test-server.js';
import { openWatch } from '../support/watch-stream.js';

// --event-ttl (issue 20): events are written with an etcd lease and vanish after it, as upstream's;
// other kinds are not.
const ts = useTestServer(['--controllers=-namespace', '--event-ttl=2s']);

test('an event expires after --event-ttl, seen by watchers as DELETED; a ConfigMap does not', async () => {
  const list = await ts().request('GET', '/api/v1/namespaces/default/events');
  const watch = await openWatch(ts(), `/api/v1/namespaces/default/events?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`);
  try {
    const created = await ts().request('POST', '/api/v1/namespaces/default/events', {
      body: { metadata: { name: 'short-lived' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, message: 'soon gone' },
    });
    expect(created.status).toBe(201);
    expect((await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'stays' } } })).status).toBe(201);
    expect(await watch.nextEvent(5_000)).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'short-lived' } } });
    // etcd checks lease expiry about every half second; the TTL is 2 s plus a 0.1 s reuse window.
    expect(await watch.nextEvent(15_000)).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'short-lived' } } });
  } finally {
    watch.close();
  }
  expect((await ts().request('GET', '/api/v1/namespaces/default/events/short-lived')).status).toBe(404);
  expect((await ts().request('GET', '/api/v1/namespaces/default/configmaps/stays')).status).toBe(200);
}, 30_000);
