import { fieldErrorMessage } from '../validation/field-error.js';
import type { JsonValue } from '../meta/types.js';
import { validateAgainstSchema } from './schema-validate.js';
import type { JSONSchemaProps } from './types.js';

const spec = (properties: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps => ({
  type: 'object',
  properties: { spec: { type: 'object', properties, ...extra } },
});
const messages = (value: JsonValue, schema: JSONSchemaProps) => validateAgainstSchema(value, schema, '').map(fieldErrorMessage);

describe('validateAgainstSchema', () => {
  test.each<[string, JSONSchemaProps, JsonValue, string[]]>([
    ['valid object', spec({ replicas: { type: 'integer' } }), { spec: { replicas: 3 } }, []],
    [
      'integer given a string',
      spec({ replicas: { type: 'integer' } }),
      { spec: { replicas: 'three' } },
      ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'],
    ],
    [
      'integer given a fraction',
      spec({ replicas: { type: 'integer' } }),
      { spec: { replicas: 1.5 } },
      ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"'],
    ],
    ['number accepts integers', spec({ ratio: { type: 'number' } }), { spec: { ratio: 2 } }, []],
    [
      'null where not nullable',
      spec({ name: { type: 'string' } }),
      { spec: { name: null } },
      ['spec.name: Invalid value: "null": spec.name in body must be of type string: "null"'],
    ],
    ['null where nullable', spec({ name: { type: 'string', nullable: true } }), { spec: { name: null } }, []],
    [
      'enum',
      spec({ mode: { type: 'string', enum: ['a', 'b'] } }),
      { spec: { mode: 'c' } },
      ['spec.mode: Unsupported value: "c": supported values: "a", "b"'],
    ],
    [
      'pattern',
      spec({ cron: { type: 'string', pattern: '^\\d+$' } }),
      { spec: { cron: 'x' } },
      ["spec.cron: Invalid value: \"x\": spec.cron in body should match '^\\d+$'"],
    ],
    [
      'maximum and minimum',
      spec({ a: { type: 'integer', maximum: 10 }, b: { type: 'integer', minimum: 1, exclusiveMinimum: true } }),
      { spec: { a: 11, b: 1 } },
      ['spec.a: Invalid value: 11: spec.a in body should be less than or equal to 10', 'spec.b: Invalid value: 1: spec.b in body should be greater than 1'],
    ],
    [
      'string lengths',
      spec({ short: { type: 'string', maxLength: 2 }, long: { type: 'string', minLength: 3 } }),
      { spec: { short: 'abc', long: 'ab' } },
      ['spec.short: Too long: may not be longer than 2', 'spec.long: Invalid value: "ab": spec.long in body should be at least 3 chars long'],
    ],
    [
      'item counts',
      spec({ few: { type: 'array', maxItems: 1, items: { type: 'string' } }, many: { type: 'array', minItems: 2, items: { type: 'string' } } }),
      { spec: { few: ['a', 'b'], many: ['a'] } },
      ['spec.few: Too many: 2: must have at most 1 items', 'spec.many: Invalid value: 1: spec.many in body should have at least 2 items'],
    ],
    ['required', spec({ image: { type: 'string' } }, { required: ['image'] }), { spec: {} }, ['spec.image: Required value']],
    [
      'format date-time',
      spec({ at: { type: 'string', format: 'date-time' } }),
      { spec: { at: 'yesterday' } },
      ['spec.at: Invalid value: "yesterday": spec.at in body must be of type date-time: "yesterday"'],
    ],
    ['format date-time valid', spec({ at: { type: 'string', format: 'date-time' } }), { spec: { at: '2024-01-02T03:04:05Z' } }, []],
    ['unknown format accepted', spec({ x: { type: 'string', format: 'color' } }), { spec: { x: 'red' } }, []],
    [
      'list items get their index in the path',
      spec({ ports: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer' } } } } }),
      { spec: { ports: [{ port: 1 }, { port: 'x' }] } },
      ['spec.ports[1].port: Invalid value: "string": spec.ports[1].port in body must be of type integer: "string"'],
    ],
    [
      'map values',
      spec({ labels: { type: 'object', additionalProperties: { type: 'string' } } }),
      { spec: { labels: { a: 1 } } },
      ['spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"'],
    ],
    ['int-or-string accepts both', spec({ port: { 'x-kubernetes-int-or-string': true } }), { spec: { port: 'http' } }, []],
    [
      'int-or-string refuses others',
      spec({ port: { 'x-kubernetes-int-or-string': true } }),
      { spec: { port: true } },
      ['spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'],
    ],
    [
      'set lists refuse duplicates',
      spec({ tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } }),
      { spec: { tags: ['a', 'a'] } },
      ['spec.tags[1]: Duplicate value: "a"'],
    ],
    [
      'map lists refuse duplicate keys',
      spec({
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' } } },
        },
      }),
      { spec: { ports: [{ name: 'a' }, { name: 'a' }] } },
      ['spec.ports[1]: Duplicate value: {"name":"a"}'],
    ],
    [
      'anyOf',
      spec({ x: { type: 'integer', anyOf: [{ minimum: 10 }, { maximum: 0 }] } }),
      { spec: { x: 5 } },
      ['spec.x: Invalid value: 5: spec.x in body must match at least one schema (anyOf)'],
    ],
    ['preserved unknown fields are not checked', spec({}, { 'x-kubernetes-preserve-unknown-fields': true }), { spec: { any: [1, { b: null }] } }, []],
  ])('%s', (_name, schema, value, expected) => {
    expect(messages(value, schema)).toEqual(expected);
  });
});
