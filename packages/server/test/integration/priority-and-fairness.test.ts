import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as http2Connect, constants as h2 } from 'node:http2';
import { useTestServer } from '../support/test-server.js';

/**
 * Issue 30: API priority and fairness. A flooding user in a small priority level gets 429s with
 * Retry-After while another user's requests are served promptly; every response names its flow
 * schema and priority level by UID; system:masters is exempt; the configuration is validated as
 * upstream; the controllers' leader keeps the default objects and the Dangling condition.
 */
const dir = mkdtempSync(join(tmpdir(), 'apf-test-'));
const tokenFile = join(dir, 'tokens.csv');
writeFileSync(tokenFile, ['flood-token,flooder,u1', 'quiet-token,quiet,u2'].join('\n') + '\n');
const ts = useTestServer([
  '--authorization-mode=RBAC',
  '--anonymous-auth=false',
  '--token-auth-file',
  tokenFile,
  '--max-requests-inflight=20',
  '--max-mutating-requests-inflight=10',
]);

const FC = '/apis/flowcontrol.apiserver.k8s.io/v1beta2';
const RBAC = 'rbac.authorization.k8s.io';
const CM = '/api/v1/namespaces/default/configmaps';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface H2Result {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  ms: number;
}

/** `count` concurrent GETs of `path` on one HTTP/2 connection, so they reach the server in one burst. */
async function burst(token: string, path: string, count: number): Promise<H2Result[]> {
  const session = http2Connect(ts().server.url, { ca: ts().server.caPem });
  session.on('error', () => undefined);
  try {
    return await Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise<H2Result>((resolve) => {
            const start = Date.now();
            const result: H2Result = { status: 0, headers: {}, body: '', ms: -1 };
            const stream = session.request({ ':method': 'GET', ':path': path, authorization: `Bearer ${token}` });
            const timer = setTimeout(() => stream.close(h2.NGHTTP2_CANCEL), 30_000);
            stream.on('response', (h) => {
              result.status = Number(h[h2.HTTP2_HEADER_STATUS]);
              result.headers = h as H2Result['headers'];
            });
            stream.setEncoding('utf8');
            stream.on('data', (d: string) => (result.body += d));
            stream.on('error', () => undefined);
            stream.on('close', () => {
              clearTimeout(timer);
              result.ms = Date.now() - start;
              resolve(result);
            });
            stream.end();
          }),
      ),
    );
  } finally {
    session.close();
  }
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await probe();
    if (v !== undefined) return v;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const uidOf = async (resource: string, name: string): Promise<string> => (await ts().request('GET', `${FC}/${resource}/${name}`)).json.metadata.uid;

beforeAll(async () => {
  const role = { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create'] }] };
  expect((await ts().request('POST', `/apis/${RBAC}/v1/clusterroles`, { body: role })).status).toBe(201);
  const binding = {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'cm-readers' },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'cm-reader' },
    subjects: ['flooder', 'quiet'].map((name) => ({ kind: 'User', apiGroup: RBAC, name })),
  };
  expect((await ts().request('POST', `/apis/${RBAC}/v1/clusterrolebindings`, { body: binding })).status).toBe(201);
  await waitFor('RBAC for quiet', async () => ((await ts().request('GET', CM, { token: 'quiet-token' })).status === 200 ? true : undefined));
  // The controllers' leader writes the bootstrap configuration.
  await waitFor('the default flow schemas', async () => {
    const r = await ts().request('GET', `${FC}/flowschemas`);
    return r.json.items?.length >= 12 ? true : undefined;
  });
}, 60_000);

describe('the configuration objects', () => {
  test('the mandatory and suggested objects are stored, annotated to auto-update', async () => {
    const schemas = (await ts().request('GET', `${FC}/flowschemas`)).json.items as Array<{ metadata: { name: string; annotations: Record<string, string> } }>;
    expect(schemas.map((s) => s.metadata.name).sort()).toEqual(
      expect.arrayContaining(['catch-all', 'exempt', 'global-default', 'kube-controller-manager', 'kube-scheduler', 'kube-system-service-accounts', 'probes', 'service-accounts', 'system-leader-election', 'system-node-high', 'system-nodes', 'workload-leader-election']),
    );
    expect(schemas.every((s) => s.metadata.annotations['apf.kubernetes.io/autoupdate-spec'] === 'true')).toBe(true);
    const levels = (await ts().request('GET', `${FC}/prioritylevelconfigurations`)).json.items as Array<{ metadata: { name: string } }>;
    expect(levels.map((l) => l.metadata.name).sort()).toEqual(['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']);
  });

  test('v1beta1 serves the same objects with a deprecation Warning', async () => {
    const r = await ts().request('GET', '/apis/flowcontrol.apiserver.k8s.io/v1beta1/flowschemas/exempt');
    expect(r.status).toBe(200);
    expect(r.json.apiVersion).toBe('flowcontrol.apiserver.k8s.io/v1beta1');
    expect(r.json.metadata.uid).toBe(await uidOf('flowschemas', 'exempt'));
    expect(String(r.headers['warning'])).toContain('flowcontrol.apiserver.k8s.io/v1beta1 FlowSchema is deprecated in v1.23+, unavailable in v1.26+; use flowcontrol.apiserver.k8s.io/v1beta2 FlowSchema');
  });

  test('invalid objects are 422 naming the field', async () => {
    const pl = {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta2',
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'bad' },
      spec: { type: 'Limited', limited: { assuredConcurrencyShares: 1, limitResponse: { type: 'Queue', queuing: { queues: 2, handSize: 3, queueLengthLimit: 1 } } } },
    };
    const r = await ts().request('POST', `${FC}/prioritylevelconfigurations`, { body: pl });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'Invalid', details: { causes: [{ field: 'spec.limited.limitResponse.queuing.handSize', reason: 'FieldValueInvalid' }] } });
    const fs = {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta2',
      kind: 'FlowSchema',
      metadata: { name: 'bad' },
      spec: { priorityLevelConfiguration: { name: 'global-default' }, rules: [{ subjects: [{ kind: 'Robot' }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] }] },
    };
    const f = await ts().request('POST', `${FC}/flowschemas`, { body: fs });
    expect(f.status).toBe(422);
    expect(f.json.details.causes).toEqual([expect.objectContaining({ field: 'spec.rules[0].subjects[0].kind', reason: 'FieldValueNotSupported' })]);
    // The mandatory objects' specs are fixed.
    const catchAll = (await ts().request('GET', `${FC}/flowschemas/catch-all`)).json;
    catchAll.spec.matchingPrecedence = 9000;
    const u = await ts().request('PUT', `${FC}/flowschemas/catch-all`, { body: catchAll });
    expect(u.status).toBe(422);
    expect(u.json.message).toContain("spec of 'catch-all' must equal the fixed value");
  });

  test('the keeper restores a suggested spec while its annotation is "true" and leaves it once "false"', async () => {
    const path = `${FC}/prioritylevelconfigurations/workload-low`;
    const shares = async () => (await ts().request('GET', path)).json.spec.limited.assuredConcurrencyShares as number;
    const low = (await ts().request('GET', path)).json;
    low.spec.limited.assuredConcurrencyShares = 7;
    expect((await ts().request('PUT', path, { body: low })).status).toBe(200);
    expect(await waitFor('the restored spec', async () => ((await shares()) === 100 ? true : undefined))).toBe(true);
    const mine = (await ts().request('GET', path)).json;
    mine.metadata.annotations['apf.kubernetes.io/autoupdate-spec'] = 'false';
    mine.spec.limited.assuredConcurrencyShares = 7;
    expect((await ts().request('PUT', path, { body: mine })).status).toBe(200);
    // The keeper looks again after every change; give it the time it took above, then some.
    await sleep(1500);
    expect(await shares()).toBe(7);
  }, 30_000);

  test('a flow schema naming a missing priority level is Dangling until the level exists', async () => {
    const fs = {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta2',
      kind: 'FlowSchema',
      metadata: { name: 'orphan' },
      spec: { priorityLevelConfiguration: { name: 'not-yet' }, matchingPrecedence: 7000, rules: [{ subjects: [{ kind: 'User', user: { name: 'nobody' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }] },
    };
    expect((await ts().request('POST', `${FC}/flowschemas`, { body: fs })).status).toBe(201);
    const dangling = (name: string, status: string) =>
      waitFor(`Dangling=${status}`, async () => {
        const c = (await ts().request('GET', `${FC}/flowschemas/${name}`)).json.status?.conditions?.find((x: { type: string }) => x.type === 'Dangling');
        return c?.status === status ? c : undefined;
      });
    expect(await dangling('orphan', 'True')).toMatchObject({ reason: 'NotFound' });
    const pl = {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta2',
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'not-yet' },
      spec: { type: 'Limited', limited: { assuredConcurrencyShares: 1, limitResponse: { type: 'Reject' } } },
    };
    expect((await ts().request('POST', `${FC}/prioritylevelconfigurations`, { body: pl })).status).toBe(201);
    expect(await dangling('orphan', 'False')).toMatchObject({ reason: 'Found' });
  }, 30_000);
});

describe('request handling', () => {
  let tinyUid = '';
  let flooderUid = '';
  beforeAll(async () => {
    // One seat (ceil(30 * 1 / 247)), one queue of two: the flooder's burst overflows at once.
    const pl = {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta2',
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'tiny' },
      spec: { type: 'Limited', limited: { assuredConcurrencyShares: 1, limitResponse: { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 2 } } } },
    };
    const created = await ts().request('POST', `${FC}/prioritylevelconfigurations`, { body: pl });
    expect(created.status).toBe(201);
    tinyUid = created.json.metadata.uid;
    const schema = (name: string, precedence: number, subjects: unknown[]) => ({
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta2',
      kind: 'FlowSchema',
      metadata: { name },
      spec: {
        priorityLevelConfiguration: { name: 'tiny' },
        matchingPrecedence: precedence,
        distinguisherMethod: { type: 'ByUser' },
        rules: [{ subjects, resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }],
      },
    });
    const fs = await ts().request('POST', `${FC}/flowschemas`, { body: schema('flooder', 500, [{ kind: 'User', user: { name: 'flooder' } }]) });
    expect(fs.status).toBe(201);
    flooderUid = fs.json.metadata.uid;
    // system:masters sent to the tiny level too: the exempt schema (precedence 1) still wins.
    expect((await ts().request('POST', `${FC}/flowschemas`, { body: schema('masters-too', 2, [{ kind: 'Group', group: { name: 'system:masters' } }]) })).status).toBe(201);
    await waitFor('the flooder schema in effect', async () => ((await ts().request('GET', CM, { token: 'flood-token' })).headers['x-kubernetes-pf-flowschema-uid'] === flooderUid ? true : undefined));
  }, 30_000);

  test('responses name the flow schema and priority level by UID', async () => {
    const quiet = await ts().request('GET', CM, { token: 'quiet-token' });
    expect(quiet.headers['x-kubernetes-pf-flowschema-uid']).toBe(await uidOf('flowschemas', 'global-default'));
    expect(quiet.headers['x-kubernetes-pf-prioritylevel-uid']).toBe(await uidOf('prioritylevelconfigurations', 'global-default'));
    const flood = await ts().request('GET', CM, { token: 'flood-token' });
    expect(flood.headers['x-kubernetes-pf-prioritylevel-uid']).toBe(tinyUid);
    const admin = await ts().request('GET', CM);
    expect(admin.headers['x-kubernetes-pf-flowschema-uid']).toBe(await uidOf('flowschemas', 'exempt'));
    expect(admin.headers['x-kubernetes-pf-prioritylevel-uid']).toBe(await uidOf('prioritylevelconfigurations', 'exempt'));
  });

  test('a flooding user gets 429 with Retry-After while another user is served promptly', async () => {
    const [flood, quiet] = await Promise.all([burst('flood-token', CM, 150), sleep(20).then(() => burst('quiet-token', CM, 20))]);
    const statuses = flood.map((r) => r.status);
    const rejected = flood.filter((r) => r.status === 429);
    // The flood is served, up to its level's seat and queue, and the rest rejected.
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    expect(rejected.length).toBeGreaterThan(50);
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    expect(rejected[0]!.headers['retry-after']).toBe('1');
    expect(JSON.parse(rejected[0]!.body)).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'TooManyRequests', code: 429, message: 'Too many requests, please try again later.' });
    expect(rejected[0]!.headers['x-kubernetes-pf-flowschema-uid']).toBe(flooderUid);
    expect(quiet.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(Math.max(...quiet.map((r) => r.ms))).toBeLessThan(5_000);
  }, 60_000);

  test('system:masters is exempt: a burst of its requests never waits or fails', async () => {
    const admin = await burst(ts().server.adminToken, CM, 150);
    expect(admin.map((r) => r.status)).toEqual(Array(150).fill(200));
  }, 60_000);

  test('the flowcontrol metrics are published', async () => {
    const text = (await ts().request('GET', '/metrics')).text;
    expect(text).toMatch(/apiserver_flowcontrol_rejected_requests_total\{priority_level="tiny",flow_schema="flooder",reason="queue-full"\} [1-9]/);
    expect(text).toMatch(/apiserver_flowcontrol_dispatched_requests_total\{priority_level="tiny",flow_schema="flooder"\} [1-9]/);
    expect(text).toMatch(/apiserver_flowcontrol_nominal_limit_seats\{priority_level="tiny"\} 1\b/);
    expect(text).toMatch(/apiserver_flowcontrol_nominal_limit_seats\{priority_level="global-default"\} \d+/);
    expect(text).toMatch(/apiserver_flowcontrol_current_inqueue_requests\{priority_level="tiny",flow_schema="flooder"\} 0/);
    expect(text).toMatch(/apiserver_flowcontrol_current_executing_requests\{priority_level="tiny",flow_schema="flooder"\} 0/);
    expect(text).toMatch(/apiserver_flowcontrol_request_wait_duration_seconds_bucket\{le="[^"]+",priority_level="tiny",flow_schema="flooder",execute="true"\}/);
  });

  test('the debug dumps answer who may read them', async () => {
    const levels = await ts().request('GET', '/debug/api_priority_and_fairness/dump_priority_levels');
    expect(levels.status).toBe(200);
    expect(levels.text.split('\n')[0]).toBe('PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests, DispatchedRequests, RejectedRequests, TimedoutRequests, CancelledRequests');
    expect(levels.text).toMatch(/^tiny, 0, true, false, 0, 0, [1-9]\d*, [1-9]\d*, 0, \d+$/m);
    const queues = await ts().request('GET', '/debug/api_priority_and_fairness/dump_queues');
    expect(queues.status).toBe(200);
    expect(queues.text).toMatch(/^tiny, 0, 0, 0, 0, /m);
    expect((await ts().request('GET', '/debug/api_priority_and_fairness/dump_queues', { token: 'quiet-token' })).status).toBe(403);
  });

  test('a request whose deadline passes while it waits is answered 504 and leaves its queue', async () => {
    // The flooder's POST whose body never comes holds the level's one seat (authorized, it waits
    // for the body) until its own deadline, 8 s.
    const session = http2Connect(ts().server.url, { ca: ts().server.caPem });
    session.on('error', () => undefined);
    try {
      const held = session.request({ ':method': 'POST', ':path': `${CM}?timeout=8s`, authorization: 'Bearer flood-token', 'content-type': 'application/json', 'content-length': '100' }, { endStream: false });
      held.on('error', () => undefined);
      const dump = async () => (await ts().request('GET', '/debug/api_priority_and_fairness/dump_priority_levels')).text;
      await waitFor('the held seat', async () => (/^tiny, \d+, false, false, 0, 1, /m.test(await dump()) ? true : undefined), 5_000);
      const started = Date.now();
      const [waited] = await burst('flood-token', `${CM}?timeout=1s`, 1);
      expect(waited!.status).toBe(504);
      expect(Date.now() - started).toBeLessThan(4_000);
      // Out of the queue at once, though the seat is still held: nothing waits, one executes.
      expect(await dump()).toMatch(/^tiny, \d+, false, false, 0, 1, /m);
      const text = (await ts().request('GET', '/metrics')).text;
      expect(text).toMatch(/apiserver_flowcontrol_rejected_requests_total\{priority_level="tiny",flow_schema="flooder",reason="cancelled"\} [1-9]/);
      held.close(h2.NGHTTP2_CANCEL);
    } finally {
      session.destroy();
    }
  }, 30_000);

  test('unauthenticated requests are answered 401 before classification and take no seat', async () => {
    const unauthenticated = await burst('no-such-token', CM, 50);
    expect(unauthenticated.map((r) => r.status)).toEqual(Array(50).fill(401));
    expect(unauthenticated.every((r) => r.headers['x-kubernetes-pf-flowschema-uid'] === undefined)).toBe(true);
  });
});
