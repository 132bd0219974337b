import { useTestServer } from '../support/test-server.js';

const ts = useTestServer(['--controllers=-namespace']);

const path = '/api/v1/namespaces/default/configmaps/applied';
const apply = (yaml: string, query: string) =>
  ts().request('PATCH', `${path}?${query}`, { body: yaml, headers: { 'Content-Type': 'application/apply-patch+yaml' } });
const manifest = (data: Record<string, string>) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n${Object.entries(data)
    .map(([k, v]) => `  ${k}: "${v}"`)
    .join('\n')}\n`;

describe('server-side apply (SPEC 4.8)', () => {
  test('apply creates the object and records an Apply entry', async () => {
    const res = await apply(manifest({ a: '1', b: '2' }), 'fieldManager=mgr-a');
    expect(res.status).toBe(201);
    const entry = res.json.metadata.managedFields.find((e: { manager: string }) => e.manager === 'mgr-a');
    expect(entry).toMatchObject({ operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1' });
    expect(entry.fieldsV1).toEqual({ 'f:data': { 'f:a': {}, 'f:b': {} } });
    expect(entry.time).toMatch(/Z$/);
  });

  test('a second manager changing an owned field conflicts (409), then wins with force', async () => {
    const conflict = await apply(manifest({ a: 'x' }), 'fieldManager=mgr-b');
    expect(conflict.status).toBe(409);
    expect(conflict.json).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    expect(conflict.json.message).toContain('conflict with "mgr-a"');
    expect(conflict.json.details.causes).toEqual([
      expect.objectContaining({ reason: 'FieldManagerConflict', field: '.data.a' }),
    ]);
    const forced = await apply(manifest({ a: 'x' }), 'fieldManager=mgr-b&force=true');
    expect(forced.status).toBe(200);
    expect(forced.json.data).toEqual({ a: 'x', b: '2' });
    const owners = Object.fromEntries(
      forced.json.metadata.managedFields.map((e: { manager: string; fieldsV1: unknown }) => [e.manager, e.fieldsV1]),
    );
    expect(owners['mgr-b']).toEqual({ 'f:data': { 'f:a': {} } });
    expect(owners['mgr-a']).toEqual({ 'f:data': { 'f:b': {} } });
  });

  test('the same value is shared without conflict; dropping a field nobody else owns removes it', async () => {
    const shared = await apply(manifest({ a: 'x', b: '2' }), 'fieldManager=mgr-b');
    expect(shared.status).toBe(200);
    const dropped = await apply(manifest({ a: 'x' }), 'fieldManager=mgr-a');
    expect(dropped.status).toBe(200);
    // b is still owned by mgr-b (shared), so it stays.
    expect(dropped.json.data).toEqual({ a: 'x', b: '2' });
    const dropAgain = await apply(manifest({ a: 'x' }), 'fieldManager=mgr-b');
    expect(dropAgain.json.data).toEqual({ a: 'x' });
  });

  test('non-apply writes record Update entries for their manager', async () => {
    const res = await ts().request('PATCH', `${path}?fieldManager=editor`, {
      body: { data: { c: '3' } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(res.status).toBe(200);
    const entry = res.json.metadata.managedFields.find((e: { manager: string }) => e.manager === 'editor');
    expect(entry).toMatchObject({ operation: 'Update', fieldsV1: { 'f:data': { 'f:c': {} } } });
  });

  test('managedFields: [{}] resets ownership', async () => {
    const current = (await ts().request('GET', path)).json;
    const res = await ts().request('PUT', `${path}?fieldManager=resetter`, {
      body: { ...current, metadata: { ...current.metadata, managedFields: [{}] } },
    });
    expect(res.status).toBe(200);
    const managers = (res.json.metadata.managedFields ?? []).map((e: { manager: string }) => e.manager);
    expect(managers).not.toContain('mgr-a');
    expect(managers).not.toContain('mgr-b');
  });

  test('apply without fieldManager or with managedFields in the body is refused', async () => {
    const noManager = await apply(manifest({ a: '1' }), '');
    expect(noManager.status).toBe(422);
    expect(noManager.json.message).toContain('fieldManager: Required value');
    const withMf = await apply(`${manifest({ a: '1' })}`.replace('  name: applied\n', '  name: applied\n  managedFields: [{manager: x}]\n'), 'fieldManager=m');
    expect(withMf.status).toBe(400);
    expect(withMf.json.message).toContain('metadata.managedFields must be nil');
  });

  test('force on a non-apply patch is refused', async () => {
    const res = await ts().request('PATCH', `${path}?force=true`, {
      body: { data: { z: '1' } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(res.status).toBe(422);
  });

  test('patch of a missing object is 404, apply creates', async () => {
    const res = await ts().request('PATCH', '/api/v1/namespaces/default/configmaps/none', {
      body: { data: { z: '1' } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(res.status).toBe(404);
  });

  test('an unknown patch content type is 415', async () => {
    const res = await ts().request('PATCH', path, { body: '{}', headers: { 'Content-Type': 'application/xml' } });
    expect(res.status).toBe(415);
  });
});

// The watch cache holds equal managedFields, labels and fieldsV1 of different objects once
// (issue 33): a write to one object must leave every other object's reads as they were.
describe('objects whose metadata the watch cache shares', () => {
  const twin = (name: string) => `/api/v1/namespaces/default/configmaps/${name}`;
  const body = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'twins' } }, data: { k: 'v' } });

  test('apply and update of one leave the other byte for byte the same', async () => {
    for (const name of ['twin-a', 'twin-b']) {
      const res = await ts().request('POST', '/api/v1/namespaces/default/configmaps?fieldManager=twins', { body: body(name) });
      expect(res.status).toBe(201);
    }
    // Both from the cache, once it has both (rv=0 reads are served by it and may be stale: until the
    // cache has twin-b they answer a 404 Status, whose details also name twin-b).
    const cached = async (name: string): Promise<string> => {
      const res = await ts().request('GET', `${twin(name)}?resourceVersion=0`);
      return res.status === 200 ? res.text : '';
    };
    let before = '';
    for (let i = 0; i < 100 && before === ''; i++) {
      before = await cached('twin-b');
      if (before === '') await new Promise((r) => setTimeout(r, 50));
    }
    expect(before).not.toBe('');
    expect(JSON.parse(before).metadata.managedFields[0].fieldsV1).toEqual({ 'f:data': { '.': {}, 'f:k': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } });
    const applied = await ts().request('PATCH', `${twin('twin-a')}?fieldManager=other&force=true`, {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: twin-a\n  labels:\n    app: changed\ndata:\n  k: w\n  j: x\n',
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    expect(applied.status).toBe(200);
    const updated = await ts().request('PATCH', `${twin('twin-a')}?fieldManager=twins`, {
      body: { metadata: { labels: { extra: 'yes' } }, data: { l: 'y' } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(updated.status).toBe(200);
    const rv = updated.json.metadata.resourceVersion as string;
    // Wait until the cache has the update of twin-a, then read twin-b from it again.
    let cachedRv = '';
    for (let i = 0; i < 100 && cachedRv !== rv; i++) {
      const a = await cached('twin-a');
      cachedRv = a === '' ? '' : (JSON.parse(a).metadata.resourceVersion as string);
      if (cachedRv !== rv) await new Promise((r) => setTimeout(r, 50));
    }
    expect(cachedRv).toBe(rv);
    expect(await cached('twin-b')).toBe(before);
    const list = await ts().request('GET', '/api/v1/namespaces/default/configmaps?resourceVersion=0&labelSelector=app%3Dtwins');
    const items = list.json.items as { metadata: { name: string }; data: unknown }[];
    expect(items.map((i) => i.metadata.name)).toEqual(['twin-b']);
    const b = JSON.parse(before) as { metadata: unknown; data: unknown };
    expect(JSON.stringify([items[0]!.metadata, items[0]!.data])).toBe(JSON.stringify([b.metadata, b.data]));
  });
});
