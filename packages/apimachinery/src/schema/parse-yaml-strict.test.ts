import { parseYamlStrict, YamlSyntaxError, yamlDuplicatesMessage } from './parse-yaml-strict.js';

describe('parseYamlStrict', () => {
  test('lists repeated keys with the value line, inner mappings first, like go-yaml strict mode', () => {
    const text = [
      'apiVersion: v1', //   1
      'kind: ConfigMap', //  2
      'metadata:', //        3
      '  name: a', //        4
      '  labels:', //        5
      '    x: "1"', //       6
      '    x: "2"', //       7
      'data:', //            8
      '  k: v', //           9
      'data:', //           10
      '  k: w', //          11
      '  k: u', //          12
    ].join('\n');
    const r = parseYamlStrict(text);
    expect(r.value).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { x: '2' } }, data: { k: 'u' } });
    expect(r.duplicates.map((d) => [d.line, d.path, d.text])).toEqual([
      [7, 'metadata.labels.x', 'line 7: key "x" already set in map'],
      [12, 'data.k', 'line 12: key "k" already set in map'],
      [11, 'data', 'line 11: key "data" already set in map'],
    ]);
    expect(yamlDuplicatesMessage(r.duplicates)).toBe(
      'yaml: unmarshal errors:\n  line 7: key "x" already set in map\n  line 12: key "k" already set in map\n  line 11: key "data" already set in map',
    );
  });

  test('repeated keys inside lists and flow mappings', () => {
    const r = parseYamlStrict('items:\n- {a: 1, a: 2}\n- b: 1\n  b: 2\n');
    expect(r.value).toEqual({ items: [{ a: 2 }, { b: 2 }] });
    expect(r.duplicates.map((d) => [d.line, d.path])).toEqual([
      [2, 'items[0].a'],
      [4, 'items[1].b'],
    ]);
  });

  test('keys of different types are different keys, as in go-yaml', () => {
    expect(parseYamlStrict('1: a\n"1": b\n').duplicates).toEqual([]);
    expect(parseYamlStrict('1: a\n1: b\n').duplicates.map((d) => d.text)).toEqual(['line 2: key 1 already set in map']);
  });

  test.each([
    ['a: yes\nb: off\nc: y', { a: true, b: false, c: true }],
    ['a: 0777\nb: 0x1F\nc: 1_000', { a: 511, b: 31, c: 1000 }],
    ['a: 2001-12-14\nb: 190:20:30\nc: !!binary aGk=', { a: '2001-12-14', b: '190:20:30', c: 'aGk=' }],
    ['a: ~\nb: null\nc:', { a: null, b: null, c: null }],
    ['n: 1\ntrue: 2', { false: 1, true: 2 }],
    ['base: &b {x: 1}\nderived:\n  <<: *b\n  z: 2', { base: { x: 1 }, derived: { x: 1, z: 2 } }],
    ['a: 1\n---\nb: 2', { a: 1 }],
  ])('YAML 1.1 scalars as go-yaml v2 resolves them: %j', (text, value) => {
    expect(parseYamlStrict(text).value).toEqual(value);
  });

  test('an empty body is null', () => {
    expect(parseYamlStrict('').value).toBeNull();
  });

  test.each(['a: [1, 2', 'a: b: c', 'a:\n\t- x'])('syntax error %j is reported as yaml: line N', (text) => {
    expect(() => parseYamlStrict(text)).toThrow(YamlSyntaxError);
    expect(() => parseYamlStrict(text)).toThrow(/^yaml: line \d+: /);
  });

  test('values JSON cannot carry fail like upstream json.Marshal', () => {
    expect(() => parseYamlStrict('a: .inf')).toThrow('json: unsupported value: +Inf');
    expect(() => parseYamlStrict('a: .nan')).toThrow('json: unsupported value: NaN');
  });

  test.each([
    ['? [a, b]\n: c\n', 'yaml: invalid map key: []interface {}{"a", "b"}'],
    ['data:\n  ? {x: 1, a: [true, ~]}\n  : c\n', 'yaml: invalid map key: map[interface {}]interface {}{"a":[]interface {}{true, interface {}(nil)}, "x":1}'],
    ['k: &k [1]\n? *k\n: v\n', 'yaml: invalid map key: []interface {}{1}'],
  ])('a mapping or sequence as a key %j is refused as go-yaml refuses it', (text, message) => {
    expect(() => parseYamlStrict(text)).toThrow(YamlSyntaxError);
    expect(() => parseYamlStrict(text)).toThrow(message);
  });
});
