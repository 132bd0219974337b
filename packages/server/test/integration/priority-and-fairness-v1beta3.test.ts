import { useTestServer } from '../support/test-server.js';

/**
 * flowcontrol v1beta3 (upstream 1.26's shape, on through --runtime-config): priority levels name
 * their shares nominalConcurrencyShares and round-trip with v1beta2's assuredConcurrencyShares
 * over the same stored objects; flow schemas are as in v1beta2.
 */
const ts = useTestServer(['--runtime-config=flowcontrol.apiserver.k8s.io/v1beta3=true']);
const G = '/apis/flowcontrol.apiserver.k8s.io';

test('when turned on, v1beta3 is served beside v1beta2 and v1beta1 and preferred, as in upstream 1.26', async () => {
  const group = (await ts().request('GET', '/apis/flowcontrol.apiserver.k8s.io')).json;
  expect(group.versions.map((v: { version: string }) => v.version)).toEqual(expect.arrayContaining(['v1beta3', 'v1beta2', 'v1beta1']));
  expect(group.preferredVersion.version).toBe('v1beta3');
});

test('priority levels round-trip between v1beta3 and v1beta2', async () => {
  const pl = {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta3',
    kind: 'PriorityLevelConfiguration',
    metadata: { name: 'three' },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 7, limitResponse: { type: 'Queue', queuing: { queues: 8, handSize: 2, queueLengthLimit: 10 } } } },
  };
  const created = await ts().request('POST', `${G}/v1beta3/prioritylevelconfigurations`, { body: pl });
  expect(created.status).toBe(201);
  expect(created.json.apiVersion).toBe('flowcontrol.apiserver.k8s.io/v1beta3');
  expect(created.json.spec.limited).toEqual({ nominalConcurrencyShares: 7, limitResponse: { type: 'Queue', queuing: { queues: 8, handSize: 2, queueLengthLimit: 10 } } });
  const asV2 = (await ts().request('GET', `${G}/v1beta2/prioritylevelconfigurations/three`)).json;
  expect(asV2.spec.limited.assuredConcurrencyShares).toBe(7);
  expect(asV2.spec.limited.nominalConcurrencyShares).toBeUndefined();
  // Defaults apply through v1beta3 too (shares 30).
  const defaulted = await ts().request('POST', `${G}/v1beta3/prioritylevelconfigurations`, {
    body: { ...pl, metadata: { name: 'defaulted' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } },
  });
  expect(defaulted.json.spec.limited.nominalConcurrencyShares).toBe(30);
  const list = (await ts().request('GET', `${G}/v1beta3/prioritylevelconfigurations`)).json;
  const three = list.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'three');
  expect(three.spec.limited.nominalConcurrencyShares).toBe(7);
  // An update through v1beta2 is seen through v1beta3.
  asV2.spec.limited.assuredConcurrencyShares = 9;
  expect((await ts().request('PUT', `${G}/v1beta2/prioritylevelconfigurations/three`, { body: asV2 })).status).toBe(200);
  expect((await ts().request('GET', `${G}/v1beta3/prioritylevelconfigurations/three`)).json.spec.limited.nominalConcurrencyShares).toBe(9);
});

test('v1beta3 errors name v1beta3 fields', async () => {
  const r = await ts().request('POST', `${G}/v1beta3/prioritylevelconfigurations`, {
    body: {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta3',
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'bad' },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: -1, limitResponse: { type: 'Reject' } } },
    },
  });
  expect(r.status).toBe(422);
  expect(r.json.details.causes).toEqual([expect.objectContaining({ field: 'spec.limited.nominalConcurrencyShares', reason: 'FieldValueInvalid' })]);
});

test('flow schemas are served at v1beta3 over the same objects', async () => {
  // The controllers' leader writes the mandatory schemas shortly after start-up.
  let fs = await ts().request('GET', `${G}/v1beta3/flowschemas/exempt`);
  for (let i = 0; i < 200 && fs.status === 404; i++) {
    await new Promise((r) => setTimeout(r, 100));
    fs = await ts().request('GET', `${G}/v1beta3/flowschemas/exempt`);
  }
  expect(fs.status).toBe(200);
  expect(fs.json.apiVersion).toBe('flowcontrol.apiserver.k8s.io/v1beta3');
  expect(fs.json.spec.matchingPrecedence).toBe(1);
}, 30_000);
