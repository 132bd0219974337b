import { useTestServer } from '../support/test-server.js';

const ts = useTestServer();

const cm = (name: string, data: Record<string, string> = { a: 'b' }, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
  ...extra,
});

describe('ConfigMaps over HTTPS against a real etcd', () => {
  test('create, get, list, update, delete', async () => {
    const created = await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('crud') });
    expect(created.status).toBe(201);
    expect(created.json.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.json.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const rv = created.json.metadata.resourceVersion;
    expect(rv).toMatch(/^\d+$/);

    const got = await ts().request('GET', '/api/v1/namespaces/default/configmaps/crud');
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } });

    const list = await ts().request('GET', '/api/v1/namespaces/default/configmaps');
    expect(list.json.kind).toBe('ConfigMapList');
    expect(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toContain('crud');

    const updated = await ts().request('PUT', '/api/v1/namespaces/default/configmaps/crud', {
      body: { ...got.json, data: { a: 'c' } },
    });
    expect(updated.status).toBe(200);
    expect(Number(updated.json.metadata.resourceVersion)).toBeGreaterThan(Number(rv));

    const del = await ts().request('DELETE', '/api/v1/namespaces/default/configmaps/crud');
    expect(del.status).toBe(200);
    expect(del.json).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'crud', kind: 'configmaps' } });
    const gone = await ts().request('GET', '/api/v1/namespaces/default/configmaps/crud');
    expect(gone.status).toBe(404);
    expect(gone.json).toMatchObject({ reason: 'NotFound', message: 'configmaps "crud" not found' });
  });

  test('two concurrent PUTs with the same resourceVersion: one wins, one is 409 Conflict', async () => {
    const created = await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('race') });
    const base = created.json;
    const [a, b] = await Promise.all([
      ts().request('PUT', '/api/v1/namespaces/default/configmaps/race', { body: { ...base, data: { who: 'a' } } }),
      ts().request('PUT', '/api/v1/namespaces/default/configmaps/race', { body: { ...base, data: { who: 'b' } } }),
    ]);
    const codes = [a.status, b.status].sort();
    expect(codes).toEqual([200, 409]);
    const loser = a.status === 409 ? a : b;
    expect(loser.json).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    expect(loser.json.message).toContain('the object has been modified');
    const winner = a.status === 200 ? a : b;
    const now = await ts().request('GET', '/api/v1/namespaces/default/configmaps/race');
    expect(now.json.data).toEqual(winner.json.data);
  });

  test('creating an existing name is 409 AlreadyExists', async () => {
    await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('dup') });
    const again = await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('dup') });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ reason: 'AlreadyExists', message: 'configmaps "dup" already exists' });
  });

  test('PUT of a missing object creates it (201)', async () => {
    const put = await ts().request('PUT', '/api/v1/namespaces/default/configmaps/put-created', { body: cm('put-created') });
    expect(put.status).toBe(201);
  });

  test('generateName gives a unique name', async () => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } };
    const a = await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body });
    const b = await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body });
    expect(a.status).toBe(201);
    expect(a.json.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
    expect(b.json.metadata.name).not.toBe(a.json.metadata.name);
  });

  test.each([
    ['bad key', cm('bad-key', { 'a b': 'x' }), 'data[a b]'],
    ['overlapping data and binaryData', cm('overlap', { k: 'x' }, { binaryData: { k: 'eA==' } }), 'data[k]'],
    ['bad name', cm('Bad_Name'), 'metadata.name'],
    ['bad label', cm('bad-label', {}, { metadata: { name: 'bad-label', labels: { 'a b': 'x' } } }), 'metadata.labels'],
    ['too big', cm('too-big', { big: 'x'.repeat(1024 * 1024 + 1) }), '[]'],
  ])('%s is 422 Invalid and nothing is stored', async (_name, body, field) => {
    const res = await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422 });
    expect(res.json.details.causes.map((c: { field: string }) => c.field)).toContain(field);
    const name = (body.metadata as { name: string }).name;
    const after = await ts().request('GET', `/api/v1/namespaces/default/configmaps/${name}`);
    expect(after.status).toBe(404);
  });

  test('immutable ConfigMaps keep their data and cannot become mutable', async () => {
    const created = await ts().request('POST', '/api/v1/namespaces/default/configmaps', {
      body: cm('frozen', { a: 'b' }, { immutable: true }),
    });
    expect(created.status).toBe(201);
    const change = await ts().request('PUT', '/api/v1/namespaces/default/configmaps/frozen', {
      body: { ...created.json, data: { a: 'c' } },
    });
    expect(change.status).toBe(422);
    const unset = await ts().request('PUT', '/api/v1/namespaces/default/configmaps/frozen', {
      body: { ...created.json, immutable: false },
    });
    expect(unset.status).toBe(422);
    const relabel = await ts().request('PUT', '/api/v1/namespaces/default/configmaps/frozen', {
      body: { ...created.json, metadata: { ...created.json.metadata, labels: { x: 'y' } } },
    });
    expect(relabel.status).toBe(200);
    const now = await ts().request('GET', '/api/v1/namespaces/default/configmaps/frozen');
    expect(now.json.data).toEqual({ a: 'b' });
  });

  test('creating in a missing namespace is 404 for the namespace', async () => {
    const res = await ts().request('POST', '/api/v1/namespaces/nowhere/configmaps', { body: cm('x') });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ reason: 'NotFound', message: 'namespaces "nowhere" not found' });
  });

  test('label and field selectors', async () => {
    for (const [name, tier] of [['sel-a', 'web'], ['sel-b', 'db'], ['sel-c', 'web']] as const) {
      await ts().request('POST', '/api/v1/namespaces/default/configmaps', {
        body: { ...cm(name), metadata: { name, labels: { tier } } },
      });
    }
    const names = async (q: string) =>
      (await ts().request('GET', `/api/v1/namespaces/default/configmaps?${q}`)).json.items.map(
        (i: { metadata: { name: string } }) => i.metadata.name,
      );
    expect(await names('labelSelector=tier%3Dweb')).toEqual(['sel-a', 'sel-c']);
    expect(await names('labelSelector=tier!%3Dweb,tier')).toEqual(['sel-b']);
    expect(await names('labelSelector=tier%20in%20(db)')).toEqual(['sel-b']);
    expect(await names('labelSelector=tier%20notin%20(db),tier')).toEqual(['sel-a', 'sel-c']);
    expect(await names('labelSelector=!tier&fieldSelector=metadata.name%3Dsel-a')).toEqual([]);
    expect(await names('fieldSelector=metadata.name%3Dsel-b')).toEqual(['sel-b']);
    const bad = await ts().request('GET', '/api/v1/namespaces/default/configmaps?fieldSelector=data.x%3Dy');
    expect(bad.status).toBe(400);
    const badLabel = await ts().request('GET', '/api/v1/namespaces/default/configmaps?labelSelector=a%20in%20b');
    expect(badLabel.status).toBe(400);
  });
});

describe('errors are upstream Status objects', () => {
  test('malformed JSON is 400', async () => {
    const res = await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body: '{"metadata":' });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
  });
  test('wrong kind in the body is 400', async () => {
    const res = await ts().request('POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } },
    });
    expect(res.status).toBe(400);
  });
  test('name in the body differing from the URL is 400', async () => {
    const res = await ts().request('PUT', '/api/v1/namespaces/default/configmaps/one', { body: cm('two') });
    expect(res.status).toBe(400);
    expect(res.json.message).toContain('does not match the name on the URL');
  });
  test('namespace in the body differing from the URL is 400', async () => {
    const res = await ts().request('POST', '/api/v1/namespaces/default/configmaps', {
      body: { ...cm('nsx'), metadata: { name: 'nsx', namespace: 'cluster-system' } },
    });
    expect(res.status).toBe(400);
  });
  test('unknown resource is 404', async () => {
    const res = await ts().request('GET', '/api/v1/namespaces/default/widgets');
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ kind: 'Status', reason: 'NotFound' });
  });
  test('POST to a named object is 405', async () => {
    const res = await ts().request('POST', '/api/v1/namespaces/default/configmaps/x', { body: cm('x') });
    expect(res.status).toBe(405);
    expect(res.json).toMatchObject({ reason: 'MethodNotAllowed' });
  });
  test('PUT or PATCH of a collection is 405', async () => {
    const put = await ts().request('PUT', '/api/v1/namespaces/default/configmaps', { body: cm('x') });
    expect(put.status).toBe(405);
    const patch = await ts().request('PATCH', '/api/v1/namespaces/default/configmaps', {
      body: {},
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(patch.status).toBe(405);
  });
  test('an Accept nothing can satisfy is 406; pretty output is indented', async () => {
    const res = await ts().request('GET', '/api/v1/namespaces/default/configmaps', { headers: { Accept: 'text/html' } });
    expect(res.status).toBe(406);
    expect(res.json).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    const pretty = await ts().request('GET', '/api/v1/namespaces/default?pretty=true');
    expect(pretty.text).toMatch(/^\{\n  "kind": "Namespace"|^\{\n  "apiVersion"/);
  });
  test('a body over 3 MiB is 413', async () => {
    const res = await ts().request('POST', '/api/v1/namespaces/default/configmaps', {
      body: cm('huge', { big: 'x'.repeat(3 * 1024 * 1024 + 10) }),
    });
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ reason: 'RequestEntityTooLarge' });
  });
  test('a timeout parameter that is not a Go duration is 400 on any path; 0s and one over --request-timeout are served', async () => {
    for (const path of ['/version?timeout=invalid', '/api/v1/namespaces/default/configmaps?timeout=5']) {
      const bad = await ts().request('GET', path);
      expect(bad.status).toBe(400);
      expect(bad.json).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
      expect(bad.json.message).toContain('invalid timeout specified in the request URL');
    }
    expect((await ts().request('GET', '/version?timeout=invalid')).json.message).toBe(
      'invalid timeout specified in the request URL - time: invalid duration "invalid"',
    );
    for (const timeout of ['3m', '0s', '-1s', '30s']) {
      expect((await ts().request('GET', `/version?timeout=${timeout}`)).status).toBe(200);
      expect((await ts().request('GET', `/api/v1/namespaces/default/configmaps?timeout=${timeout}`)).status).toBe(200);
    }
    // Watches are long-running: the parameter is not theirs to check.
    const watch = await ts().request('GET', '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1&timeout=invalid');
    expect(watch.status).toBe(200);
  });
  test('JSON responses say application/json as upstream does, without a charset parameter', async () => {
    await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('content-type-check') });
    const responses = [
      await ts().request('GET', '/api/v1/namespaces/default/configmaps/content-type-check'),
      await ts().request('GET', '/api/v1/namespaces/default/configmaps'),
      await ts().request('GET', '/api/v1/namespaces/default/configmaps/missing'),
      await ts().request('GET', '/api/v1'),
      await ts().request('GET', '/version'),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 200, 404, 200, 200]);
    for (const r of responses) expect(r.headers['content-type']).toBe('application/json');
  });
  test('an unknown content type is 415', async () => {
    const res = await ts().request('POST', '/api/v1/namespaces/default/configmaps', {
      body: 'name: x',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.json).toMatchObject({ reason: 'UnsupportedMediaType' });
  });
  test('no credential is 401 under the default AlwaysAllow mode (anonymous off, SPEC 5.4), health stays open', async () => {
    const res = await ts().request('GET', '/api/v1/namespaces', { token: null });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized' });
    expect((await ts().request('GET', '/readyz', { token: null })).status).toBe(200);
  });
  test('an invalid bearer token is 401', async () => {
    const res = await ts().request('GET', '/api/v1/namespaces', { token: 'nope' });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });
  test('a stale resourceVersion on delete preconditions is 409', async () => {
    const created = await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('pre') });
    const res = await ts().request('DELETE', '/api/v1/namespaces/default/configmaps/pre', {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: '1' } },
    });
    expect(res.status).toBe(409);
    const ok = await ts().request('DELETE', '/api/v1/namespaces/default/configmaps/pre', {
      body: { preconditions: { uid: created.json.metadata.uid } },
    });
    expect(ok.status).toBe(200);
  });
});

describe('namespaces, discovery, health and metrics', () => {
  test('built-in namespaces exist', async () => {
    const res = await ts().request('GET', '/api/v1/namespaces');
    const names = res.json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    expect(names).toEqual(expect.arrayContaining(['default', 'cluster-system', 'cluster-public', 'cluster-node-lease']));
  });
  test('discovery documents', async () => {
    expect((await ts().request('GET', '/api')).json).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const v1 = (await ts().request('GET', '/api/v1')).json;
    expect(v1.kind).toBe('APIResourceList');
    expect(v1.resources.map((r: { name: string }) => r.name)).toEqual(expect.arrayContaining(['configmaps', 'namespaces']));
    expect((await ts().request('GET', '/version')).json).toMatchObject({ major: '1' });
    expect((await ts().request('GET', '/openapi/v3')).json.paths['api/v1']).toBeDefined();
    expect((await ts().request('GET', '/openapi/v2')).json.swagger).toBe('2.0');
  });
  test('health endpoints', async () => {
    const live = await ts().request('GET', '/livez?verbose', { token: null });
    expect(live.status).toBe(200);
    expect(live.text).toContain('[+]etcd ok');
    expect(live.text.trim().endsWith('livez check passed')).toBe(true);
    expect((await ts().request('GET', '/readyz/etcd')).text).toBe('ok');
    expect((await ts().request('GET', '/healthz')).text).toBe('ok');
    const excluded = await ts().request('GET', '/readyz?verbose&exclude=etcd');
    expect(excluded.text).toContain('[+]etcd excluded: ok');
    // The post-start hooks (SPEC 4.9) have run by the time the replica serves.
    for (const hook of ['start-system-namespaces-controller', 'rbac/bootstrap-roles', 'informer-sync', 'bootstrap-controller']) {
      expect(excluded.text).toContain(`[+]poststarthook/${hook} ok`);
    }
    expect(excluded.text).toContain('[+]shutdown ok');
  });
  test('metrics count requests by verb, resource and code', async () => {
    await ts().request('GET', '/api/v1/namespaces/default/configmaps');
    const res = await ts().request('GET', '/metrics');
    expect(res.text).toMatch(/apiserver_request_total\{[^}]*verb="LIST"[^}]*resource="configmaps"[^}]*scope="namespace"[^}]*code="200"\} \d+/);
    expect(res.text).toContain('apiserver_request_duration_seconds_bucket');
    // Stability classes as upstream labels them (SPEC 9.3 rule 9).
    expect(res.text).toMatch(/^# HELP apiserver_request_total \[STABLE\] /m);
    expect(res.text).toMatch(/^# HELP etcd_request_duration_seconds \[ALPHA\] /m);
  });
  test('metrics: stored objects per resource from the watch caches, requests in flight per kind', async () => {
    const metric = (text: string, series: string): number | undefined => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    const countOf = async (path: string) => ((await ts().request('GET', path)).json as { items: unknown[] }).items.length;
    for (let i = 0; i < 3; i++) await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body: cm(`stored-count-${i}`) });
    // The caches see writes through their etcd watch: the count follows shortly.
    const expected = await countOf('/api/v1/configmaps');
    let text = '';
    for (let attempt = 0; attempt < 50; attempt++) {
      text = (await ts().request('GET', '/metrics')).text;
      if (metric(text, 'apiserver_storage_objects{resource="configmaps"}') === expected) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(metric(text, 'apiserver_storage_objects{resource="configmaps"}')).toBe(expected);
    expect(metric(text, 'apiserver_storage_objects{resource="namespaces"}')).toBe(await countOf('/api/v1/namespaces'));
    // The creates and the quorum reads above went to etcd.
    expect(metric(text, 'etcd_request_duration_seconds_count{operation="create",type="configmaps"}')).toBeGreaterThanOrEqual(3);
    expect(text).toMatch(/etcd_request_duration_seconds_bucket\{le="0\.005",operation="(get|list|count)",type="configmaps"\} \d+/);
    // The scrape itself is a read-only request in flight.
    expect(metric(text, 'apiserver_current_inflight_requests{request_kind="readOnly"}')).toBeGreaterThanOrEqual(1);
    expect(metric(text, 'apiserver_current_inflight_requests{request_kind="mutating"}')).toBeGreaterThanOrEqual(0);
  });
});
