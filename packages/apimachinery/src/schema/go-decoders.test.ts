import { goBase64Error, goRfc3339Error } from './go-decoders.js';
import { goFormatValue, goQuote } from './go-text.js';

describe('goBase64Error (Go base64.StdEncoding)', () => {
  test.each([
    ['', undefined],
    ['aGVsbG8=', undefined],
    ['aGk=', undefined],
    ['YQ==', undefined],
    ['aGVs\nbG8=', undefined],
    ['abc', 'illegal base64 data at input byte 0'],
    ['abcdab', 'illegal base64 data at input byte 4'],
    ['ab!d', 'illegal base64 data at input byte 2'],
    ['=', 'illegal base64 data at input byte 0'],
    ['a===', 'illegal base64 data at input byte 1'],
    ['YQ=', 'illegal base64 data at input byte 3'],
    ['YQ=x', 'illegal base64 data at input byte 2'],
    ['YQ==YQ==', 'illegal base64 data at input byte 4'],
    ['é', 'illegal base64 data at input byte 0'],
    ['aaaaé', 'illegal base64 data at input byte 4'],
  ])('%j', (text, want) => {
    expect(goBase64Error(text)).toBe(want);
  });
});

describe('goRfc3339Error (time.Parse(time.RFC3339))', () => {
  const L = '"2006-01-02T15:04:05Z07:00"';
  test.each([
    ['2024-01-02T03:04:05Z', undefined],
    ['2024-01-02T03:04:05.123456+02:00', undefined],
    ['2024-02-29T00:00:00Z', undefined],
    ['x', `parsing time "x" as ${L}: cannot parse "x" as "2006"`],
    ['2024-01-02', `parsing time "2024-01-02" as ${L}: cannot parse "" as "T"`],
    ['2024-1-02T00:00:00Z', `parsing time "2024-1-02T00:00:00Z" as ${L}: cannot parse "1-02T00:00:00Z" as "01"`],
    ['2024-01-02T03:04:05', `parsing time "2024-01-02T03:04:05" as ${L}: cannot parse "" as "Z07:00"`],
    ['2024-13-02T03:04:05Z', 'parsing time "2024-13-02T03:04:05Z": month out of range'],
    ['2023-02-29T00:00:00Z', 'parsing time "2023-02-29T00:00:00Z": day out of range'],
    ['2024-01-02T25:04:05Z', 'parsing time "2024-01-02T25:04:05Z": hour out of range'],
    ['2024-01-02T03:04:05Zjunk', 'parsing time "2024-01-02T03:04:05Zjunk": extra text: "junk"'],
  ])('%j', (value, want) => {
    expect(goRfc3339Error(value)).toBe(want);
  });
});

describe('Go text helpers', () => {
  test.each([
    ['spec.x', '"spec.x"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['tab\there\n', '"tab\\there\\n"'],
    ['\x7f\x01', '"\\x7f\\x01"'],
    ['héllo ☃', '"héllo ☃"'],
    ['\u00ad\u2028', '"\\u00ad\\u2028"'],
  ])('goQuote(%j)', (s, want) => {
    expect(goQuote(s)).toBe(want);
  });

  test('goFormatValue prints like %+v of decoded JSON', () => {
    expect(goFormatValue({ data: { b: 'x', a: 1 }, list: [1.5, true, null, 'y'], big: 1e6 + 0.5, tiny: 0.00001 })).toBe(
      'map[big:1.0000005e+06 data:map[a:1 b:x] list:[1.5 true <nil> y] tiny:1e-05]',
    );
  });
});
