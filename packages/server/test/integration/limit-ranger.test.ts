import { useTestServer } from '../support/test-server.js';

// The LimitRanger admission (upstream plugin/pkg/admission/limitranger) after the conformance
// spec "should create a LimitRange with defaults and ensure pod has those defaults applied".
const ts = useTestServer(['--controllers=-namespace']);
const NS = '/api/v1/namespaces';

const list = (cpu: string, memory: string, storage: string) => {
  const out: Record<string, string> = {};
  if (cpu) out.cpu = cpu;
  if (memory) out.memory = memory;
  if (storage) out['ephemeral-storage'] = storage;
  return out;
};
const pod = (name: string, requests: Record<string, string>, limits: Record<string, string>) => ({
  metadata: { name },
  spec: { containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.7', resources: { requests, limits } }] },
});

async function namespace(name: string): Promise<string> {
  const res = await ts().request('POST', NS, { body: { metadata: { name } } });
  expect(res.status).toBe(201);
  return `${NS}/${name}`;
}

test('container defaults on create, min and max enforced, changes seen at once, gone after delete', async () => {
  const ns = await namespace('lr-conformance');
  const lr = await ts().request('POST', `${ns}/limitranges`, {
    body: {
      metadata: { name: 'limit-range' },
      spec: {
        limits: [
          {
            type: 'Container',
            min: list('50m', '100Mi', '100Gi'),
            max: list('500m', '500Mi', '500Gi'),
            default: list('500m', '500Mi', '500Gi'),
            defaultRequest: list('100m', '200Mi', '200Gi'),
            maxLimitRequestRatio: {},
          },
        ],
      },
    },
  });
  expect(lr.status).toBe(201);

  const bare = await ts().request('POST', `${ns}/pods`, { body: pod('pod-no-resources', {}, {}) });
  expect(bare.status).toBe(201);
  expect(bare.json.spec.containers[0].resources).toEqual({ requests: list('100m', '200Mi', '200Gi'), limits: list('500m', '500Mi', '500Gi') });
  expect(bare.json.metadata.annotations['k8s.io/limit-ranger']).toBe(
    'LimitRanger plugin set: cpu, ephemeral-storage, memory request for container pause; cpu, ephemeral-storage, memory limit for container pause',
  );

  // A limit without a request requests the limit (pod defaulting), so defaultRequest is not used for cpu.
  const partial = await ts().request('POST', `${ns}/pods`, { body: pod('pod-partial-resources', list('', '150Mi', '150Gi'), list('300m', '', '')) });
  expect(partial.status).toBe(201);
  expect(partial.json.spec.containers[0].resources).toEqual({ requests: list('300m', '150Mi', '150Gi'), limits: list('300m', '500Mi', '500Gi') });

  const small = await ts().request('POST', `${ns}/pods`, { body: pod('pfpod', list('10m', '50Mi', '50Gi'), {}) });
  expect(small.status).toBe(403);
  expect(small.json.reason).toBe('Forbidden');
  expect(small.json.message).toBe(
    'pods "pfpod" is forbidden: [minimum cpu usage per Container is 50m, but request is 10m, ' +
      'minimum ephemeral-storage usage per Container is 100Gi, but request is 50Gi, minimum memory usage per Container is 100Mi, but request is 50Mi]',
  );
  const big = await ts().request('POST', `${ns}/pods`, { body: pod('pfpod', list('600m', '600Mi', '600Gi'), {}) });
  expect(big.status).toBe(403);
  expect(big.json.message).toContain('maximum cpu usage per Container is 500m, but request is 600m');
  expect((await ts().request('GET', `${ns}/pods/pfpod`)).status).toBe(404);

  const current = (await ts().request('GET', `${ns}/limitranges/limit-range`)).json;
  current.spec.limits[0].min = list('9m', '49Mi', '49Gi');
  expect((await ts().request('PUT', `${ns}/limitranges/limit-range`, { body: current })).status).toBe(200);
  expect((await ts().request('POST', `${ns}/pods`, { body: pod('pfpod', list('10m', '50Mi', '50Gi'), {}) })).status).toBe(201);

  expect((await ts().request('DELETE', `${ns}/limitranges/limit-range`)).status).toBe(200);
  const after = await ts().request('POST', `${ns}/pods`, { body: pod('pfpod2', list('600m', '600Mi', '600Gi'), {}) });
  expect(after.status).toBe(201);
  expect(after.json.spec.containers[0].resources.limits).toBeUndefined();
  expect(after.json.metadata.annotations?.['k8s.io/limit-ranger']).toBeUndefined();
});

test('a limit range is defaulted as upstream: default from max, default request from default, then min', async () => {
  const ns = await namespace('lr-defaults');
  const lr = await ts().request('POST', `${ns}/limitranges`, {
    body: { metadata: { name: 'lr' }, spec: { limits: [{ type: 'Container', max: { cpu: '1' }, min: { memory: '10Mi' } }] } },
  });
  expect(lr.status).toBe(201);
  expect(lr.json.spec.limits[0]).toMatchObject({ default: { cpu: '1' }, defaultRequest: { cpu: '1', memory: '10Mi' } });
});

test('pod totals, init containers, ratios; updates and subresources are not checked', async () => {
  const ns = await namespace('lr-pod');
  const lr = await ts().request('POST', `${ns}/limitranges`, {
    body: {
      metadata: { name: 'lr' },
      spec: { limits: [{ type: 'Pod', max: { cpu: '1' } }, { type: 'Container', maxLimitRequestRatio: { memory: '2' } }] },
    },
  });
  expect(lr.status).toBe(201);
  const c = (name: string, cpu: string, memReq: string, memLim: string) => ({
    name,
    image: 'busybox',
    resources: { requests: { cpu, memory: memReq }, limits: { cpu, memory: memLim } },
  });
  const tooMuch = await ts().request('POST', `${ns}/pods`, {
    body: { metadata: { name: 'p' }, spec: { containers: [c('a', '600m', '1Gi', '2Gi'), c('b', '600m', '1Gi', '3Gi')] } },
  });
  expect(tooMuch.status).toBe(403);
  expect(tooMuch.json.message).toBe(
    'pods "p" is forbidden: [maximum cpu usage per Pod is 1, but limit is 1200m, memory max limit to request ratio per Container is 2, but provided ratio is 3.000000]',
  );
  // The largest init container counts when it is above the containers' sum.
  const init = await ts().request('POST', `${ns}/pods`, {
    body: { metadata: { name: 'p' }, spec: { initContainers: [c('i', '1500m', '1Gi', '1Gi')], containers: [c('a', '500m', '1Gi', '1Gi')] } },
  });
  expect(init.status).toBe(403);
  expect(init.json.message).toBe('pods "p" is forbidden: maximum cpu usage per Pod is 1, but limit is 1500m');
  const ok = await ts().request('POST', `${ns}/pods`, { body: { metadata: { name: 'p' }, spec: { containers: [c('a', '500m', '1Gi', '2Gi')] } } });
  expect(ok.status).toBe(201);
  const label = await ts().request('PATCH', `${ns}/pods/p`, { headers: { 'Content-Type': 'application/merge-patch+json' }, body: { metadata: { labels: { a: 'b' } } } });
  expect(label.status).toBe(200);
});

test('invalid sysctl names are 422 Invalid', async () => {
  const ns = await namespace('sysctls');
  const res = await ts().request('POST', `${ns}/pods`, {
    body: {
      metadata: { name: 'sysctl' },
      spec: {
        containers: [{ name: 'c', image: 'busybox' }],
        securityContext: { sysctls: [{ name: 'foo-', value: 'bar' }, { name: 'kernel.shmmax', value: '100000000' }, { name: 'bar..', value: '42' }] },
      },
    },
  });
  expect(res.status).toBe(422);
  expect(res.json.reason).toBe('Invalid');
  expect(res.json.details.causes.map((c: { field: string }) => c.field)).toEqual(['spec.securityContext.sysctls[0].name', 'spec.securityContext.sysctls[2].name']);
});
