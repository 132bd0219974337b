import { formatGoDuration, parseCsvList, parseGoBool, parseGoDuration, parseGoInt } from './flag-values.js';

describe('parseGoDuration', () => {
  test.each<[string, number]>([
    ['0', 0],
    ['-0', 0],
    ['5m', 300_000],
    ['30s', 30_000],
    ['1h30m', 5_400_000],
    ['500ms', 500],
    ['1.5h', 5_400_000],
    ['.5s', 500],
    ['1.s', 1000],
    ['-1m', -60_000],
    ['+2s', 2000],
    ['100us', 0.1],
    ['100µs', 0.1],
    ['1000000ns', 1],
    ['1h2m3s4ms', 3_723_004],
  ])('%s', (input, ms) => {
    expect(parseGoDuration(input)).toBeCloseTo(ms, 9);
  });

  test.each<[string, string]>([
    ['', 'time: invalid duration ""'],
    ['-', 'time: invalid duration "-"'],
    ['s', 'time: invalid duration "s"'],
    ['.s', 'time: invalid duration ".s"'],
    ['1', 'time: missing unit in duration "1"'],
    ['1h5', 'time: missing unit in duration "1h5"'],
    ['3d', 'time: unknown unit "d" in duration "3d"'],
    ['1 s', 'time: unknown unit " s" in duration "1 s"'],
    ['9999999999h', 'time: invalid duration "9999999999h"'],
  ])('%j fails', (input, message) => {
    expect(() => parseGoDuration(input)).toThrow(message);
  });
});

describe('formatGoDuration', () => {
  test.each<[number, string]>([
    [0, '0s'],
    [500, '500ms'],
    [1500, '1.5s'],
    [60_000, '1m0s'],
    [300_000, '5m0s'],
    [5_400_000, '1h30m0s'],
    [31_536_000_000, '8760h0m0s'],
    [-2000, '-2s'],
  ])('%d', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });
});

describe('parseGoInt', () => {
  test.each<[string, number]>([
    ['0', 0],
    ['6443', 6443],
    ['-12', -12],
    ['+7', 7],
    ['0x1f', 31],
    ['0o17', 15],
    ['017', 15],
    ['0b101', 5],
    ['1_000', 1000],
    ['0x_1f', 31],
  ])('%s', (input, value) => {
    expect(parseGoInt(input)).toBe(value);
  });

  test.each<[string, string]>([
    ['', 'strconv.ParseInt: parsing "": invalid syntax'],
    ['abc', 'strconv.ParseInt: parsing "abc": invalid syntax'],
    ['1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    ['_1', 'strconv.ParseInt: parsing "_1": invalid syntax'],
    ['1_', 'strconv.ParseInt: parsing "1_": invalid syntax'],
    ['0x', 'strconv.ParseInt: parsing "0x": invalid syntax'],
    ['09', 'strconv.ParseInt: parsing "09": invalid syntax'],
    ['9223372036854775808', 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
  ])('%j fails', (input, message) => {
    expect(() => parseGoInt(input)).toThrow(message);
  });

  test('32-bit unsigned for klog levels', () => {
    expect(parseGoInt('4294967295', 32, 'ParseUint')).toBe(4294967295);
    expect(() => parseGoInt('4294967296', 32, 'ParseUint')).toThrow('strconv.ParseUint: parsing "4294967296": value out of range');
    expect(() => parseGoInt('-1', 32, 'ParseUint')).toThrow('strconv.ParseUint: parsing "-1": invalid syntax');
  });
});

describe('parseGoBool', () => {
  test.each([['1', true], ['t', true], ['TRUE', true], ['True', true], ['0', false], ['f', false], ['FALSE', false], ['False', false]])(
    '%s',
    (input, value) => {
      expect(parseGoBool(input as string)).toBe(value);
    },
  );
  test.each(['yes', 'tRUE', '', ' true'])('%j fails', (input) => {
    expect(() => parseGoBool(input)).toThrow(`strconv.ParseBool: parsing ${JSON.stringify(input)}: invalid syntax`);
  });
});

describe('parseCsvList', () => {
  test.each<[string, string[]]>([
    ['', []],
    ['a', ['a']],
    ['a,b', ['a', 'b']],
    ['a,,b,', ['a', '', 'b', '']],
    ['"a,b",c', ['a,b', 'c']],
    ['"say ""hi"""', ['say "hi"']],
  ])('%j', (input, list) => {
    expect(parseCsvList(input)).toEqual(list);
  });
  test.each<[string, string]>([
    ['a"b', 'parse error on line 1, column 2: bare " in non-quoted-field'],
    ['"ab', 'extraneous or missing " in quoted-field'],
    ['"a"b', 'extraneous or missing " in quoted-field'],
  ])('%j fails', (input, message) => {
    expect(() => parseCsvList(input)).toThrow(message);
  });
});
