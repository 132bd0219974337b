import { StatusError } from '../errors/status-error.js';
import { decodeWithFieldValidation, strictErrorWarnings, summarizeBody, type FieldValidationDirective } from './field-validation.js';
import type { Definitions } from './schema-node.js';
import { CONFIG_MAP, loadTestDefinitions } from './test-schemas.js';

let defs: Definitions;
beforeAll(async () => {
  defs = await loadTestDefinitions();
});

const decode = (text: string, directive: FieldValidationDirective, media: 'json' | 'yaml' = 'json') =>
  decodeWithFieldValidation(text, media, defs, CONFIG_MAP, 'ConfigMap', directive);

/** The 400 a decode throws. */
const rejection = (text: string, directive: FieldValidationDirective, media: 'json' | 'yaml' = 'json'): StatusError => {
  try {
    decode(text, directive, media);
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('accepted');
};

const HANDLED = 'ConfigMap in version "v1" cannot be handled as a ConfigMap';
const BAD_JSON =
  '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"b","foo":1},"spec":{"x":1},"data":{"k":"v"},"data":{"k":"w"}}';

describe('decodeWithFieldValidation, JSON bodies', () => {
  test('Ignore drops unknown and repeated fields silently', () => {
    expect(decode(BAD_JSON, 'Ignore')).toEqual({
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: { k: 'w' } },
      warnings: [],
    });
  });

  test('Warn succeeds with one warning per field, in document order', () => {
    const r = decode(BAD_JSON, 'Warn');
    expect(r.object).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: { k: 'w' } });
    expect(r.warnings).toEqual([
      'duplicate field "metadata.name"',
      'unknown field "metadata.foo"',
      'unknown field "spec"',
      'duplicate field "data"',
    ]);
  });

  test('Strict rejects with all fields in one 400', () => {
    const e = rejection(BAD_JSON, 'Strict');
    expect(e.code).toBe(400);
    expect(e.reason).toBe('BadRequest');
    expect(e.message).toBe(
      `${HANDLED}: strict decoding error: duplicate field "metadata.name", unknown field "metadata.foo", unknown field "spec", duplicate field "data"`,
    );
  });

  test.each(['Ignore', 'Warn', 'Strict'] as const)('a clean body passes under %s', (d) => {
    expect(decode('{"kind":"ConfigMap","metadata":{"name":"a"},"data":{"a":"b"}}', d)).toEqual({
      object: { kind: 'ConfigMap', metadata: { name: 'a' }, data: { a: 'b' } },
      warnings: [],
    });
  });

  test('an unknown field repeated is reported once, as unknown', () => {
    expect(decode('{"x":1,"x":2,"metadata":{"labels":{"a":"1","a":"2"}}}', 'Warn').warnings).toEqual([
      'unknown field "x"',
      'duplicate field "metadata.labels.a"',
    ]);
  });

  test('repeated keys inside replaced or merged values are still reported, in document order', () => {
    expect(decode('{"metadata":{"name":"a","name":"b"},"metadata":{"labels":{"x":"1","x":"2"}},"data":{"k":"v","k":"w"},"data":{}}', 'Warn')).toEqual({
      // A map-typed struct field is decoded into the map so far, so the empty second data adds nothing.
      object: { metadata: { name: 'b', labels: { x: '2' } }, data: { k: 'w' } },
      warnings: [
        'duplicate field "metadata.name"',
        'duplicate field "metadata"',
        'duplicate field "metadata.labels.x"',
        'duplicate field "data.k"',
        'duplicate field "data"',
      ],
    });
  });

  test('strict errors stop at 100, as sigs.k8s.io/json keeps them', () => {
    const keys = Array.from({ length: 150 }, (_, i) => `"u${i}":1`).join(',');
    expect(decode(`{${keys}}`, 'Warn').warnings).toHaveLength(100);
  });

  test.each(['Ignore', 'Warn', 'Strict'] as const)('type errors are 400 under %s, and win over strict errors', (d) => {
    expect(rejection('{"bogus":1,"data":{"a":1}}', d).message).toBe(
      `${HANDLED}: json: cannot unmarshal number into Go struct field ConfigMap.data of type string`,
    );
  });

  test('the message names the kind and version from the body', () => {
    expect(rejection('{"apiVersion":"example.org/v2","kind":"Other","data":{"a":1}}', 'Warn').message).toBe(
      'Other in version "v2" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    );
  });

  test.each([
    ['{"kind":"ConfigMap"', 'json parse error: unexpected end of JSON input ({"kind":"ConfigMap")'],
    ['{"metadata":{"name":"a-very-long-name-indeed"},}', `json parse error: invalid character '}' looking for beginning of object key string ({"metadata":{"name":"a-very-lo ...)`],
    ['[1]', 'json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b315d)'],
    ['{"kind":1}', 'json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({"kind":1})'],
  ])('undecodable body %j', (text, tail) => {
    const e = rejection(text, 'Strict');
    expect(e.code).toBe(400);
    expect(e.message).toBe(`the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; ${tail}`);
  });

  test('a null body decodes to an empty object', () => {
    expect(decode('null', 'Strict').object).toEqual({});
  });
});

describe('decodeWithFieldValidation, YAML bodies', () => {
  const BAD_YAML = [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: a',
    '  name: b',
    'data:',
    '  k: "1"',
    '  k: "2"',
    'zeta: 1',
    'spec:',
    '  x: 1',
  ].join('\n');

  test('Warn: one warning per repeated key line, then unknown fields in sorted key order', () => {
    const r = decode(BAD_YAML, 'Warn', 'yaml');
    expect(r.object).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: { k: '2' } });
    expect(r.warnings).toEqual([
      'line 5: key "name" already set in map',
      'line 8: key "k" already set in map',
      'unknown field "spec"',
      'unknown field "zeta"',
    ]);
  });

  test('Strict: go-yaml error first, then unknown fields', () => {
    expect(rejection(BAD_YAML, 'Strict', 'yaml').message).toBe(
      `${HANDLED}: strict decoding error: yaml: unmarshal errors:\n  line 5: key "name" already set in map\n  line 8: key "k" already set in map, unknown field "spec", unknown field "zeta"`,
    );
  });

  test('Ignore: silent', () => {
    expect(decode(BAD_YAML, 'Ignore', 'yaml').warnings).toEqual([]);
  });

  test('YAML numbers are not strings: a type error as upstream (no coercion)', () => {
    expect(rejection('data:\n  a: 1\n', 'Ignore', 'yaml').message).toBe(
      `${HANDLED}: json: cannot unmarshal number into Go struct field ConfigMap.data of type string`,
    );
  });

  test('malformed YAML is a 400 with the hex summary of the body', () => {
    const e = rejection('a: [1, 2', 'Warn', 'yaml');
    expect(e.code).toBe(400);
    expect(e.message).toMatch(/^the object provided is unrecognized \(must be of type ConfigMap\): yaml: line \d+: .* \(613a205b312c2032\)$/);
  });
});

describe('helpers', () => {
  test('strictErrorWarnings splits go-yaml errors of both prefixes and keeps the rest', () => {
    expect(
      strictErrorWarnings([
        'yaml: unmarshal errors:\n  line 2: key "a" already set in map\n  line 3: key "b" already set in map',
        'error converting YAML to JSON: yaml: unmarshal errors:\n  line 9: key "c" already set in map',
        'unknown field "x"',
      ]),
    ).toEqual(['line 2: key "a" already set in map', 'line 3: key "b" already set in map', 'line 9: key "c" already set in map', 'unknown field "x"']);
  });

  test.each([
    ['', '<empty>'],
    ['{"a":1}', '{"a":1}'],
    ['{"0123456789":"0123456789abcdef"}', '{"0123456789":"0123456789abcde ...'],
    ['kind: x', '6b696e643a2078'],
  ])('summarizeBody(%j)', (text, want) => {
    expect(summarizeBody(text)).toBe(want);
  });
});
