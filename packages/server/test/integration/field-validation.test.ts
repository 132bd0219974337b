import { useTestServer } from '../support/test-server.js';

const ts = useTestServer(['--controllers=-namespace']);

const create = (body: string, query = '') =>
  ts().request('POST', `/api/v1/namespaces/default/configmaps${query}`, { body, headers: { 'Content-Type': 'application/json' } });
const warningsOf = (h: string | string[] | undefined) => (h === undefined ? [] : Array.isArray(h) ? h : [h]);

describe('field validation (SPEC 4.7)', () => {
  test('Warn (default): one Warning header per unknown or duplicate field, object stored without them', async () => {
    const res = await create('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"warned"},"data":{"a":"b"},"spec":{"x":1},"data":{"a":"c"}}');
    expect(res.status).toBe(201);
    // Node joins repeated Warning headers with ", ".
    const warnings = warningsOf(res.headers.warning).join(', ');
    expect(warnings).toContain('299 - "unknown field \\"spec\\""');
    expect(warnings).toContain('299 - "duplicate field \\"data\\""');
    expect(res.json.spec).toBeUndefined();
    expect(res.json.data).toEqual({ a: 'c' });
  });

  test('Strict: 400 naming every unknown and duplicate field; nothing stored', async () => {
    const res = await create('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"strict","name":"strict"},"spec":{"x":1},"bogus":true}', '?fieldValidation=Strict');
    expect(res.status).toBe(400);
    expect(res.json.reason).toBe('BadRequest');
    expect(res.json.message).toContain('strict decoding error');
    expect(res.json.message).toContain('unknown field "spec"');
    expect(res.json.message).toContain('unknown field "bogus"');
    expect(res.json.message).toContain('duplicate field "metadata.name"');
    expect((await ts().request('GET', '/api/v1/namespaces/default/configmaps/strict')).status).toBe(404);
  });

  test('Ignore: no warnings, unknown fields dropped', async () => {
    const res = await create('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ignored"},"spec":{}}', '?fieldValidation=Ignore');
    expect(res.status).toBe(201);
    expect(res.headers.warning).toBeUndefined();
    expect(res.json.spec).toBeUndefined();
  });

  test('a wrong value type is 400 whatever the directive', async () => {
    const res = await create('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"typed"},"data":{"a":1}}', '?fieldValidation=Ignore');
    expect(res.status).toBe(400);
    expect(res.json.message).toContain('cannot unmarshal number into Go struct field ConfigMap.data of type string');
  });

  test('an unknown fieldValidation value is refused', async () => {
    const res = await create('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fv"}}', '?fieldValidation=Loose');
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  test('patches: unknown fields in the result are warned about or refused', async () => {
    await create('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"patched"}}');
    const warn = await ts().request('PATCH', '/api/v1/namespaces/default/configmaps/patched', {
      body: { spec: { x: 1 }, data: { a: 'b' } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(warn.status).toBe(200);
    expect(warningsOf(warn.headers.warning).join()).toContain('unknown field');
    expect(warn.json.spec).toBeUndefined();
    const strict = await ts().request('PATCH', '/api/v1/namespaces/default/configmaps/patched?fieldValidation=Strict', {
      body: { spec: { x: 1 } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(strict.status).toBeGreaterThanOrEqual(400);
    expect(strict.status).toBeLessThan(500);
  });

  test('YAML bodies are validated too', async () => {
    const res = await ts().request('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml\ndata:\n  a: b\ndata:\n  a: c\n',
      headers: { 'Content-Type': 'application/yaml' },
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toContain('already set in map');
  });
});
