import { StatusError } from '../errors/status-error.js';
import type { JsonValue } from '../meta/types.js';
import type { FieldValidationDirective } from './field-validation.js';
import { applyPatchWarnings, checkPatchDocument, decodeApplyPatch, validatePatchedObject, type PatchKind } from './patch-validation.js';
import type { Definitions } from './schema-node.js';
import { CONFIG_MAP, loadTestDefinitions } from './test-schemas.js';

let defs: Definitions;
beforeAll(async () => {
  defs = await loadTestDefinitions();
});

const statusOf = (f: () => unknown): StatusError => {
  try {
    f();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('accepted');
};

const validate = (patchKind: PatchKind, patchText: string, patched: JsonValue, directive: FieldValidationDirective) =>
  validatePatchedObject({ patchKind, patchText, patched, definitions: defs, rootName: CONFIG_MAP, directive });

const PATCHED = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' }, spec: { x: 1 } };

describe('checkPatchDocument', () => {
  test.each([
    ['merge', '{"data":{"a":"1","a":"2"},"data":{}}', ['duplicate field "data.a"', 'duplicate field "data"']],
    ['strategic', '{"metadata":{"labels":{"x":"1","x":"2"}}}', ['duplicate field "metadata.labels.x"']],
    [
      'json',
      '[{"op":"add","path":"/data/a","value":{"v":1,"v":2},"op":"add","bogus":1}]',
      ['json patch duplicate field "[0].value.v"', 'json patch duplicate field "[0].op"', 'json patch unknown field "[0].bogus"'],
    ],
    ['json', '[{"op":"remove","path":"/data/a"}]', []],
  ] as const)('%s %s', (kind, text, errors) => {
    expect(checkPatchDocument(text, kind).strictErrors).toEqual(errors);
  });

  test.each([
    ['json', '[{"op":"add"', 'error decoding patch: unexpected end of JSON input'],
    ['merge', '{"a":', 'error decoding patch: unexpected end of JSON input'],
    ['strategic', '{"a" 1}', "invalid character '1' after object key"],
    ['json', '{"op":"add"}', 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp'],
    ['json', '[{"op":1}]', 'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string'],
    ['merge', '[]', 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['strategic', '"x"', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
  ] as const)('%s %s is a 400', (kind, text, message) => {
    const e = statusOf(() => checkPatchDocument(text, kind));
    expect(e.code).toBe(400);
    expect(e.message).toBe(message);
  });
});

describe('validatePatchedObject', () => {
  test('Warn: patch document errors first, then unknown fields of the result; pruned result', () => {
    const r = validate('merge', '{"data":{"k":"v"},"data":{"k":"v"},"spec":{"x":1}}', PATCHED, 'Warn');
    expect(r.warnings).toEqual(['duplicate field "data"', 'unknown field "spec"']);
    expect(r.object).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } });
  });

  test('Ignore: nothing reported, the result is still pruned', () => {
    const r = validate('json', 'not even json', PATCHED, 'Ignore');
    expect(r).toEqual({ object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } }, warnings: [] });
  });

  test('Strict: 422 Invalid on field "patch" showing the patched JSON', () => {
    const text = '[{"op":"add","path":"/spec","value":{"x":1},"op":"add"}]';
    const e = statusOf(() => validate('json', text, PATCHED, 'Strict'));
    expect(e.code).toBe(422);
    expect(e.reason).toBe('Invalid');
    const shown = JSON.stringify(JSON.stringify(PATCHED));
    const detail = 'strict decoding error: json patch duplicate field "[0].op", unknown field "spec"';
    expect(e.message).toBe(` "" is invalid: patch: Invalid value: ${shown}: ${detail}`);
    expect(e.status.details).toEqual({ causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: ${shown}: ${detail}`, field: 'patch' }] });
  });

  test('patchedJson replaces the shown value', () => {
    const e = statusOf(() =>
      validatePatchedObject({ patchKind: 'merge', patchText: '{}', patched: PATCHED, definitions: defs, rootName: CONFIG_MAP, directive: 'Strict', patchedJson: '{"as":"upstream"}' }),
    );
    expect(e.message).toBe(' "" is invalid: patch: Invalid value: "{\\"as\\":\\"upstream\\"}": strict decoding error: unknown field "spec"');
  });

  test('unknown fields of a JSON or merge patch result come in sorted key order', () => {
    const patched = { zeta: 1, metadata: { name: 'a', b: 1, a: 2 }, alpha: 1 };
    expect(validate('merge', '{}', patched, 'Warn').warnings).toEqual([
      'unknown field "alpha"',
      'unknown field "metadata.a"',
      'unknown field "metadata.b"',
      'unknown field "zeta"',
    ]);
  });

  test.each(['Ignore', 'Warn', 'Strict'] as const)('type errors of the result are 422 under %s (JSON decoder text)', (d) => {
    const patched = { kind: 'ConfigMap', data: { a: 1 } };
    const e = statusOf(() => validate('merge', '{"data":{"a":1}}', patched, d));
    expect(e.code).toBe(422);
    expect(e.message).toBe(
      ` "" is invalid: patch: Invalid value: ${JSON.stringify(JSON.stringify(patched))}: json: cannot unmarshal number into Go struct field ConfigMap.data of type string`,
    );
  });

  test('strategic merge patch: converter wording, the patch shown as Go %+v, unknown fields sorted by text', () => {
    const e = statusOf(() => validate('strategic', '{"data":{"a":1}}', { kind: 'ConfigMap', data: { a: 1 } }, 'Ignore'));
    expect(e.message).toBe(' "" is invalid: patch: Invalid value: "map[data:map[a:1]]": cannot convert int64 to string');
    const patched = { metadata: { name: 'a', zz: 1 }, spec: { x: 1 }, aa: 1 };
    expect(validate('strategic', '{"spec":{"x":1},"spec":{"x":1}}', patched, 'Warn').warnings).toEqual([
      'duplicate field "spec"',
      'unknown field "aa"',
      'unknown field "metadata.zz"',
      'unknown field "spec"',
    ]);
    const s = statusOf(() => validate('strategic', '{"spec":{"x":1}}', patched, 'Strict'));
    expect(s.message).toBe(
      ' "" is invalid: patch: Invalid value: "map[spec:map[x:1]]": strict decoding error: unknown field "aa", unknown field "metadata.zz", unknown field "spec"',
    );
  });
});

describe('apply (YAML) bodies', () => {
  const BODY = 'apiVersion: v1\nkind: ConfigMap\ndata:\n  a: "1"\n  a: "2"\n';

  test('decodes with the last value and notes repeated keys', () => {
    const d = decodeApplyPatch(BODY);
    expect(d.object).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: '2' } });
    expect(d.strictError).toBe('error converting YAML to JSON: yaml: unmarshal errors:\n  line 5: key "a" already set in map');
  });

  test.each([
    ['Ignore', []],
    ['Warn', ['line 5: key "a" already set in map']],
  ] as const)('%s', (d, warnings) => {
    expect(applyPatchWarnings(decodeApplyPatch(BODY), d)).toEqual(warnings);
  });

  test('Strict is a 400', () => {
    const e = statusOf(() => applyPatchWarnings(decodeApplyPatch(BODY), 'Strict'));
    expect(e.code).toBe(400);
    expect(e.message).toBe('error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 5: key "a" already set in map');
  });

  test('clean bodies give nothing to report', () => {
    expect(applyPatchWarnings(decodeApplyPatch('kind: ConfigMap\n'), 'Strict')).toEqual([]);
  });

  test.each([
    ['a: [1', /^error decoding YAML: error converting YAML to JSON: yaml: line \d+: /],
    ['- a\n- b', /^error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map\[string\]interface \{\}$/],
  ])('undecodable %j is a 400', (text, message) => {
    const e = statusOf(() => decodeApplyPatch(text));
    expect(e.code).toBe(400);
    expect(e.message).toMatch(message);
  });
});
