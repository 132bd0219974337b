import { resolveAdvertiseAddress } from '../../src/advertise-address.js';
import { useTestServer } from '../support/test-server.js';
import { openWatch } from '../support/watch-stream.js';

// Endpoints, nodes, events (core/v1 and events/v1 over one storage), limit ranges, resource
// quotas and endpoint slices (issue 20): validation, subresources, field selectors, conversion.
const ts = useTestServer(['--controllers=-namespace']);
const merge = { 'Content-Type': 'application/merge-patch+json' };
const names = (list: { items: { metadata: { name: string } }[] }) => list.items.map((i) => i.metadata.name).sort();

describe('endpoints', () => {
  test('valid subsets are stored with protocols defaulted', async () => {
    const res = await ts().request('POST', '/api/v1/namespaces/default/endpoints', {
      body: { metadata: { name: 'web' }, subsets: [{ addresses: [{ ip: '10.1.0.5' }], ports: [{ port: 8080 }] }] },
    });
    expect(res.status).toBe(201);
    expect(res.json.subsets).toEqual([{ addresses: [{ ip: '10.1.0.5' }], ports: [{ port: 8080, protocol: 'TCP' }] }]);
  });

  test('bad addresses and ports are 422 with a cause each, nothing stored', async () => {
    const res = await ts().request('POST', '/api/v1/namespaces/default/endpoints', {
      body: { metadata: { name: 'bad' }, subsets: [{ addresses: [{ ip: 'nope' }, { ip: '0.0.0.0' }], ports: [{ port: 0, protocol: 'ICMP' }] }] },
    });
    expect(res.status).toBe(422);
    expect(res.json.details.causes.map((c: { field: string }) => c.field)).toEqual([
      'subsets[0].addresses[0].ip',
      'subsets[0].addresses[1].ip',
      'subsets[0].ports[0].port',
      'subsets[0].ports[0].protocol',
    ]);
    expect((await ts().request('GET', '/api/v1/namespaces/default/endpoints/bad')).status).toBe(404);
  });

  test('addresses only this host could reach (loopback, link-local, unspecified) are 422 with upstream messages; IPv6 is an address', async () => {
    const special = ['127.0.0.1', '127.9.9.9', '::1', '169.254.169.254', 'fe80::1', '224.0.0.251', 'ff02::1', '::', '::ffff:127.0.0.1'];
    const res = await ts().request('POST', '/api/v1/namespaces/default/endpoints', {
      body: { metadata: { name: 'special' }, subsets: [{ addresses: special.slice(0, 5).map((ip) => ({ ip })), notReadyAddresses: special.slice(5).map((ip) => ({ ip })), ports: [{ port: 443 }] }] },
    });
    expect(res.status).toBe(422);
    expect(res.json.details.causes.map((c: { field: string; message: string }) => [c.field, c.message])).toEqual([
      ['subsets[0].addresses[0].ip', 'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)'],
      ['subsets[0].addresses[1].ip', 'Invalid value: "127.9.9.9": may not be in the loopback range (127.0.0.0/8, ::1/128)'],
      ['subsets[0].addresses[2].ip', 'Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)'],
      ['subsets[0].addresses[3].ip', 'Invalid value: "169.254.169.254": may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
      ['subsets[0].addresses[4].ip', 'Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
      ['subsets[0].notReadyAddresses[0].ip', 'Invalid value: "224.0.0.251": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'],
      ['subsets[0].notReadyAddresses[1].ip', 'Invalid value: "ff02::1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'],
      ['subsets[0].notReadyAddresses[2].ip', 'Invalid value: "::": may not be unspecified (::)'],
      ['subsets[0].notReadyAddresses[3].ip', 'Invalid value: "::ffff:127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)'],
    ]);
    expect((await ts().request('GET', '/api/v1/namespaces/default/endpoints/special')).status).toBe(404);
    const v6 = await ts().request('POST', '/api/v1/namespaces/default/endpoints', {
      body: { metadata: { name: 'v6' }, subsets: [{ addresses: [{ ip: 'fd00::5' }, { ip: '2001:db8::ffff' }], ports: [{ port: 443 }] }] },
    });
    expect(v6.status).toBe(201);
    // An update cannot bring loopback in either.
    const upd = await ts().request('PUT', '/api/v1/namespaces/default/endpoints/v6', {
      body: { metadata: { name: 'v6', resourceVersion: v6.json.metadata.resourceVersion }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: 443 }] }] },
    });
    expect([upd.status, upd.json.details?.causes?.[0]?.field]).toEqual([422, 'subsets[0].addresses[0].ip']);
  });
});

describe('nodes', () => {
  const node = {
    metadata: { name: 'n1', labels: { 'node-role.kubernetes.io/worker': '' } },
    spec: { podCIDR: '10.244.1.0/24', unschedulable: true },
    status: { capacity: { cpu: '4', memory: '8Gi' }, conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.32.0' } },
  };

  test('created with status, cluster-scoped, podCIDRs and allocatable defaulted', async () => {
    const res = await ts().request('POST', '/api/v1/nodes', { body: node });
    expect(res.status).toBe(201);
    expect(res.json.metadata.namespace).toBeUndefined();
    expect(res.json.spec.podCIDRs).toEqual(['10.244.1.0/24']);
    expect(res.json.status.allocatable).toEqual({ cpu: '4', memory: '8Gi' });
  });

  test('status changes only through the status subresource', async () => {
    const viaMain = await ts().request('PATCH', '/api/v1/nodes/n1', { body: { status: { phase: 'Running' } }, headers: merge });
    expect(viaMain.status).toBe(200);
    expect(viaMain.json.status.phase).toBeUndefined();
    const viaStatus = await ts().request('PATCH', '/api/v1/nodes/n1/status', { body: { status: { phase: 'Running' }, spec: { unschedulable: false } }, headers: merge });
    expect(viaStatus.status).toBe(200);
    expect(viaStatus.json.status.phase).toBe('Running');
    expect(viaStatus.json.spec.unschedulable).toBe(true);
  });

  test('field selector spec.unschedulable', async () => {
    expect(names((await ts().request('GET', '/api/v1/nodes?fieldSelector=spec.unschedulable%3Dtrue')).json)).toEqual(['n1']);
    expect(names((await ts().request('GET', '/api/v1/nodes?fieldSelector=spec.unschedulable%3Dfalse')).json)).toEqual([]);
  });

  test('bad taints and CIDRs are 422', async () => {
    const res = await ts().request('POST', '/api/v1/nodes', {
      body: { metadata: { name: 'n2' }, spec: { podCIDRs: ['10.0.0.0/99'], taints: [{ key: 'a', effect: 'Never' }, { key: 'b', effect: 'NoSchedule' }, { key: 'b', effect: 'NoSchedule' }] } },
    });
    expect(res.status).toBe(422);
    expect(res.json.details.causes.map((c: { field: string }) => c.field)).toEqual(['spec.podCIDRs[0]', 'spec.taints[0].effect', 'spec.taints[2]']);
  });
});

describe('events: core/v1 and events/v1 over the same stored objects (SPEC 9.4)', () => {
  const CORE = '/api/v1/namespaces/default/events';
  const V1 = '/apis/events.k8s.io/v1/namespaces/default/events';

  test('a legacy core event reads through events/v1 with the renamed fields', async () => {
    const created = await ts().request('POST', CORE, {
      body: {
        metadata: { name: 'legacy' },
        involvedObject: { kind: 'Service', name: 'kubernetes', namespace: 'default', uid: 'u-1' },
        reason: 'Created',
        message: 'hello',
        source: { component: 'test', host: 'h' },
        firstTimestamp: '2024-01-02T03:04:05Z',
        lastTimestamp: '2024-01-02T03:04:06Z',
        count: 2,
        type: 'Normal',
      },
    });
    expect(created.status).toBe(201);
    const v1 = (await ts().request('GET', `${V1}/legacy`)).json;
    expect(v1).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      regarding: { kind: 'Service', name: 'kubernetes', namespace: 'default', uid: 'u-1' },
      note: 'hello',
      reason: 'Created',
      deprecatedSource: { component: 'test', host: 'h' },
      deprecatedFirstTimestamp: '2024-01-02T03:04:05Z',
      deprecatedLastTimestamp: '2024-01-02T03:04:06Z',
      deprecatedCount: 2,
      eventTime: null,
      metadata: { uid: created.json.metadata.uid, resourceVersion: created.json.metadata.resourceVersion },
    });
    expect(v1.involvedObject).toBeUndefined();
  });

  test('an events/v1 event is stored once and reads through core/v1', async () => {
    const res = await ts().request('POST', V1, {
      body: {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: 'modern' },
        eventTime: '2024-01-02T03:04:05.000001Z',
        reportingController: 'example.com/ctrl',
        reportingInstance: 'ctrl-1',
        action: 'Checking',
        reason: 'Checked',
        regarding: { kind: 'Node', name: 'n1' },
        note: 'all good',
        type: 'Warning',
      },
    });
    expect(res.status).toBe(201);
    expect(res.json.apiVersion).toBe('events.k8s.io/v1');
    const core = (await ts().request('GET', `${CORE}/modern`)).json;
    expect(core).toMatchObject({
      apiVersion: 'v1',
      involvedObject: { kind: 'Node', name: 'n1' },
      message: 'all good',
      reportingComponent: 'example.com/ctrl',
      reportingInstance: 'ctrl-1',
      eventTime: '2024-01-02T03:04:05.000001Z',
    });
    expect(names((await ts().request('GET', V1)).json)).toEqual(['legacy', 'modern']);
  });

  test('events/v1 refuses what SPEC 9.4 forbids, with a cause each, nothing stored', async () => {
    const res = await ts().request('POST', V1, {
      body: { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'bad' }, type: 'Info', deprecatedCount: 3, note: 'x' },
    });
    expect(res.status).toBe(422);
    expect(res.json.details.causes.map((c: { field: string }) => c.field)).toEqual([
      'eventTime',
      'type',
      'reportingController',
      'reportingInstance',
      'action',
      'reason',
      'deprecatedCount',
    ]);
    expect((await ts().request('GET', `${CORE}/bad`)).status).toBe(404);
  });

  test('a core event must name its own namespace', async () => {
    const res = await ts().request('POST', CORE, { body: { metadata: { name: 'other' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'kube-x' } } });
    expect(res.status).toBe(422);
    expect(res.json.message).toContain('involvedObject.namespace: Invalid value: "kube-x": does not match event.namespace');
  });

  test('field selectors: core names (kubectl describe) and events/v1 names', async () => {
    const describe = 'involvedObject.name%3Dkubernetes%2CinvolvedObject.namespace%3Ddefault%2CinvolvedObject.kind%3DService%2CinvolvedObject.uid%3Du-1';
    expect(names((await ts().request('GET', `${CORE}?fieldSelector=${describe}`)).json)).toEqual(['legacy']);
    expect(names((await ts().request('GET', `${CORE}?fieldSelector=type%3DWarning`)).json)).toEqual(['modern']);
    expect(names((await ts().request('GET', `${CORE}?fieldSelector=source%3Dtest,reason%3DCreated`)).json)).toEqual(['legacy']);
    expect(names((await ts().request('GET', `${CORE}?fieldSelector=reportingComponent%3Dexample.com%2Fctrl`)).json)).toEqual(['modern']);
    expect(names((await ts().request('GET', `${V1}?fieldSelector=regarding.kind%3DNode`)).json)).toEqual(['modern']);
    expect(names((await ts().request('GET', `${V1}?fieldSelector=reportingController%3Dexample.com%2Fctrl`)).json)).toEqual(['modern']);
    expect((await ts().request('GET', `${V1}?fieldSelector=involvedObject.kind%3DNode`)).status).toBe(400);
  });

  test('an events/v1 watch sees core writes in the events/v1 form, filtered by its own field names', async () => {
    const list = await ts().request('GET', V1);
    const watch = await openWatch(ts(), `${V1}?watch=true&resourceVersion=${list.json.metadata.resourceVersion}&fieldSelector=regarding.name%3Dwatched`);
    try {
      await ts().request('POST', CORE, { body: { metadata: { name: 'w2' }, involvedObject: { kind: 'Pod', name: 'other', namespace: 'default' }, message: 'not seen' } });
      await ts().request('POST', CORE, { body: { metadata: { name: 'w1' }, involvedObject: { kind: 'Pod', name: 'watched', namespace: 'default' }, message: 'seen' } });
      const first = await watch.nextEvent(10_000);
      expect(first).toMatchObject({ type: 'ADDED', object: { apiVersion: 'events.k8s.io/v1', metadata: { name: 'w1' }, note: 'seen', regarding: { name: 'watched' } } });
    } finally {
      watch.close();
    }
  });
});

describe('limit ranges and resource quotas (stored only)', () => {
  test('stored and validated', async () => {
    const lr = await ts().request('POST', '/api/v1/namespaces/default/limitranges', {
      body: { metadata: { name: 'limits' }, spec: { limits: [{ type: 'Container', default: { cpu: '500m' }, max: { memory: '1Gi' } }] } },
    });
    expect(lr.status).toBe(201);
    const badLr = await ts().request('POST', '/api/v1/namespaces/default/limitranges', {
      body: { metadata: { name: 'bad' }, spec: { limits: [{ type: 'Pod', default: { cpu: '1' } }, {}] } },
    });
    expect(badLr.status).toBe(422);
    expect(badLr.json.details.causes.map((c: { field: string }) => c.field)).toEqual(['spec.limits[0].default', 'spec.limits[1].type']);

    const rq = await ts().request('POST', '/api/v1/namespaces/default/resourcequotas', {
      body: { metadata: { name: 'quota' }, spec: { hard: { pods: '10', 'limits.cpu': '4' } }, status: { used: { pods: '3' } } },
    });
    expect(rq.status).toBe(201);
    expect(rq.json.status).toEqual({});
    const status = await ts().request('PUT', '/api/v1/namespaces/default/resourcequotas/quota/status', {
      body: { ...rq.json, status: { hard: { pods: '10' }, used: { pods: '3' } } },
    });
    expect(status.status).toBe(200);
    expect(status.json.status.used).toEqual({ pods: '3' });
    const badRq = await ts().request('POST', '/api/v1/namespaces/default/resourcequotas', { body: { metadata: { name: 'bad' }, spec: { scopes: ['Sometimes'] } } });
    expect(badRq.status).toBe(422);
    expect(badRq.json.message).toContain('spec.scopes[0]: Unsupported value: "Sometimes"');
  });
});

describe('endpoint slices', () => {
  test('the kubernetes slice mirrors the kubernetes endpoints, labelled for kubectl describe', async () => {
    const deadline = Date.now() + 15_000;
    let res = await ts().request('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dkubernetes');
    while (res.json.items.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      res = await ts().request('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dkubernetes');
    }
    expect(res.json.items[0]).toMatchObject({
      addressType: 'IPv4',
      // Bound to loopback, a replica advertises the host's address (upstream's ResolveBindAddress).
      endpoints: [{ addresses: [resolveAdvertiseAddress('', '127.0.0.1')], conditions: { ready: true } }],
      ports: [{ name: 'https', port: ts().server.port, protocol: 'TCP' }],
    });
  });

  test('addresses must match the address type', async () => {
    const res = await ts().request('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', {
      body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'x' }, addressType: 'IPv4', endpoints: [{ addresses: ['fd00::1'] }, { addresses: [] }] },
    });
    expect(res.status).toBe(422);
    expect(res.json.details.causes.map((c: { field: string }) => c.field)).toEqual(['endpoints[0].addresses[0]', 'endpoints[1].addresses']);
  });

  test('IP addresses only this host could reach are 422, as in Endpoints; FQDN slices are not checked for them', async () => {
    const slice = (name: string, addressType: string, addresses: string[]) => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name },
      addressType,
      endpoints: addresses.map((a) => ({ addresses: [a] })),
    });
    const v4 = await ts().request('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', { body: slice('loop4', 'IPv4', ['127.0.0.1', '169.254.1.1', '10.0.0.1']) });
    expect(v4.status).toBe(422);
    expect(v4.json.details.causes.map((c: { field: string; message: string }) => [c.field, c.message])).toEqual([
      ['endpoints[0].addresses[0]', 'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)'],
      ['endpoints[1].addresses[0]', 'Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
    ]);
    const v6 = await ts().request('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', { body: slice('loop6', 'IPv6', ['::1', 'fd00::1', 'nope']) });
    expect(v6.status).toBe(422);
    expect(v6.json.details.causes.map((c: { field: string }) => c.field)).toEqual(['endpoints[0].addresses[0]', 'endpoints[2].addresses[0]']);
    expect((await ts().request('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', { body: slice('fqdn', 'FQDN', ['localhost']) })).status).toBe(201);
  });
});
